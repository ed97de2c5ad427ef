package storage

import (
	"bytes"

	parley "github.com/parley/parley"
)

// bucketSavedReplies keys saved replies by (mailbox id, reply id), so a
// mailbox's replies are one prefix.
var bucketSavedReplies = newBucket("saved_replies")

var _ parley.SavedReplyStore = (*Tx)(nil)

// SavedReply loads a saved reply of a company's mailbox.
func (t *Tx) SavedReply(companyID, mailboxID, id int64) (*parley.SavedReply, error) {
	r := new(parley.SavedReply)
	found, err := t.get(bucketSavedReplies, key2(mailboxID, id), r)
	if err != nil {
		return nil, err
	}
	if !found || r.CompanyID != companyID {
		return nil, parley.NotFound("saved reply")
	}
	return r, nil
}

// SavedReplies lists a company mailbox's saved replies in id order.
func (t *Tx) SavedReplies(companyID, mailboxID int64) ([]parley.SavedReply, error) {
	var out []parley.SavedReply
	prefix := key(mailboxID)
	c := t.tx.Bucket(bucketSavedReplies).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		r := new(parley.SavedReply)
		if _, err := t.get(bucketSavedReplies, k, r); err != nil {
			return nil, err
		}
		if r.CompanyID == companyID {
			out = append(out, *r)
		}
	}
	return out, nil
}

// PutSavedReply stores a saved reply, assigning an id when ID is 0.
func (t *Tx) PutSavedReply(r *parley.SavedReply) error {
	if r.ID == 0 {
		id, err := t.nextID(bucketSavedReplies)
		if err != nil {
			return err
		}
		r.ID = id
	}
	return t.put(bucketSavedReplies, key2(r.MailboxID, r.ID), r)
}

// DeleteSavedReply removes a saved reply.
func (t *Tx) DeleteSavedReply(r *parley.SavedReply) error {
	return t.tx.Bucket(bucketSavedReplies).Delete(key2(r.MailboxID, r.ID))
}
