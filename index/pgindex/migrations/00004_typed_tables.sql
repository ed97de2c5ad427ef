-- The search documents as typed tables, one per kind, replacing the
-- entity-attribute-value tables (one row per document, keyword, number
-- and text field): a query is one WHERE and one ORDER BY over one row per
-- document, on the btree and GIN indexes of its columns. The columns
-- follow index.Catalog (see pgindex's package comment for the mapping);
-- every primary key starts with company_id, so Citus can distribute each
-- table by company. The search index is derived data: this migration
-- empties it and forgets the mapping version it was built with, so the
-- first node to start rebuilds it from storage (as `parley reindex` does).

-- +goose Up
DROP TABLE search_texts;
DROP TABLE search_numbers;
DROP TABLE search_keywords;
DROP TABLE search_documents;
DELETE FROM search_state;

-- The first 256 characters of each value of an array: GIN entries are
-- limited in size, as btree entries are, and values may be longer, so the
-- GIN index of a keyword array holds its heads and a query rechecks the
-- whole value.
CREATE FUNCTION search_heads(text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT left(v, 256) FROM unnest($1) AS v);

-- The values of an array, one per line, for a trigram index of the fields
-- searched by fragment (a fragment is rechecked against each value).
CREATE FUNCTION search_joined(text[]) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_to_string($1, E'\n');

-- The largest value of an array: a value within a range from a is in an
-- array only if its largest is at least a, so an index on it narrows a
-- range search on a multi-valued date (recent activity) to the rows that
-- may match, which are then checked value by value.
CREATE FUNCTION search_max(double precision[]) RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (SELECT max(v) FROM unnest($1) AS v);

-- Every table has the document's id (doc_id), its present fields (for
-- field:*), and extra: the values that have no column (custom fields),
-- as JSON: {"k": {field: [keywords]}, "n": {field: [numbers as text]},
-- "t": {field: {"l": lexemes, "s": stems, "r": runs}}}. A text field has
-- three columns: its exact forms and its stemmed forms as tsvectors
-- (Parley's own analysis, never PostgreSQL's dictionaries) and its runs,
-- against which phrases are checked. Numbers and dates (Unix
-- milliseconds) are double precision, as the documents hold them.

