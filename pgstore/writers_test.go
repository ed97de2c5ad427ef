package pgstore

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

// TestConcurrentWritersAllCommit: writers that collide (one company's
// conversation counter) all commit, through retries, with numbers that
// are each used once.
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
	for n := int64(1); n <= writers*writes; n++ {
		assert.True(t, numbers[n], "number %d is used", n)
	}
}
