-- The columns index.Catalog gained with the reports' handle time and the
-- fields drill-down: a conversation's and a reply's handle time, and the
-- saved replies and workflows a conversation's threads name (several per
-- conversation: arrays, with GIN indexes for the drill-down's filter).
-- Mapping version 19 rebuilds the search tables at the first start, which
-- fills them.

-- +goose Up
ALTER TABLE search_conversation
    ADD COLUMN "handle_seconds" double precision,
    ADD COLUMN "saved_reply_id" double precision[],
    ADD COLUMN "workflow_id" double precision[];
CREATE INDEX search_conversation_saved_reply ON search_conversation USING gin (saved_reply_id);
CREATE INDEX search_conversation_workflow ON search_conversation USING gin (workflow_id);
ALTER TABLE search_message ADD COLUMN "handle_seconds" double precision;

-- +goose Down
ALTER TABLE search_message DROP COLUMN "handle_seconds";
DROP INDEX search_conversation_workflow;
DROP INDEX search_conversation_saved_reply;
ALTER TABLE search_conversation
    DROP COLUMN "workflow_id",
    DROP COLUMN "saved_reply_id",
    DROP COLUMN "handle_seconds";
