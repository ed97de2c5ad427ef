-- The body's GIN indexes also hold each conversation's inbox keys: its
-- mailbox and its status. A conversation search through the API nearly
-- always names a status (active by default) and often a mailbox:
-- `body:refund AND body:order` among one mailbox's active conversations.
-- With the body alone in its index, PostgreSQL took every document holding
-- both words from the GIN index (245,234 at 1M conversations), a second
-- bitmap from the mailbox's btree, and ANDed them: 43 ms of the count's 67
-- went to the first bitmap. With the inbox keys in the same index, the GIN
-- scan intersects their postings with the words' and yields the 8,992
-- matches alone: the count took 19 ms.
--
-- The keys are an expression, not the columns themselves, so that only a
-- search that asks for them uses them: the engine adds
-- `search_inbox(mailbox_id, status) @> keys` beside a body condition ANDed
-- with a status or a mailbox (see pgindex's translate.go). With the plain
-- columns in the index (btree_gin), the planner also took the status's
-- postings, a third of the table, as a status index for searches on the
-- subject: 53 ms became 99. A search on the body alone reads the same
-- postings as before. The company is left out: its postings are a third
-- of the table's in a large company, and the table page a match is read
-- from has it.

-- +goose Up
-- A mailbox is written as numeric (its digits, whatever the session's
-- extra_float_digits) and a status as its first 256 characters (GIN
-- entries are limited in size).
CREATE FUNCTION search_inbox(mailbox double precision, status text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ARRAY['m' || mailbox::numeric::text, 's' || left(status, 256)];
DROP INDEX search_conversation_body_stems;
CREATE INDEX search_conversation_body_stems ON search_conversation USING gin (search_inbox(mailbox_id, status), body_stems) WITH (gin_pending_list_limit = 256);
DROP INDEX search_conversation_body_lexemes;
CREATE INDEX search_conversation_body_lexemes ON search_conversation USING gin (search_inbox(mailbox_id, status), body_lexemes) WITH (gin_pending_list_limit = 256);
-- The planner estimates the keys from the statistics of the index's
-- expression, which ANALYZE gathers.
ANALYZE search_conversation;

-- +goose Down
DROP INDEX search_conversation_body_stems;
CREATE INDEX search_conversation_body_stems ON search_conversation USING gin (body_stems) WITH (gin_pending_list_limit = 256);
DROP INDEX search_conversation_body_lexemes;
CREATE INDEX search_conversation_body_lexemes ON search_conversation USING gin (body_lexemes) WITH (gin_pending_list_limit = 256);
DROP FUNCTION search_inbox;
