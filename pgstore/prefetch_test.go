package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/pgtest"
)

// TestPrefetchAnswersAsTheReads: the documents the indexer builds after
// the read-ahead are those it builds reading record by record, and it
// then reads none of the records read ahead (conversations, threads,
// customers and their conversations' mailboxes) itself;
// a touched record that is gone is read ahead as gone.
func TestPrefetchAnswersAsTheReads(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	var touched []parley.OutboxEntry
	_, err = db.Update(ctx, func(tx *Tx) error {
		for company := int64(1); company <= 2; company++ {
			for k := range 2 {
				cu := &parley.Customer{CompanyID: company, FirstName: "Cu", LastName: string(rune('A' + k)), CreatedAt: at, UpdatedAt: at,
					Emails: []parley.Entry{{Value: string(rune('a'+k)) + "@example.test", Type: "work"}}}
				if err := tx.PutCustomer(cu); err != nil {
					return err
				}
				touched = append(touched, parley.OutboxEntry{Kind: parley.OutboxCustomer, Company: company, ID: cu.ID})
				for box := int64(1); box <= 2; box++ {
					c := &parley.Conversation{CompanyID: company, CustomerID: cu.ID, MailboxID: box, Subject: "Order", State: parley.StatePublished,
						Status: parley.StatusActive, CreatedAt: at}
					if err := tx.PutConversation(c); err != nil {
						return err
					}
					touched = append(touched, parley.OutboxEntry{Kind: parley.OutboxConversation, Company: company, ID: c.ID})
					for i := range int(box) + 1 {
						th := &parley.Thread{CompanyID: company, ConversationID: c.ID, Type: parley.ThreadCustomer, Body: "where is my order",
							CreatedAt: at.Add(time.Duration(i) * time.Minute), CustomerID: cu.ID, CreatedBy: parley.Party{Type: parley.PartyCustomer, ID: cu.ID}}
						if err := tx.PutThread(th); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	withGone := append(touched[:len(touched):len(touched)], parley.OutboxEntry{Kind: parley.OutboxConversation, Company: 1, ID: 999_999},
		parley.OutboxEntry{Kind: parley.OutboxCustomer, Company: 1, ID: 999_998})

	build := func(db *DB, touched []parley.OutboxEntry, prefetch bool) []index.Batch {
		var batches []index.Batch
		_, err := db.Update(ctx, func(tx *Tx) error {
			if prefetch {
				tx.prefetch(touched)
			}
			var err error
			batches, err = indexer.Batches(tx, touched)
			return err
		})
		require.NoError(t, err)
		return batches
	}
	want := build(db, withGone, false)
	assert.NotEmpty(t, want)
	assert.Equal(t, want, build(db, withGone, true))

	rec := &pgtest.Recorder{}
	ahead, err := Open(ctx, url, Options{Tracer: rec})
	require.NoError(t, err)
	defer ahead.Close()
	build(ahead, touched, true)
	for _, sql := range []string{sqlConversation, sqlThreads, sqlCustomer, sqlCustomerConversationMailboxes} {
		assert.NotContains(t, rec.Statements(), sql, "read ahead")
	}
}
