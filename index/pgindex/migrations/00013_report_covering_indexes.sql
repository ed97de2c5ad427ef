-- The reports' period btrees carry the narrow columns the reports read.
-- A report counts and sums a period's conversations (created, closed,
-- resolved, first answered, active) and messages (replies, customers'
-- messages), and restricts them to a type of conversation (the e-mail,
-- chat and phone reports) or a sender: the btree found the period, then
-- every match's wide row was read for the type, the sender and the
-- figures, one table page per match. With those columns in the btrees a
-- report reads them alone (an index-only scan on pages vacuum marked
-- all-visible). At 1M conversations the e-mail report of 30 days (its
-- current and previous period) read 93,000 table pages. Each btree keeps
-- its name and its keys, so the access paths that used it still do.

-- +goose Up
DROP INDEX search_conversation_created;
CREATE INDEX search_conversation_created ON search_conversation (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC) INCLUDE (type);
DROP INDEX search_conversation_closed;
CREATE INDEX search_conversation_closed ON search_conversation (company_id, closed_at) INCLUDE (type);
DROP INDEX search_conversation_resolved;
CREATE INDEX search_conversation_resolved ON search_conversation (company_id, resolved_at) INCLUDE (type, replies, resolution_seconds);
DROP INDEX search_conversation_first_response;
CREATE INDEX search_conversation_first_response ON search_conversation (company_id, first_response_at) INCLUDE (type, first_response_seconds);
DROP INDEX search_conversation_activity;
CREATE INDEX search_conversation_activity ON search_conversation (company_id, search_max(activity_at)) INCLUDE (type, activity_at);
DROP INDEX search_message_created;
CREATE INDEX search_message_created ON search_message (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC) INCLUDE (type, "from", user_id, customer_id, conversation_id, handle_seconds, response_seconds);

-- +goose Down
DROP INDEX search_conversation_created;
CREATE INDEX search_conversation_created ON search_conversation (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
DROP INDEX search_conversation_closed;
CREATE INDEX search_conversation_closed ON search_conversation (company_id, closed_at);
DROP INDEX search_conversation_resolved;
CREATE INDEX search_conversation_resolved ON search_conversation (company_id, resolved_at);
DROP INDEX search_conversation_first_response;
CREATE INDEX search_conversation_first_response ON search_conversation (company_id, first_response_at);
DROP INDEX search_conversation_activity;
CREATE INDEX search_conversation_activity ON search_conversation (company_id, search_max(activity_at));
DROP INDEX search_message_created;
CREATE INDEX search_message_created ON search_message (company_id, created_at DESC NULLS LAST, id DESC NULLS LAST, doc_id DESC);
