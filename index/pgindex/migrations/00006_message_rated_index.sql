-- A btree for the ratings given in a period (ratedAt): the happiness,
-- company and user reports count them, by rating, customer and user,
-- several times per report; without it each figure scanned every message
-- of every company.

-- +goose Up
CREATE INDEX search_message_rated ON search_message (company_id, rated_at);

-- +goose Down
DROP INDEX search_message_rated;
