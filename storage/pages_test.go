package storage

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// TestAppendedRecordsFillTheirPages loads conversations with their threads
// as a bulk import does, a few per commit, and checks that the buckets
// whose keys grow with time (appendMostly) leave their leaf pages nearly
// full: the bytes of a loaded store are mostly these leaves.
func TestAppendedRecordsFillTheirPages(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "parley.db"), Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for batch := range 300 {
		_, err := db.Update(func(tx *Tx) error {
			for i := range 10 {
				n := batch*10 + i
				c := &parley.Conversation{CompanyID: 1, CustomerID: int64(n%37 + 1), MailboxID: 1, Subject: fmt.Sprintf("order %d", n), CreatedAt: at}
				if err := tx.PutConversation(c); err != nil {
					return err
				}
				for j := range 3 {
					body := strings.Repeat(fmt.Sprintf("reply %d of conversation %d about order %d. ", j, n, n*7919), 8)
					if err := tx.PutThread(&parley.Thread{ConversationID: c.ID, CompanyID: 1, Type: parley.ThreadCustomer, Body: body, CreatedAt: at}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.NoError(t, db.bolt.View(func(tx *bbolt.Tx) error {
		for _, bucket := range [][]byte{bucketConversations, bucketThreads} {
			s := tx.Bucket(bucket).Stats()
			used := float64(s.LeafInuse) / float64(s.LeafAlloc)
			assert.Greater(t, used, 0.92, "%s: %d leaf pages, %.0f%% used", bucket, s.LeafPageN, 100*used)
		}
		return nil
	}))
}
