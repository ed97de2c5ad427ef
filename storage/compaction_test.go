package storage_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// TestCompactKeepsEveryRecord: after a load whose e-mail keys arrive out
// of order and some deletes, Compact makes a smaller file, a new one
// (another inode), holding every record, index and sequence as before:
// lookups by e-mail answer, new ids and numbers continue where they were,
// and the outbox is the same.
func TestCompactKeepsEveryRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db := openFile(t, path)
	rng := rand.New(rand.NewPCG(1, 2))
	var kept []*parley.Customer
	for batch := range 10 {
		_, err := db.Update(func(tx *storage.Tx) error {
			for i := range 200 {
				c := &parley.Customer{CompanyID: 1, FirstName: fmt.Sprint("customer ", batch, i),
					Emails: []parley.Entry{{Value: fmt.Sprintf("%016x@example.com", rng.Uint64())}}}
				if err := tx.PutCustomer(c); err != nil {
					return err
				}
				if err := tx.PutConversation(&parley.Conversation{CompanyID: 1, CustomerID: c.ID, Subject: "hello"}); err != nil {
					return err
				}
				if i%4 == 0 {
					if err := tx.DeleteCustomer(c); err != nil {
						return err
					}
					continue
				}
				kept = append(kept, c)
			}
			return nil
		})
		require.NoError(t, err)
	}
	want := customersOf(t, db)
	require.Len(t, want, len(kept))
	seq, err := db.LastOutboxSeq()
	require.NoError(t, err)
	outbox, err := db.Outbox(0, 100000)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	inode, used := inodeOf(t, path), pagesInUse(t, path)

	held, err := storage.Open(path, storage.Options{})
	require.NoError(t, err)
	_, _, err = storage.Compact(path)
	assert.ErrorIs(t, err, storage.ErrLocked, "a file another holder has open is not compacted")
	require.NoError(t, held.Close())
	assert.Equal(t, inode, inodeOf(t, path))

	before, after, err := storage.Compact(path)
	require.NoError(t, err)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, info.Size(), after)
	assert.LessOrEqual(t, after, before)
	assert.Less(t, pagesInUse(t, path), used*3/4, "pages filled whole")
	assert.Equal(t, pagesInUse(t, path), after, "the file ends at its last page")
	assert.NotEqual(t, inode, inodeOf(t, path), "a new file")
	assert.NoFileExists(t, path+".compact")

	db = openFile(t, path)
	assert.Equal(t, want, customersOf(t, db))
	gotSeq, err := db.LastOutboxSeq()
	require.NoError(t, err)
	assert.Equal(t, seq, gotSeq)
	gotOutbox, err := db.Outbox(0, 100000)
	require.NoError(t, err)
	assert.Equal(t, outbox, gotOutbox)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		for _, c := range kept[:50] {
			got, err := tx.CustomerByEmail(1, c.Emails[0].Value)
			require.NoError(t, err)
			assert.Equal(t, c.ID, got.ID)
		}
		return nil
	}))
	var next parley.Conversation
	_, err = db.Update(func(tx *storage.Tx) error {
		c := &parley.Customer{CompanyID: 1}
		if err := tx.PutCustomer(c); err != nil {
			return err
		}
		assert.Equal(t, int64(2001), c.ID, "customer ids go on")
		next = parley.Conversation{CompanyID: 1, CustomerID: c.ID}
		return tx.PutConversation(&next)
	})
	require.NoError(t, err)
	assert.Equal(t, int64(2001), next.Number, "conversation numbers go on")
}

func TestCompactMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	_, _, err := storage.Compact(path)
	require.Error(t, err)
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, path+".compact")
}

func customersOf(t *testing.T, db *storage.DB) []parley.Customer {
	t.Helper()
	var out []parley.Customer
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachCustomer(func(c *parley.Customer) error { out = append(out, *c); return nil })
	}))
	return out
}

// pagesInUse is the bbolt file's high-water mark in bytes: the pages its
// meta page counts.
func pagesInUse(t *testing.T, path string) int64 {
	t.Helper()
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var size int64
	require.NoError(t, b.View(func(tx *bbolt.Tx) error { size = tx.Size(); return nil }))
	return size
}

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Sys().(*syscall.Stat_t).Ino
}
