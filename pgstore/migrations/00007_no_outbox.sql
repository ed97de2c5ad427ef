-- No index outbox. Each write writes the search rows of the records it
-- touched in its own transaction (see pgstore's search.go), so nothing
-- queues index work any more, no node indexes for the others, and no node
-- follows the outbox into memory: the outbox, its shared cursors and its
-- sequence have no reader. Nodes of an earlier version write and follow
-- them, so they must be stopped before this migration is applied.

-- +goose Up
DROP TABLE outbox, outbox_cursors;
DROP SEQUENCE outbox_seq;

-- +goose Down
-- As migrations 00001 and 00004 made them. The search tables are not
-- marked stale: an earlier version's nodes start from an empty outbox and
-- search tables that hold every committed write.
CREATE SEQUENCE outbox_seq;
CREATE TABLE outbox (
    company_id bigint NOT NULL,
    seq        bigint NOT NULL,
    kind       text NOT NULL,
    record_id  bigint NOT NULL,
    ref        text NOT NULL,
    queued_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (company_id, seq)
);
CREATE INDEX outbox_seq_order ON outbox (seq);
CREATE TABLE outbox_cursors (
    name text PRIMARY KEY,
    seq  bigint NOT NULL
);
INSERT INTO outbox_cursors (name, seq) VALUES ('applied', 0), ('pruned', 0);
