-- What the search tables were built with: the mapping version
-- (index.MappingVersion) of the indexer that filled them. A node that
-- finds another version rebuilds the tables from the store before it
-- serves; a database migrated before this table existed has no row, so
-- its tables are rebuilt once. It is one row for the whole database, so
-- it is a reference table under Citus (see pgindex.ReferenceTables), not
-- a company's.

-- +goose Up
CREATE TABLE search_state (
    singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    mapping_version text NOT NULL,
    built_at        timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE search_state;
