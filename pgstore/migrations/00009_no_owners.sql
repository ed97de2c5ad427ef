-- Ids without an owners table. Every new conversation, thread, customer,
-- mailbox, organization, attachment and webhook wrote its id to owners,
-- and every chat to chat_owners: tables read by id alone, so under Citus
-- reference tables, and each new record a write to every node. Now the
-- reads that name a record by id take its company from their caller, a
-- drawn id is unique by construction (its sequence), and an id given to a
-- new record (an import, a copy, a pull) moves its family's sequence past
-- it and is checked free by a read of the family's table by id, across
-- companies: the indexes below serve that read and the loads of a record
-- whatever its company (ConversationByID and the like).
--
-- Each family's sequence is first moved past the ids its table holds, so
-- that no drawn id can reach an id kept before (the owners table refused
-- such a draw; now nothing would). Nodes of an earlier version claim ids in
-- owners, so they must be stopped before this migration is applied.

-- +goose Up
CREATE INDEX conversations_id ON conversations (id);
CREATE INDEX customers_id ON customers (id);
CREATE INDEX mailboxes_id ON mailboxes (id);
CREATE INDEX organizations_id ON organizations (id);
CREATE INDEX threads_id ON threads (id);
CREATE INDEX attachments_id ON attachments (id);
CREATE INDEX webhooks_id ON webhooks (id);
CREATE INDEX chats_id ON chats (id);

SELECT setval('conversation_ids', x.m) FROM (SELECT max(t.id) AS m FROM conversations t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'conversation_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('customer_ids', x.m) FROM (SELECT max(t.id) AS m FROM customers t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'customer_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('mailbox_ids', x.m) FROM (SELECT max(t.id) AS m FROM mailboxes t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'mailbox_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('organization_ids', x.m) FROM (SELECT max(t.id) AS m FROM organizations t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'organization_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('thread_ids', x.m) FROM (SELECT max(t.id) AS m FROM threads t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'thread_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('attachment_ids', x.m) FROM (SELECT max(t.id) AS m FROM attachments t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'attachment_ids' AND coalesce(s.last_value, 0) < x.m;
SELECT setval('webhook_ids', x.m) FROM (SELECT max(t.id) AS m FROM webhooks t) x, pg_sequences s
WHERE s.schemaname = current_schema() AND s.sequencename = 'webhook_ids' AND coalesce(s.last_value, 0) < x.m;

DROP TABLE owners, chat_owners;

-- +goose Down
-- As migration 00001 made them, filled from the records.
CREATE TABLE owners (
    kind       text NOT NULL,
    id         bigint NOT NULL,
    company_id bigint NOT NULL,
    PRIMARY KEY (kind, id)
);
INSERT INTO owners (kind, id, company_id)
SELECT 'conversation', t.id, t.company_id FROM conversations t UNION ALL
SELECT 'customer', t.id, t.company_id FROM customers t UNION ALL
SELECT 'mailbox', t.id, t.company_id FROM mailboxes t UNION ALL
SELECT 'organization', t.id, t.company_id FROM organizations t UNION ALL
SELECT 'thread', t.id, t.company_id FROM threads t UNION ALL
SELECT 'attachment', t.id, t.company_id FROM attachments t UNION ALL
SELECT 'webhook', t.id, t.company_id FROM webhooks t
ON CONFLICT (kind, id) DO NOTHING;
CREATE TABLE chat_owners (
    chat_id    text PRIMARY KEY,
    company_id bigint NOT NULL
);
INSERT INTO chat_owners (chat_id, company_id) SELECT h.id, h.company_id FROM chats h ON CONFLICT (chat_id) DO NOTHING;
DROP INDEX conversations_id, customers_id, mailboxes_id, organizations_id, threads_id, attachments_id, webhooks_id, chats_id;
