-- The address of each mailbox, found without a company: incoming mail
-- names its recipients only (the SMTP listener, the IMAP poller). A
-- reference table like widgets; email is normalized (trimmed, lowercased)
-- as the store writes it, and several mailboxes may share one, the oldest
-- answering.

-- +goose Up
CREATE TABLE mailbox_emails (
    mailbox_id bigint PRIMARY KEY,
    company_id bigint NOT NULL,
    email      text NOT NULL
);
CREATE INDEX mailbox_emails_email ON mailbox_emails (email, mailbox_id);
INSERT INTO mailbox_emails (mailbox_id, company_id, email)
SELECT m.id, m.company_id, lower(btrim(m.body->>'email')) FROM mailboxes m;

-- +goose Down
DROP TABLE mailbox_emails;
