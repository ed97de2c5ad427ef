package main

// The peer's schema is what an engineer would write for this API on
// PostgreSQL alone: every key starts with company_id; conversations carry
// english tsvectors of their subject and of their threads' bodies (GIN),
// tag ids as an array (GIN), and btrees on the columns lists filter and
// sort on; customer e-mails have a trigram index for fragments. Tables are
// created and filled in one transaction (COPY, no WAL under
// wal_level=minimal), then indexed and analysed. Text columns may be NULL:
// CSV writes an empty string as NULL.
const peerSchema = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE customers (
	company_id bigint NOT NULL, id bigint NOT NULL, first_name text, last_name text,
	created_at timestamptz NOT NULL, PRIMARY KEY (company_id, id));
CREATE TABLE customer_emails (
	company_id bigint NOT NULL, customer_id bigint NOT NULL, email text NOT NULL,
	PRIMARY KEY (company_id, customer_id, email));
CREATE TABLE tags (
	company_id bigint NOT NULL, id bigint NOT NULL, name text NOT NULL,
	PRIMARY KEY (company_id, id), UNIQUE (company_id, name));
CREATE TEMP TABLE conversation_load (
	company_id bigint NOT NULL, id bigint NOT NULL, number bigint NOT NULL, type text NOT NULL,
	mailbox_id bigint NOT NULL, status text NOT NULL, subject text, assignee_id bigint,
	customer_id bigint, created_at timestamptz NOT NULL, modified_at timestamptz NOT NULL,
	closed_at timestamptz, tag_ids bigint[] NOT NULL, thread_count int NOT NULL, preview text,
	body text) ON COMMIT DROP;
CREATE TABLE conversations (
	company_id bigint NOT NULL, id bigint NOT NULL, number bigint NOT NULL, type text NOT NULL,
	mailbox_id bigint NOT NULL, status text NOT NULL, subject text, assignee_id bigint,
	customer_id bigint, created_at timestamptz NOT NULL, modified_at timestamptz NOT NULL,
	closed_at timestamptz, tag_ids bigint[] NOT NULL, thread_count int NOT NULL, preview text,
	subject_tsv tsvector NOT NULL, body_tsv tsvector NOT NULL);
CREATE TABLE conversation_fields (
	company_id bigint NOT NULL, conversation_id bigint NOT NULL, field_id bigint NOT NULL, value text NOT NULL,
	PRIMARY KEY (company_id, conversation_id, field_id));
CREATE TABLE threads (
	company_id bigint NOT NULL, id bigint NOT NULL, conversation_id bigint NOT NULL, type text NOT NULL,
	body text, customer_id bigint, created_by bigint, created_at timestamptz NOT NULL);
CREATE TABLE chats (
	company_id bigint NOT NULL, id text NOT NULL, mailbox_id bigint NOT NULL, assignee_id bigint,
	created_at timestamptz NOT NULL, ended_at timestamptz, wait_seconds float8, response_seconds float8,
	duration_seconds float8, messages int NOT NULL, missed boolean NOT NULL, completed boolean NOT NULL,
	PRIMARY KEY (company_id, id));
`

// peerConversations fills conversations from the loading table, the
// bodies (all threads' text, as Parley's body field) turned into a
// tsvector and not kept twice.
const peerConversations = `
INSERT INTO conversations
SELECT company_id, id, number, type, mailbox_id, status, subject, assignee_id, customer_id, created_at,
	modified_at, closed_at, tag_ids, thread_count, preview,
	to_tsvector('english', coalesce(subject, '')), to_tsvector('english', coalesce(body, ''))
FROM conversation_load;
`

const peerIndexes = `
ALTER TABLE conversations ADD PRIMARY KEY (company_id, id);
CREATE INDEX conversations_created ON conversations (company_id, created_at DESC, id DESC);
CREATE INDEX conversations_status ON conversations (company_id, status, created_at DESC, id DESC);
CREATE INDEX conversations_mailbox ON conversations (company_id, mailbox_id, status, created_at DESC);
CREATE INDEX conversations_modified ON conversations (company_id, modified_at);
CREATE INDEX conversations_customer ON conversations (company_id, customer_id, created_at);
CREATE INDEX conversations_subject ON conversations USING gin (subject_tsv);
CREATE INDEX conversations_body ON conversations USING gin (body_tsv);
CREATE INDEX conversations_tags ON conversations USING gin (tag_ids);
CREATE INDEX conversation_fields_value ON conversation_fields (company_id, field_id, value);
ALTER TABLE threads ADD PRIMARY KEY (company_id, id);
CREATE INDEX threads_conversation ON threads (company_id, conversation_id, created_at);
CREATE INDEX customer_emails_email ON customer_emails (company_id, email);
CREATE INDEX customer_emails_fragment ON customer_emails USING gin (email gin_trgm_ops);
CREATE INDEX customers_created ON customers (company_id, created_at DESC, id DESC);
CREATE INDEX chats_created ON chats (company_id, created_at);
ANALYZE;
`
