-- The search documents of every kind. Every table's primary key starts
-- with company_id, so Citus can distribute each one by company and keep a
-- company's rows together; every statement filters by company_id.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per document: its present fields (for field:*), the smallest
-- value of its numeric "id" (the final tie-break of kinds that have one),
-- and the smallest value of each sortable field, as text, so a sort reads
-- its keys from the row it has already found.
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

-- +goose Down
DROP TABLE search_texts;
DROP TABLE search_numbers;
DROP TABLE search_keywords;
DROP TABLE search_documents;
