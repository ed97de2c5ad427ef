package pgstore

import (
	"time"

	parley "github.com/parley/parley"
)

var (
	sqlPutMail = stmt(`INSERT INTO mail (company_id, id, conversation_id, due_ns, body) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (company_id, id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id, due_ns = EXCLUDED.due_ns, body = EXCLUDED.body`)
	sqlConversationMail = stmt(`SELECT m.body FROM mail m WHERE m.company_id = $1 AND m.conversation_id = $2 ORDER BY m.id`)
)

// PutMail stores an outgoing e-mail, assigning an id when ID is 0, due at
// its next attempt until it is final.
func (t *Tx) PutMail(m *parley.Mail) error {
	if err := t.assignID(seqMail, &m.ID); err != nil {
		return err
	}
	due := dueAt(!m.Final(), m.NextAttemptAt)
	t.mailWork = t.mailWork || due != nil
	return t.put(sqlPutMail, m, m.CompanyID, m.ID, m.ConversationID, due)
}

// dueAt is the due column (Unix nanoseconds, as the embedded store orders
// its queues) of work queued for at, or NULL when it is not queued.
func dueAt(queued bool, at time.Time) *int64 {
	if !queued {
		return nil
	}
	ns := at.UnixNano()
	return &ns
}

// ConversationMail lists a conversation's outgoing e-mails, oldest first:
// its delivery log.
func (t *Tx) ConversationMail(conversationID int64) ([]parley.Mail, error) {
	company, found, err := t.conversationCompany(conversationID)
	if err != nil || !found {
		return nil, err
	}
	return many[parley.Mail](t, sqlConversationMail, company, conversationID)
}
