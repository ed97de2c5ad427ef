-- The pulls (parley pull): the map of a source's record ids to the
-- company's, per source base URL and kind of record, and the last run
-- from each source that ran to its end.

-- +goose Up
CREATE TABLE pulled_ids (
    company_id bigint NOT NULL,
    source     text NOT NULL,
    kind       text NOT NULL,
    source_id  bigint NOT NULL,
    id         bigint NOT NULL,
    PRIMARY KEY (company_id, source, kind, source_id)
);
CREATE TABLE pulls (
    company_id bigint NOT NULL,
    source     text NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, source)
);

-- +goose Down
DROP TABLE pulls;
DROP TABLE pulled_ids;
