package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestConcurrentWritersAllCommit: writers of one company's conversations
// all commit, through retries when they collide, with numbers that are
// each used once.
func TestConcurrentWritersAllCommit(t *testing.T) {
	db, _ := open(t)
	const writers, writes = 6, 8
	var wg sync.WaitGroup
	results := make(chan *parley.Conversation, writers*writes)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writes {
				c := &parley.Conversation{CompanyID: 1, CustomerID: int64(w + 1), MailboxID: 1, State: parley.StatePublished}
				_, err := db.Update(context.Background(), func(tx *Tx) error {
					c.ID, c.Number = 0, 0 // the write may run again
					return tx.PutConversation(c)
				})
				if !assert.NoError(t, err) {
					return
				}
				results <- c
			}
		}()
	}
	wg.Wait()
	close(results)

	numbers := map[int64]bool{}
	for c := range results {
		assert.False(t, numbers[c.Number], "number %d used twice", c.Number)
		numbers[c.Number] = true
	}
	assert.Len(t, numbers, writers*writes)
}

// TestAnOpenWriteHoldsNoConversationNumber: a write that created a
// conversation and has not committed (its node paused) holds nothing that
// another write creating one of the company's conversations waits for;
// each gets a number of its own.
func TestAnOpenWriteHoldsNoConversationNumber(t *testing.T) {
	db, _ := open(t)
	paused, resume := make(chan struct{}), make(chan struct{})
	first := &parley.Conversation{CompanyID: 1, CustomerID: 1, MailboxID: 1, State: parley.StatePublished}
	firstDone := make(chan error, 1)
	go func() {
		_, err := db.Update(context.Background(), func(tx *Tx) error {
			first.ID, first.Number = 0, 0
			if err := tx.PutConversation(first); err != nil {
				return err
			}
			select {
			case <-paused:
			default:
				close(paused)
			}
			<-resume
			return nil
		})
		firstDone <- err
	}()
	<-paused
	second := &parley.Conversation{CompanyID: 1, CustomerID: 2, MailboxID: 1, State: parley.StatePublished}
	secondDone := make(chan error, 1)
	go func() {
		_, err := db.Update(context.Background(), func(tx *Tx) error {
			second.ID, second.Number = 0, 0
			return tx.PutConversation(second)
		})
		secondDone <- err
	}()
	select {
	case err := <-secondDone:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second): // a lock would be held until resume
		t.Error("the second write waited for the open one")
	}
	close(resume)
	require.NoError(t, <-firstDone)
	assert.NotEqual(t, first.Number, second.Number)
}
