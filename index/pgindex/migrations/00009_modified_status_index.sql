-- The btree of conversations by modification time also holds their
-- status: a list of the active conversations modified in the last week
-- counts them from the index (at 100,000 conversations, 685 entries read
-- instead of 2,061 rows fetched to check their status: 0.85 -> 0.13 ms).

-- +goose Up
DROP INDEX search_conversation_modified;
CREATE INDEX search_conversation_modified ON search_conversation (company_id, modified_at, status);

-- +goose Down
DROP INDEX search_conversation_modified;
CREATE INDEX search_conversation_modified ON search_conversation (company_id, modified_at);
