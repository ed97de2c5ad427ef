-- A GIN index on the conversations' extra values (custom fields, see
-- pgindex's apply.go), for a condition on one value of a custom field:
-- `customFieldsByIds` and its query form found their candidates through
-- the list's other conditions (a mailbox, a tag) and read extra on every
-- one of them. At 1M conversations, a mailbox's VIP conversations with a
-- number field of 250 (871 of 35,371 candidates) read 28,383 table pages.
-- jsonb_path_ops answers containment (extra @> '{"n": {"cfn.6": ["250"]}}')
-- and is the smaller of the two GIN classes.

-- +goose Up
CREATE INDEX search_conversation_extra ON search_conversation USING gin (extra jsonb_path_ops) WITH (gin_pending_list_limit = 256);

-- +goose Down
DROP INDEX search_conversation_extra;
