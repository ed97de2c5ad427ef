package pgstore

import parley "github.com/parley/parley"

var (
	sqlSavedReply    = stmt(`SELECT r.body FROM saved_replies r WHERE r.company_id = $1 AND r.mailbox_id = $2 AND r.id = $3`)
	sqlSavedReplies  = stmt(`SELECT r.body FROM saved_replies r WHERE r.company_id = $1 AND r.mailbox_id = $2 ORDER BY r.id`)
	sqlPutSavedReply = stmt(`INSERT INTO saved_replies (company_id, mailbox_id, id, body) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, mailbox_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteSavedReply = stmt(`DELETE FROM saved_replies r WHERE r.company_id = $1 AND r.mailbox_id = $2 AND r.id = $3`)
)

var _ parley.SavedReplyStore = (*Tx)(nil)

// SavedReply loads a saved reply of a company's mailbox.
func (t *Tx) SavedReply(companyID, mailboxID, id int64) (*parley.SavedReply, error) {
	return one[parley.SavedReply](t, "saved reply", sqlSavedReply, companyID, mailboxID, id)
}

// SavedReplies lists a company mailbox's saved replies in id order.
func (t *Tx) SavedReplies(companyID, mailboxID int64) ([]parley.SavedReply, error) {
	return many[parley.SavedReply](t, sqlSavedReplies, companyID, mailboxID)
}

// PutSavedReply stores a saved reply, assigning an id when ID is 0.
func (t *Tx) PutSavedReply(r *parley.SavedReply) error {
	if err := t.assignID(seqSavedReplies, &r.ID); err != nil {
		return err
	}
	return t.put(sqlPutSavedReply, r, r.CompanyID, r.MailboxID, r.ID)
}

// DeleteSavedReply removes a saved reply.
func (t *Tx) DeleteSavedReply(r *parley.SavedReply) error {
	return t.exec(sqlDeleteSavedReply, r.CompanyID, r.MailboxID, r.ID)
}
