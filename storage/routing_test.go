package storage_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

func TestOpenAssignedFollowsEveryWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db := openFile(t, path)
	user := func(id int64) *parley.Party { return &parley.Party{ID: id, Type: parley.PartyUser} }
	convs := []*parley.Conversation{
		{CompanyID: 1, MailboxID: 1, CustomerID: 1, State: parley.StatePublished, Status: parley.StatusActive, Assignee: user(7)},
		{CompanyID: 1, MailboxID: 1, CustomerID: 1, State: parley.StatePublished, Status: parley.StatusPending, Assignee: user(7)},
		{CompanyID: 1, MailboxID: 1, CustomerID: 1, State: parley.StatePublished, Status: parley.StatusClosed, Assignee: user(7)},
		{CompanyID: 1, MailboxID: 1, CustomerID: 1, State: parley.StateDraft, Status: parley.StatusActive, Assignee: user(7)},
		{CompanyID: 1, MailboxID: 2, CustomerID: 1, State: parley.StatePublished, Status: parley.StatusActive, Assignee: user(7)},
		{CompanyID: 1, MailboxID: 1, CustomerID: 1, State: parley.StatePublished, Status: parley.StatusActive, Assignee: user(8)},
	}
	count := func(db *storage.DB, mailbox, user int64) (n int) {
		require.NoError(t, db.View(func(tx *storage.Tx) error { n = tx.OpenAssigned(1, mailbox, user); return nil }))
		return n
	}
	_, err := db.Update(func(tx *storage.Tx) error {
		for _, c := range convs {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, count(db, 1, 7), "active and pending, published, in the mailbox")
	assert.Equal(t, 1, count(db, 2, 7))
	assert.Equal(t, 1, count(db, 1, 8))

	_, err = db.Update(func(tx *storage.Tx) error {
		convs[0].Status = parley.StatusClosed // closed
		convs[1].Assignee = user(8)           // reassigned
		convs[5].MailboxID = 2                // moved
		for _, c := range []*parley.Conversation{convs[0], convs[1], convs[5]} {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 0, count(db, 1, 7))
	assert.Equal(t, 1, count(db, 1, 8))
	assert.Equal(t, 1, count(db, 2, 8))

	// A database from before routing has no such keys: Open builds them.
	require.NoError(t, db.Close())
	raw, err := bbolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte("conversations_open_by_assignee")) }))
	require.NoError(t, raw.Close())
	db = openFile(t, path)
	assert.Equal(t, []int{0, 1, 1, 1}, []int{count(db, 1, 7), count(db, 1, 8), count(db, 2, 8), count(db, 2, 7)})
}
