-- Many nodes on one database.
--
-- The outbox is no longer emptied by the node that indexes it: every
-- node's list engine follows it by sequence, so entries stay until the
-- search tables hold them (outbox_cursor 'applied') and they are older
-- than the retention window; 'pruned' is the highest sequence pruned, so
-- a node whose cursor is behind it knows it missed entries and reloads.
-- A reference table: the cursors belong to no company.
--
-- Rate limits are counted here so every node spends from one budget: one
-- row per company and budget, holding the current window (budgets that
-- belong to no company, per client address, are company 0's).

-- +goose Up
CREATE TABLE outbox_cursors (
    name text PRIMARY KEY,
    seq  bigint NOT NULL
);
INSERT INTO outbox_cursors (name, seq) VALUES ('applied', 0), ('pruned', 0);

ALTER TABLE outbox ADD COLUMN queued_at timestamptz NOT NULL DEFAULT clock_timestamp();

CREATE TABLE rate_windows (
    company_id   bigint NOT NULL,
    budget       text NOT NULL,
    window_start bigint NOT NULL,
    used         integer NOT NULL,
    PRIMARY KEY (company_id, budget)
);
CREATE INDEX rate_windows_start ON rate_windows (company_id, window_start);

-- +goose Down
DROP TABLE rate_windows, outbox_cursors;
ALTER TABLE outbox DROP COLUMN queued_at;
