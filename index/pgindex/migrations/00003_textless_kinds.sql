-- Messages, calls and chats (index.Kind.Textless) are the list engine's
-- alone: a router no longer gives their documents to the search tables,
-- so the rows an older version wrote would only go stale. Nothing reads
-- them.

-- +goose Up
DELETE FROM search_texts WHERE kind IN ('message', 'call', 'chat');
DELETE FROM search_numbers WHERE kind IN ('message', 'call', 'chat');
DELETE FROM search_keywords WHERE kind IN ('message', 'call', 'chat');
DELETE FROM search_documents WHERE kind IN ('message', 'call', 'chat');

-- +goose Down
-- An older version reads those kinds from the search tables while its
-- list engine fills: with no mapping version recorded, its next start
-- rebuilds the tables, theirs included.
DELETE FROM search_state;