-- Conversations: lists filter by status, mailbox, folder and assignee and
-- read newest first, so the btrees start with the company, then the
-- filter, then the order (NULLS LAST, as a sort puts missing values), the
-- id and the document id breaking ties, and a page is read off them in
-- order. Dates searched by range (the reports' drilldowns) have btrees;
-- multi-valued ones (activity, replies) by their largest value. Tags,
-- e-mails, customers and reply users are arrays (GIN).
CREATE TABLE search_conversation (
    company_id bigint NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    fields text[] NOT NULL,
    extra jsonb,
    "id" double precision,
    "number" double precision,
    "mailbox_id" double precision,
    "mailbox_name" text COLLATE "C",
    "folder_id" double precision,
    "status" text COLLATE "C",
    "state" text COLLATE "C",
    "type" text COLLATE "C",
    "tag" text[] COLLATE "C" NOT NULL,
    "assignee_id" double precision,
    "assigned" text COLLATE "C",
    "customer_id" double precision[] NOT NULL,
    "customer_name_lexemes" tsvector NOT NULL,
    "customer_name_stems" tsvector NOT NULL,
    "customer_name_runs" text NOT NULL,
    "customer_name_sort" text COLLATE "C",
    "customer_email" text COLLATE "C",
    "email" text[] COLLATE "C" NOT NULL,
    "subject_lexemes" tsvector NOT NULL,
    "subject_stems" tsvector NOT NULL,
    "subject_runs" text NOT NULL,
    "subject_sort" text COLLATE "C",
    "body_lexemes" tsvector NOT NULL,
    "body_stems" tsvector NOT NULL,
    "body_runs" text NOT NULL,
    "created_at" double precision,
    "modified_at" double precision,
    "waiting_since" double precision,
    "has_attachments" text COLLATE "C",
    "reply_user_id" double precision[] NOT NULL,
    "created_by_user_id" double precision,
    "replies" double precision,
    "first_response_at" double precision,
    "first_response_seconds" double precision,
    "first_response_office_seconds" double precision,
    "resolved_at" double precision,
    "resolution_seconds" double precision,
    "resolution_office_seconds" double precision,
    "resolved_by_user_id" double precision,
    "closed_by_user_id" double precision,
    "primary_customer_id" double precision,
    "activity_at" double precision[] NOT NULL,
    "created_by" text COLLATE "C",
    "created_week_hour" text COLLATE "C",
    "closed_at" double precision,
    "reply_at" double precision[] NOT NULL,
    "response_seconds" double precision[] NOT NULL,
    "response_office_seconds" double precision[] NOT NULL,
    PRIMARY KEY (company_id, doc_id)
);
CREATE INDEX search_conversation_owner ON search_conversation (doc_id);
CREATE INDEX search_conversation_created ON search_conversation (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
CREATE INDEX search_conversation_status ON search_conversation (company_id, status, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
CREATE INDEX search_conversation_mailbox ON search_conversation (company_id, mailbox_id, status, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
CREATE INDEX search_conversation_modified ON search_conversation (company_id, modified_at);
CREATE INDEX search_conversation_waiting ON search_conversation (company_id, waiting_since);
CREATE INDEX search_conversation_first_response ON search_conversation (company_id, first_response_at);
CREATE INDEX search_conversation_resolved ON search_conversation (company_id, resolved_at);
CREATE INDEX search_conversation_closed ON search_conversation (company_id, closed_at);
CREATE INDEX search_conversation_activity ON search_conversation (company_id, search_max(activity_at));
CREATE INDEX search_conversation_reply ON search_conversation (company_id, search_max(reply_at));
CREATE INDEX search_conversation_number ON search_conversation (company_id, number);
CREATE INDEX search_conversation_folder ON search_conversation (company_id, folder_id);
CREATE INDEX search_conversation_assignee ON search_conversation (company_id, assignee_id);
CREATE INDEX search_conversation_tag ON search_conversation USING gin (search_heads(tag));
CREATE INDEX search_conversation_email ON search_conversation USING gin (search_heads(email));
CREATE INDEX search_conversation_customer ON search_conversation USING gin (customer_id);
CREATE INDEX search_conversation_reply_user ON search_conversation USING gin (reply_user_id);
CREATE INDEX search_conversation_subject_lexemes ON search_conversation USING gin (subject_lexemes);
CREATE INDEX search_conversation_subject_stems ON search_conversation USING gin (subject_stems);
CREATE INDEX search_conversation_body_lexemes ON search_conversation USING gin (body_lexemes);
CREATE INDEX search_conversation_body_stems ON search_conversation USING gin (body_stems);
CREATE INDEX search_conversation_customer_name_lexemes ON search_conversation USING gin (customer_name_lexemes);
CREATE INDEX search_conversation_customer_name_stems ON search_conversation USING gin (customer_name_stems);

-- Customers: e-mails are searched whole (GIN on their heads) and by
-- fragment (trigrams).
CREATE TABLE search_customer (
    company_id bigint NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    fields text[] NOT NULL,
    extra jsonb,
    "id" double precision,
    "first_name_lexemes" tsvector NOT NULL,
    "first_name_stems" tsvector NOT NULL,
    "first_name_runs" text NOT NULL,
    "last_name_lexemes" tsvector NOT NULL,
    "last_name_stems" tsvector NOT NULL,
    "last_name_runs" text NOT NULL,
    "first_name_sort" text COLLATE "C",
    "last_name_sort" text COLLATE "C",
    "email" text[] COLLATE "C" NOT NULL,
    "email_domain" text[] COLLATE "C" NOT NULL,
    "mailbox_id" double precision[] NOT NULL,
    "organization_id" double precision,
    "created_at" double precision,
    "modified_at" double precision,
    PRIMARY KEY (company_id, doc_id)
);
CREATE INDEX search_customer_owner ON search_customer (doc_id);
CREATE INDEX search_customer_created ON search_customer (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
CREATE INDEX search_customer_modified ON search_customer (company_id, modified_at);
CREATE INDEX search_customer_organization ON search_customer (company_id, organization_id);
CREATE INDEX search_customer_email ON search_customer USING gin (search_heads(email));
CREATE INDEX search_customer_email_fragment ON search_customer USING gin (search_joined(email) gin_trgm_ops);
CREATE INDEX search_customer_email_domain ON search_customer USING gin (search_heads(email_domain));
CREATE INDEX search_customer_mailbox ON search_customer USING gin (mailbox_id);
CREATE INDEX search_customer_first_name_lexemes ON search_customer USING gin (first_name_lexemes);
CREATE INDEX search_customer_first_name_stems ON search_customer USING gin (first_name_stems);
CREATE INDEX search_customer_last_name_lexemes ON search_customer USING gin (last_name_lexemes);
CREATE INDEX search_customer_last_name_stems ON search_customer USING gin (last_name_stems);

-- Chats, calls and messages are the list engine's (index.Kind.Textless):
-- a router does not give them to this engine; their tables serve an
-- engine used alone.
CREATE TABLE search_chat (
    company_id bigint NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    fields text[] NOT NULL,
    extra jsonb,
    "created_at" double precision,
    "ended_at" double precision,
    "mailbox_id" double precision,
    "folder_id" double precision,
    "assignee_id" double precision,
    "conversation_id" double precision,
    "tag" text[] COLLATE "C" NOT NULL,
    "ended" text COLLATE "C",
    "missed" text COLLATE "C",
    "completed" text COLLATE "C",
    "integration" text COLLATE "C",
    "wait_seconds" double precision,
    "response_seconds" double precision,
    "duration_seconds" double precision,
    "messages" double precision,
    "wait_office_seconds" double precision,
    "response_office_seconds" double precision,
    "duration_office_seconds" double precision,
    PRIMARY KEY (company_id, doc_id)
);
CREATE INDEX search_chat_owner ON search_chat (doc_id);
CREATE INDEX search_chat_created ON search_chat (company_id, created_at DESC NULLS LAST, doc_id DESC);

CREATE TABLE search_call (
    company_id bigint NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    fields text[] NOT NULL,
    extra jsonb,
    "id" double precision,
    "created_at" double precision,
    "user_id" double precision,
    "customer_id" double precision,
    "conversation_id" double precision,
    "mailbox_id" double precision,
    "folder_id" double precision,
    "tag" text[] COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, doc_id)
);
CREATE INDEX search_call_owner ON search_call (doc_id);
CREATE INDEX search_call_created ON search_call (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);

CREATE TABLE search_message (
    company_id bigint NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    fields text[] NOT NULL,
    extra jsonb,
    "from" text COLLATE "C",
    "id" double precision,
    "created_at" double precision,
    "user_id" double precision,
    "customer_id" double precision,
    "conversation_id" double precision,
    "number" double precision,
    "mailbox_id" double precision,
    "folder_id" double precision,
    "type" text COLLATE "C",
    "tag" text[] COLLATE "C" NOT NULL,
    "rating" text COLLATE "C",
    "rated_at" double precision,
    "rating_rank" double precision,
    "rating_customer_id" double precision,
    "response_seconds" double precision,
    "response_office_seconds" double precision,
    "status" text COLLATE "C",
    "conversation_figures" text COLLATE "C",
    "response_figures" text COLLATE "C",
    "created_week_hour" text COLLATE "C",
    PRIMARY KEY (company_id, doc_id)
);
CREATE INDEX search_message_owner ON search_message (doc_id);
CREATE INDEX search_message_created ON search_message (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);

-- +goose Down
DROP TABLE search_message;
DROP TABLE search_call;
DROP TABLE search_chat;
DROP TABLE search_customer;
DROP TABLE search_conversation;
DROP FUNCTION search_max(double precision[]);
DROP FUNCTION search_joined(text[]);
DROP FUNCTION search_heads(text[]);
-- The tables as 00001_search.sql made them, empty: with no mapping
-- version recorded, the next start rebuilds them.
DELETE FROM search_state;
CREATE TABLE search_documents (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    doc_id     text COLLATE "C" NOT NULL,
    num_id     double precision,
    fields     text[] NOT NULL,
    sorts      jsonb NOT NULL,
    PRIMARY KEY (company_id, kind, doc_id)
);
CREATE INDEX search_documents_fields ON search_documents USING gin (fields);
-- Deletes name documents without their company (see Apply).
CREATE INDEX search_documents_owner ON search_documents (kind, doc_id);

-- Exact values, lowercased by the document builders. Values can be longer
-- than a btree entry allows, so the value index holds their first 256
-- characters and queries recheck the whole value.
CREATE TABLE search_keywords (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    doc_id     text COLLATE "C" NOT NULL,
    field      text NOT NULL,
    ord        integer NOT NULL,
    value      text COLLATE "C" NOT NULL,
    substrings boolean NOT NULL,
    PRIMARY KEY (company_id, kind, doc_id, field, ord)
);
CREATE INDEX search_keywords_value ON search_keywords (company_id, kind, field, left(value, 256), doc_id);
-- Fields searched by fragment (e-mail "contains") get a trigram index.
CREATE INDEX search_keywords_fragment ON search_keywords USING gin (value gin_trgm_ops) WHERE substrings;

-- Numbers and dates (Unix milliseconds), one row per distinct value.
CREATE TABLE search_numbers (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    doc_id     text COLLATE "C" NOT NULL,
    field      text NOT NULL,
    value      double precision NOT NULL,
    PRIMARY KEY (company_id, kind, doc_id, field, value)
);
CREATE INDEX search_numbers_value ON search_numbers (company_id, kind, field, value, doc_id);

-- Text fields, one row per document and field, analysed by Parley's own
-- analysis in Go (index.Tokens, index.Stem): the exact forms of all its
-- values as lexemes, for quoted words and prefixes; their stemmed forms,
-- for unquoted words; and the exact token runs of each value,
-- space-separated and one value per line, which phrases and long prefixes
-- are checked against exactly.
CREATE TABLE search_texts (
    company_id bigint NOT NULL,
    kind       text NOT NULL,
    doc_id     text COLLATE "C" NOT NULL,
    field      text NOT NULL,
    lexemes    tsvector NOT NULL,
    stems      tsvector NOT NULL,
    runs       text NOT NULL,
    PRIMARY KEY (company_id, kind, doc_id, field)
);
CREATE INDEX search_texts_lexemes ON search_texts USING gin (lexemes);
CREATE INDEX search_texts_stems ON search_texts USING gin (stems);
