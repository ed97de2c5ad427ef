package pgstore

import (
	"time"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

var (
	sqlPutMail = stmt(`INSERT INTO mail (company_id, id, conversation_id, due_ns, body) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (company_id, id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id, due_ns = EXCLUDED.due_ns, body = EXCLUDED.body`)
	sqlConversationMail = stmt(`SELECT m.body FROM mail m WHERE m.company_id = $1 AND m.conversation_id = $2 ORDER BY m.id`)
	sqlMail             = stmt(`SELECT m.body FROM mail m WHERE m.company_id = $1 AND m.id = $2`)
	// The e-mail dispatcher's queue: what waits to be sent, of every
	// company, earliest due first.
	sqlDueMail  = stmt(`SELECT m.body, m.due_ns FROM mail m WHERE m.due_ns <= $1 ORDER BY m.due_ns, m.id LIMIT $2 ` + AllCompanies)
	sqlNextMail = stmt(`SELECT m.due_ns FROM mail m WHERE m.due_ns IS NOT NULL ORDER BY m.due_ns, m.id LIMIT 1 ` + AllCompanies)
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
func (t *Tx) ConversationMail(companyID, conversationID int64) ([]parley.Mail, error) {
	return many[parley.Mail](t, sqlConversationMail, companyID, conversationID)
}

// Mail loads an outgoing e-mail of a company.
func (t *Tx) Mail(companyID, id int64) (*parley.Mail, error) {
	return one[parley.Mail](t, "mail", sqlMail, companyID, id)
}

// DueMail lists up to max e-mails waiting whose next attempt is at or
// before now, the earliest first.
func (t *Tx) DueMail(now time.Time, max int) ([]parley.Mail, error) {
	return collect(t, dueRow(func(m *parley.Mail) *time.Time { return &m.NextAttemptAt }), sqlDueMail, now.UnixNano(), max)
}

// dueRow decodes a queue's row (body, due_ns) with its next attempt at the
// time the queue holds it for. A claim moves due_ns alone, to the end of
// its lease (claims.go): once the lease is over, the claim of another
// node names that time, as it must to take the item.
func dueRow[T any](next func(*T) *time.Time) func(pgx.CollectableRow) (T, error) {
	return func(row pgx.CollectableRow) (T, error) {
		var rec T
		var body []byte
		var due int64
		if err := row.Scan(&body, &due); err != nil {
			return rec, err
		}
		if err := decodeBody(body, &rec); err != nil {
			return rec, err
		}
		*next(&rec) = time.Unix(0, due).UTC()
		return rec, nil
	}
}

// NextMailAt is when the earliest e-mail waiting is due, and false when
// none waits. A failure stays on the transaction (see Tx.failed).
func (t *Tx) NextMailAt() (time.Time, bool) {
	var ns int64
	found, _ := t.scan(sqlNextMail, nil, &ns)
	if !found {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}
