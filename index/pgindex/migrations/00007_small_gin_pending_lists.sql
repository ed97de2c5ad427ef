-- Each GIN index of the search tables keeps a short pending list.
--
-- A GIN index takes new entries into an unsorted pending list, merged into
-- the index when the list outgrows gin_pending_list_limit (4 MB by
-- default) or when the table is vacuumed. Every search that uses the index
-- reads the whole list: with the default, a text or e-mail condition read
-- up to 512 pages more than it needed (at 100,000 conversations after a
-- load, 2.2 ms instead of 0.5 ms for one customer's conversations), and
-- the write that overflowed the list merged 4 MB before it could commit.
-- 256 kB bounds both: at most 32 pages to read, and a merge sixteen times
-- smaller.

-- +goose Up
ALTER INDEX search_conversation_body_lexemes SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_body_stems SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_customer SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_customer_name_lexemes SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_customer_name_stems SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_email SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_reply_user SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_saved_reply SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_subject_lexemes SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_subject_stems SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_tag SET (gin_pending_list_limit = 256);
ALTER INDEX search_conversation_workflow SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_email SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_email_domain SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_email_fragment SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_first_name_lexemes SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_first_name_stems SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_last_name_lexemes SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_last_name_stems SET (gin_pending_list_limit = 256);
ALTER INDEX search_customer_mailbox SET (gin_pending_list_limit = 256);

-- +goose Down
ALTER INDEX search_conversation_body_lexemes RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_body_stems RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_customer RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_customer_name_lexemes RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_customer_name_stems RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_email RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_reply_user RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_saved_reply RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_subject_lexemes RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_subject_stems RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_tag RESET (gin_pending_list_limit);
ALTER INDEX search_conversation_workflow RESET (gin_pending_list_limit);
ALTER INDEX search_customer_email RESET (gin_pending_list_limit);
ALTER INDEX search_customer_email_domain RESET (gin_pending_list_limit);
ALTER INDEX search_customer_email_fragment RESET (gin_pending_list_limit);
ALTER INDEX search_customer_first_name_lexemes RESET (gin_pending_list_limit);
ALTER INDEX search_customer_first_name_stems RESET (gin_pending_list_limit);
ALTER INDEX search_customer_last_name_lexemes RESET (gin_pending_list_limit);
ALTER INDEX search_customer_last_name_stems RESET (gin_pending_list_limit);
ALTER INDEX search_customer_mailbox RESET (gin_pending_list_limit);
