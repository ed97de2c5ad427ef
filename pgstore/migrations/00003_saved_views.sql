-- Saved views: a named saved search of a company, private to its owner or
-- shared with a mailbox's users. Their ids come from item_ids, the
-- sequence of folder ids, so a list's `folder` names a folder or a view,
-- never both.

-- +goose Up
CREATE TABLE saved_views (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

-- +goose Down
DROP TABLE saved_views;
