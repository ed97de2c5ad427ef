-- Parley's records on PostgreSQL: the same families as the embedded store
-- (package storage), one table per family plus the tables of its secondary
-- keys.
--
-- Citus-ready: every table but the reference tables below has company_id
-- as the first column of its primary key, so each can be distributed by
-- company (create_distributed_table(table, 'company_id')) and a company's
-- rows stay together; every statement on one filters by company_id. The
-- reference tables (create_reference_table) are what must be found without
-- a company: companies, credentials by hash, sign-in e-mails, V1 keys,
-- widget ids, and the owners of ids that a few reads name without their
-- company. Nothing references across companies.
--
-- A record is kept whole as body (its JSON), beside the typed columns that
-- lookups, unique keys and orderings need; Go derives those columns from
-- the record when it writes it.

-- +goose Up

-- Ids are global across companies (a URL never names two records), one
-- sequence per family, as in the embedded store.
CREATE SEQUENCE company_ids;
CREATE SEQUENCE user_ids;
CREATE SEQUENCE team_ids;
CREATE SEQUENCE mailbox_ids;
CREATE SEQUENCE saved_reply_ids;
CREATE SEQUENCE customer_ids;
CREATE SEQUENCE customer_property_ids;
CREATE SEQUENCE organization_ids;
CREATE SEQUENCE organization_property_ids;
CREATE SEQUENCE tag_ids;
CREATE SEQUENCE conversation_ids;
CREATE SEQUENCE thread_ids;
CREATE SEQUENCE rating_ids;
CREATE SEQUENCE attachment_ids;
CREATE SEQUENCE webhook_ids;
CREATE SEQUENCE delivery_ids;
CREATE SEQUENCE mail_ids;
CREATE SEQUENCE workflow_ids;
CREATE SEQUENCE workflow_run_ids;
-- Folders, mailbox fields, their options, customer entries and property
-- options share one sequence.
CREATE SEQUENCE item_ids;
CREATE SEQUENCE event_seq;
CREATE SEQUENCE outbox_seq;

-- Reference tables.

CREATE TABLE companies (
    id   bigint PRIMARY KEY,
    body jsonb NOT NULL
);

-- OAuth applications, tokens, grants, codes, refresh tokens, V1 key
-- exchanges, sign-in sessions and the cursor-signing key: each found by
-- its kind and key (a client id, a hash, a grant id), never by company.
CREATE TABLE credentials (
    kind text NOT NULL,
    key  text NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (kind, key)
);

-- A sign-in e-mail names one user of all companies.
CREATE TABLE user_emails (
    email      text PRIMARY KEY,
    company_id bigint NOT NULL,
    user_id    bigint NOT NULL
);

CREATE TABLE user_v1_keys (
    key_hash   text PRIMARY KEY,
    company_id bigint NOT NULL,
    user_id    bigint NOT NULL
);

-- A public chat widget id names its mailbox.
CREATE TABLE widgets (
    widget_id  text PRIMARY KEY,
    company_id bigint NOT NULL,
    mailbox_id bigint NOT NULL
);

-- The company of an id, for the reads that name a record without its
-- company (the indexer, threads of a conversation, a webhook's
-- deliveries...); holding every id of a family here also keeps ids unique
-- across companies, which a distributed table's key cannot.
CREATE TABLE owners (
    kind       text NOT NULL,
    id         bigint NOT NULL,
    company_id bigint NOT NULL,
    PRIMARY KEY (kind, id)
);

CREATE TABLE chat_owners (
    chat_id    text PRIMARY KEY,
    company_id bigint NOT NULL
);

-- Company tables.

