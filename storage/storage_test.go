package storage_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

func openDB(t *testing.T) *storage.DB {
	return openFile(t, filepath.Join(t.TempDir(), "parley.db"))
}

// openFile opens the database at path, closed at the test's end unless
// the test closes it first.
func openFile(t *testing.T, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(path, storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenRefusesASecondProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := storage.Open(path, storage.Options{})
	require.NoError(t, err)
	defer db.Close()
	_, err = storage.Open(path, storage.Options{})
	assert.ErrorIs(t, err, storage.ErrLocked)
}

func TestRecordsAreScopedByCompany(t *testing.T) {
	db := openDB(t)
	_, err := db.Update(func(tx *storage.Tx) error {
		for _, name := range []string{"Acme", "Globex"} {
			require.NoError(t, tx.PutCompany(&parley.Company{Name: name}))
		}
		require.NoError(t, tx.PutCustomer(&parley.Customer{CompanyID: 1, Emails: []parley.Entry{{Value: "a@example.com"}}}))
		return tx.PutMailbox(&parley.Mailbox{CompanyID: 1, Name: "Support"})
	})
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		_, err := tx.Customer(1, 1)
		assert.NoError(t, err)
		_, err = tx.Customer(2, 1)
		assert.True(t, parley.IsNotFound(err), "another company's customer is not found")
		_, err = tx.CustomerByEmail(2, "a@example.com")
		assert.True(t, parley.IsNotFound(err))
		_, err = tx.Mailbox(2, 1)
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}

func TestCustomerEmailsAreUniquePerCompany(t *testing.T) {
	db := openDB(t)
	put := func(company int64, email string) error {
		_, err := db.Update(func(tx *storage.Tx) error {
			return tx.PutCustomer(&parley.Customer{CompanyID: company, Emails: []parley.Entry{{Value: email}}})
		})
		return err
	}
	require.NoError(t, put(1, "a@example.com"))
	assert.Equal(t, parley.KindConflict, parley.KindOf(put(1, "A@Example.com")))
	assert.NoError(t, put(2, "a@example.com"), "another company may hold the same address")
}

func TestConversationNumbersArePerCompany(t *testing.T) {
	db := openDB(t)
	var numbers []int64
	_, err := db.Update(func(tx *storage.Tx) error {
		for _, company := range []int64{1, 1, 2, 1} {
			c := &parley.Conversation{CompanyID: company, CustomerID: 1}
			if err := tx.PutConversation(c); err != nil {
				return err
			}
			numbers = append(numbers, c.Number)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2, 1, 3}, numbers)
}

func TestWritesQueueOutboxEntries(t *testing.T) {
	db := openDB(t)
	seq, err := db.Update(func(tx *storage.Tx) error {
		return tx.PutConversation(&parley.Conversation{CompanyID: 1, CustomerID: 7})
	})
	require.NoError(t, err)
	entries, err := db.Outbox(0, 10)
	require.NoError(t, err)
	assert.Equal(t, []storage.OutboxEntry{
		{Seq: 1, Kind: storage.KindCustomer, Company: 1, ID: 7},
		{Seq: 2, Kind: storage.KindConversation, Company: 1, ID: 1},
	}, entries)
	assert.Equal(t, uint64(2), seq)
	require.NoError(t, db.AckOutbox(entries))
	depth, err := db.OutboxDepth()
	require.NoError(t, err)
	assert.Equal(t, 0, depth)
}

// TestCommitsReportTheirOutboxRanges: the commit hook hears the first and
// last outbox sequence of each write, concurrent writers sharing a commit
// included, and a read sees the last sequence committed before it.
func TestCommitsReportTheirOutboxRanges(t *testing.T) {
	db := openDB(t)
	var mu sync.Mutex
	ranges := map[uint64]uint64{} // last -> first
	db.OnCommit(func(first, last uint64) {
		mu.Lock()
		defer mu.Unlock()
		ranges[last] = first
	})
	var wg sync.WaitGroup
	lasts := make([]uint64, 8)
	for i := range lasts {
		wg.Go(func() {
			seq, err := db.Update(func(tx *storage.Tx) error {
				return tx.PutConversation(&parley.Conversation{CompanyID: 1, CustomerID: int64(i + 1)}) // two entries
			})
			assert.NoError(t, err)
			lasts[i] = seq
		})
	}
	wg.Wait()
	entries, err := db.Outbox(0, 100)
	require.NoError(t, err)
	require.Len(t, entries, 16)
	for i, last := range lasts {
		first := ranges[last]
		require.Equal(t, last-1, first, "write %d", i)
		assert.Equal(t, storage.KindCustomer, entries[first-1].Kind)
		assert.Equal(t, int64(i+1), entries[first-1].ID, "the write's own customer")
		assert.Equal(t, storage.KindConversation, entries[last-1].Kind)
	}
	require.NoError(t, db.ViewAt(context.Background(), func(_ parley.Tx, seq uint64) error {
		assert.Equal(t, uint64(16), seq)
		return nil
	}))
}

func TestKeptIDsAndNumbersAreNeverReused(t *testing.T) {
	db := openDB(t)
	var ids, numbers []int64
	_, err := db.Update(func(tx *storage.Tx) error {
		for _, c := range []*parley.Conversation{
			{CompanyID: 1, CustomerID: 1},                      // 1, n1
			{ID: 500, Number: 40, CompanyID: 1, CustomerID: 1}, // an import keeps both
			{CompanyID: 1, CustomerID: 1},                      // after them: 501, n41
		} {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
			ids, numbers = append(ids, c.ID), append(numbers, c.Number)
		}
		assert.True(t, tx.ConversationIDTaken(500))
		assert.True(t, tx.ConversationNumberTaken(1, 40))
		assert.False(t, tx.ConversationNumberTaken(2, 40), "numbers are per company")
		cu := &parley.Customer{ID: 900, CompanyID: 1}
		if err := tx.PutCustomer(cu); err != nil {
			return err
		}
		next := &parley.Customer{CompanyID: 1}
		if err := tx.PutCustomer(next); err != nil {
			return err
		}
		assert.Equal(t, int64(901), next.ID)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 500, 501}, ids)
	assert.Equal(t, []int64{1, 40, 41}, numbers)
}
