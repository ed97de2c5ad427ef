package storage

import (
	"bytes"

	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// bucketOpenByAssignee keys mailbox id, user id and conversation id for
// every open (published, active or pending) conversation assigned to a
// user: routing counts a user's load by prefix in the creating
// transaction, without the index. PutConversation keeps it.
var bucketOpenByAssignee = newBucket("conversations_open_by_assignee")

// openKey is a conversation's key in bucketOpenByAssignee, or nil when
// it is not open and assigned to a user.
func openKey(c *parley.Conversation) []byte {
	if c.State != parley.StatePublished || (c.Status != parley.StatusActive && c.Status != parley.StatusPending) ||
		c.Assignee == nil || c.Assignee.Type != parley.PartyUser {
		return nil
	}
	return append(key2(c.MailboxID, c.Assignee.ID), key(c.ID)...)
}

// keyOpen moves a conversation's open key from its old form to its new
// one (old is nil for a new conversation).
func (t *Tx) keyOpen(old, c *parley.Conversation) error {
	b := t.tx.Bucket(bucketOpenByAssignee)
	if old != nil {
		if k := openKey(old); k != nil {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
	}
	if k := openKey(c); k != nil {
		return b.Put(k, nil)
	}
	return nil
}

// OpenAssigned counts the open conversations of a mailbox assigned to a
// user.
func (t *Tx) OpenAssigned(_, mailboxID, userID int64) int {
	n := 0
	prefix := key2(mailboxID, userID)
	c := t.tx.Bucket(bucketOpenByAssignee).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}

// fillOpenByAssignee builds bucketOpenByAssignee from the conversations of
// a database made before it existed.
func fillOpenByAssignee(btx *bbolt.Tx) error {
	t := &Tx{tx: btx, writable: true}
	return t.EachConversation(func(c *parley.Conversation) error { return t.keyOpen(nil, c) })
}