CREATE TABLE users (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

CREATE TABLE teams (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

CREATE TABLE mailboxes (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

CREATE TABLE saved_replies (
    company_id bigint NOT NULL,
    mailbox_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, mailbox_id, id)
);

CREATE TABLE customers (
    company_id      bigint NOT NULL,
    id              bigint NOT NULL,
    organization_id bigint NOT NULL,
    body            jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);
CREATE INDEX customers_organization ON customers (company_id, organization_id, id) WHERE organization_id <> 0;

-- A customer's e-mails, normalized: unique in a company.
CREATE TABLE customer_emails (
    company_id  bigint NOT NULL,
    email       text NOT NULL,
    customer_id bigint NOT NULL,
    PRIMARY KEY (company_id, email)
);
CREATE INDEX customer_emails_customer ON customer_emails (company_id, customer_id);

-- Property definitions of customers and of organizations (kind), listed
-- in slug order as the embedded store's keys sort (bytewise).
CREATE TABLE property_defs (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    slug       text COLLATE "C" NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, kind, slug)
);

-- name_key is the trimmed, lowercased name: organizations list in its
-- (bytewise) order and are found by it.
CREATE TABLE organizations (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    name_key   text COLLATE "C" NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);
CREATE INDEX organizations_name ON organizations (company_id, name_key, id);

CREATE TABLE organization_domains (
    company_id      bigint NOT NULL,
    domain          text NOT NULL,
    organization_id bigint NOT NULL,
    PRIMARY KEY (company_id, domain)
);
CREATE INDEX organization_domains_organization ON organization_domains (company_id, organization_id);

CREATE TABLE tags (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

-- A tag's name key; like the embedded store's, the last tag stored under
-- a name holds it.
CREATE TABLE tag_names (
    company_id bigint NOT NULL,
    name       text NOT NULL,
    tag_id     bigint NOT NULL,
    PRIMARY KEY (company_id, name)
);

-- The last conversation number a company used.
CREATE TABLE conversation_numbers (
    company_id  bigint NOT NULL,
    last_number bigint NOT NULL,
    PRIMARY KEY (company_id)
);

-- open_assignee is the assigned user of an open (published, active or
-- pending) conversation, else NULL: routing counts a user's load by it.
CREATE TABLE conversations (
    company_id    bigint NOT NULL,
    id            bigint NOT NULL,
    number        bigint NOT NULL,
    customer_id   bigint NOT NULL,
    mailbox_id    bigint NOT NULL,
    deleted       boolean NOT NULL,
    open_assignee bigint,
    tag_ids       bigint[] NOT NULL,
    body          jsonb NOT NULL,
    PRIMARY KEY (company_id, id),
    UNIQUE (company_id, number)
);
CREATE INDEX conversations_customer ON conversations (company_id, customer_id, id) WHERE NOT deleted;
CREATE INDEX conversations_open ON conversations (company_id, mailbox_id, open_assignee) WHERE open_assignee IS NOT NULL;

CREATE TABLE threads (
    company_id      bigint NOT NULL,
    conversation_id bigint NOT NULL,
    id              bigint NOT NULL,
    body            jsonb NOT NULL,
    PRIMARY KEY (company_id, conversation_id, id)
);

-- A satisfaction rating's address follows its thread, through merges too.
CREATE TABLE ratings (
    company_id      bigint NOT NULL,
    id              bigint NOT NULL,
    conversation_id bigint NOT NULL,
    thread_id       bigint NOT NULL,
    PRIMARY KEY (company_id, id)
);

-- The e-mail Message-IDs of threads, which replies find their
-- conversation by.
CREATE TABLE message_ids (
    company_id      bigint NOT NULL,
    message_id      text NOT NULL,
    conversation_id bigint NOT NULL,
    PRIMARY KEY (company_id, message_id)
);

CREATE TABLE thread_sources (
    company_id bigint NOT NULL,
    thread_id  bigint NOT NULL,
    raw        bytea NOT NULL,
    PRIMARY KEY (company_id, thread_id)
);

-- data is NULL for a file that was not kept.
CREATE TABLE attachments (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    data       bytea,
    PRIMARY KEY (company_id, id)
);

-- Wake-ups, due to the second as the embedded store compares them.
CREATE TABLE later (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    id         bigint NOT NULL,
    at_unix    bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, kind, id)
);
CREATE INDEX later_due ON later (at_unix, id, kind);

CREATE TABLE chats (
    company_id bigint NOT NULL,
    id         text NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

-- Domain events waiting to become webhook deliveries.
CREATE TABLE events (
    company_id bigint NOT NULL,
    seq        bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, seq)
);
CREATE INDEX events_seq ON events (seq);

-- due_ns is the next attempt (Unix nanoseconds) while the e-mail is not
-- final, else NULL.
CREATE TABLE mail (
    company_id      bigint NOT NULL,
    id              bigint NOT NULL,
    conversation_id bigint NOT NULL,
    due_ns          bigint,
    body            jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);
CREATE INDEX mail_conversation ON mail (company_id, conversation_id, id);
CREATE INDEX mail_due ON mail (due_ns, id) WHERE due_ns IS NOT NULL;

CREATE TABLE webhooks (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

-- queued while not final; due_ns is the next attempt (Unix nanoseconds)
-- of a queued, unpaused delivery, else NULL.
CREATE TABLE deliveries (
    company_id bigint NOT NULL,
    webhook_id bigint NOT NULL,
    id         bigint NOT NULL,
    order_key  text COLLATE "C" NOT NULL,
    queued     boolean NOT NULL,
    due_ns     bigint,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, webhook_id, id)
);
CREATE INDEX deliveries_queue ON deliveries (company_id, webhook_id, order_key, id) WHERE queued;
CREATE INDEX deliveries_due ON deliveries (due_ns, id) WHERE due_ns IS NOT NULL;

CREATE TABLE workflows (
    company_id bigint NOT NULL,
    id         bigint NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, id)
);

CREATE TABLE workflow_runs (
    company_id  bigint NOT NULL,
    workflow_id bigint NOT NULL,
    id          bigint NOT NULL,
    body        jsonb NOT NULL,
    PRIMARY KEY (company_id, workflow_id, id)
);

-- The index outbox: what the indexer must bring up to date, in commit
-- order (see pgstore's outbox.go).
CREATE TABLE outbox (
    company_id bigint NOT NULL,
    seq        bigint NOT NULL,
    kind       text NOT NULL,
    record_id  bigint NOT NULL,
    ref        text NOT NULL,
    PRIMARY KEY (company_id, seq)
);
CREATE INDEX outbox_seq_order ON outbox (seq);

-- +goose Down
DROP TABLE outbox, workflow_runs, workflows, deliveries, webhooks, mail, events, chats, later, attachments,
    thread_sources, message_ids, ratings, threads, conversations, conversation_numbers, tag_names, tags,
    organization_domains, organizations, property_defs, customer_emails, customers, saved_replies, mailboxes,
    teams, users, chat_owners, owners, widgets, user_v1_keys, user_emails, credentials, companies;
DROP SEQUENCE company_ids, user_ids, team_ids, mailbox_ids, saved_reply_ids, customer_ids, customer_property_ids,
    organization_ids, organization_property_ids, tag_ids, conversation_ids, thread_ids, rating_ids, attachment_ids,
    webhook_ids, delivery_ids, mail_ids, workflow_ids, workflow_run_ids, item_ids, event_seq, outbox_seq;
