package pgstore

import (
	"fmt"

	parley "github.com/parley/parley"
)

var (
	sqlMailbox    = cachedStmt(`SELECT m.body FROM mailboxes m WHERE m.company_id = $1 AND m.id = $2`)
	sqlMailboxes  = stmt(`SELECT m.body FROM mailboxes m WHERE m.company_id = $1 ORDER BY m.id`)
	sqlPutMailbox = stmt(`INSERT INTO mailboxes (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlWidget          = stmt(`SELECT w.company_id, w.mailbox_id FROM widgets w WHERE w.widget_id = $1`)
	sqlPutWidget       = stmt(`INSERT INTO widgets (widget_id, company_id, mailbox_id) VALUES ($1, $2, $3) ON CONFLICT (widget_id) DO NOTHING`)
	sqlPutMailboxEmail = stmt(`INSERT INTO mailbox_emails (mailbox_id, company_id, email) VALUES ($1, $2, $3)
ON CONFLICT (mailbox_id) DO UPDATE SET email = EXCLUDED.email`)
	sqlMailboxByEmail = stmt(`SELECT e.company_id, e.mailbox_id FROM mailbox_emails e WHERE e.email = $1 ORDER BY e.mailbox_id LIMIT 1`)
	sqlOpenCount      = stmt(`SELECT count(*) FROM conversations c WHERE c.company_id = $1 AND c.mailbox_id = $2 AND c.open_assignee = $3`)
)

// Mailbox loads a mailbox of a company.
func (t *Tx) Mailbox(companyID, id int64) (*parley.Mailbox, error) {
	return one[parley.Mailbox](t, "mailbox", sqlMailbox, companyID, id)
}

// Mailboxes lists a company's mailboxes in id order.
func (t *Tx) Mailboxes(companyID int64) ([]parley.Mailbox, error) {
	return many[parley.Mailbox](t, sqlMailboxes, companyID)
}

// PutMailbox stores a mailbox, assigning ids to it and to new folders and
// field definitions (folder, field and option ids share one sequence).
func (t *Tx) PutMailbox(m *parley.Mailbox) error {
	if err := t.assignOrKeepID(mailboxIDs, &m.ID, m.CompanyID, func() (bool, error) { return absent(t.Mailbox(m.CompanyID, m.ID)) }); err != nil {
		return err
	}
	for i := range m.Folders {
		if err := t.assignID(seqItems, &m.Folders[i].ID); err != nil {
			return err
		}
	}
	for i := range m.Fields {
		if err := t.assignID(seqItems, &m.Fields[i].ID); err != nil {
			return err
		}
		for j := range m.Fields[i].Options {
			if err := t.assignID(seqItems, &m.Fields[i].Options[j].ID); err != nil {
				return err
			}
		}
	}
	if err := t.keyWidgets(m); err != nil {
		return err
	}
	if err := t.exec(sqlPutMailboxEmail, m.ID, m.CompanyID, keyText(parley.NormalizeEmail(m.Email))); err != nil {
		return err
	}
	return t.put(sqlPutMailbox, m, m.CompanyID, m.ID)
}

// keyWidgets keeps the widget keys of a mailbox. Like the embedded store's,
// a key outlives the widget's removal from its mailbox.
func (t *Tx) keyWidgets(m *parley.Mailbox) error {
	for _, w := range m.Widgets {
		var company, holder int64
		found, err := t.scan(sqlWidget, []any{keyText(w)}, &company, &holder)
		if err != nil {
			return err
		}
		if found && holder != m.ID {
			return fmt.Errorf("pgstore: widget %q belongs to mailbox %d", w, holder)
		}
		if err := t.exec(sqlPutWidget, keyText(w), m.CompanyID, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// MailboxByWidget finds the mailbox of a public chat widget id.
func (t *Tx) MailboxByWidget(widgetID string) (*parley.Mailbox, error) {
	var company, id int64
	found, err := t.scan(sqlWidget, []any{keyText(widgetID)}, &company, &id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("widget")
	}
	m, err := t.Mailbox(company, id)
	if parley.IsNotFound(err) {
		return nil, parley.NotFound("widget")
	}
	return m, err
}

// OpenAssigned counts the open conversations of a mailbox assigned to a
// user.
func (t *Tx) OpenAssigned(companyID, mailboxID, userID int64) int {
	return t.countOf(sqlOpenCount, companyID, mailboxID, userID)
}

// MailboxByEmail finds the mailbox with an address, in any company (the
// recipients of incoming mail); of several, the oldest.
func (t *Tx) MailboxByEmail(address string) (*parley.Mailbox, error) {
	var company, id int64
	found, err := t.scan(sqlMailboxByEmail, []any{keyText(parley.NormalizeEmail(address))}, &company, &id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("mailbox")
	}
	return t.Mailbox(company, id)
}
