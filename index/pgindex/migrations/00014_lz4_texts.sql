-- Texts are compressed with LZ4 where the server has it (PostgreSQL 14 and
-- later built with lz4, as Debian's and most distributions' are). A phrase,
-- a quoted word or a prefix is decided on a text's runs (see pgindex's
-- lexeme.go), which PostgreSQL keeps compressed out of line once past 2 kB:
-- a phrase over a body reads and decompresses the runs of every candidate.
-- LZ4 decompresses several times faster than PostgreSQL's own pglz, and
-- compresses faster when a write stores a text. Values already stored keep
-- their compression until rewritten (`parley reindex --database` rewrites
-- every search row). Without lz4 the migration changes nothing.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE search_conversation ALTER COLUMN customer_name_lexemes SET COMPRESSION lz4, ALTER COLUMN customer_name_stems SET COMPRESSION lz4, ALTER COLUMN customer_name_runs SET COMPRESSION lz4, ALTER COLUMN subject_lexemes SET COMPRESSION lz4, ALTER COLUMN subject_stems SET COMPRESSION lz4, ALTER COLUMN subject_runs SET COMPRESSION lz4, ALTER COLUMN body_lexemes SET COMPRESSION lz4, ALTER COLUMN body_stems SET COMPRESSION lz4, ALTER COLUMN body_runs SET COMPRESSION lz4;
    ALTER TABLE search_customer ALTER COLUMN first_name_lexemes SET COMPRESSION lz4, ALTER COLUMN first_name_stems SET COMPRESSION lz4, ALTER COLUMN first_name_runs SET COMPRESSION lz4, ALTER COLUMN last_name_lexemes SET COMPRESSION lz4, ALTER COLUMN last_name_stems SET COMPRESSION lz4, ALTER COLUMN last_name_runs SET COMPRESSION lz4;
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE search_conversation ALTER COLUMN customer_name_lexemes SET COMPRESSION DEFAULT, ALTER COLUMN customer_name_stems SET COMPRESSION DEFAULT, ALTER COLUMN customer_name_runs SET COMPRESSION DEFAULT, ALTER COLUMN subject_lexemes SET COMPRESSION DEFAULT, ALTER COLUMN subject_stems SET COMPRESSION DEFAULT, ALTER COLUMN subject_runs SET COMPRESSION DEFAULT, ALTER COLUMN body_lexemes SET COMPRESSION DEFAULT, ALTER COLUMN body_stems SET COMPRESSION DEFAULT, ALTER COLUMN body_runs SET COMPRESSION DEFAULT;
ALTER TABLE search_customer ALTER COLUMN first_name_lexemes SET COMPRESSION DEFAULT, ALTER COLUMN first_name_stems SET COMPRESSION DEFAULT, ALTER COLUMN first_name_runs SET COMPRESSION DEFAULT, ALTER COLUMN last_name_lexemes SET COMPRESSION DEFAULT, ALTER COLUMN last_name_stems SET COMPRESSION DEFAULT, ALTER COLUMN last_name_runs SET COMPRESSION DEFAULT;
