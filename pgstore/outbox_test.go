package pgstore

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestConcurrentWritersAndTheOutbox: writers that collide (one company's
// conversation counter) all commit, through retries, with numbers that
// are each used once; and a reader that follows the outbox as the indexer
// does (read after the last sequence seen; when nothing is new, take the
// last sequence for read) misses no entry, which holds only if entries
// become visible in sequence order.
func TestConcurrentWritersAndTheOutbox(t *testing.T) {
	db, _ := open(t)
	const writers, writes = 6, 8
	var wg sync.WaitGroup
	results := make(chan *parley.Conversation, writers*writes)
	done := make(chan struct{})
	seen := map[uint64]bool{}
	var reader sync.WaitGroup
	reader.Add(1)
	go func() {
		defer reader.Done()
		var applied uint64
		finishing := false
		for {
			last, err := db.LastOutboxSeq()
			if !assert.NoError(t, err) {
				return
			}
			entries, err := db.Outbox(applied, 7)
			if !assert.NoError(t, err) {
				return
			}
			for _, e := range entries {
				seen[e.Seq] = true
				applied = e.Seq
			}
			if len(entries) == 0 {
				applied = last
				if finishing {
					return
				}
				select {
				case <-done:
					// The last writes may have committed after this read:
					// one more pass, and stop when it finds nothing.
					finishing = true
				default:
				}
			}
		}
	}()
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
	close(done)
	reader.Wait()

	numbers := map[int64]bool{}
	for c := range results {
		assert.False(t, numbers[c.Number], "number %d used twice", c.Number)
		numbers[c.Number] = true
	}
	assert.Len(t, numbers, writers*writes)
	for n := int64(1); n <= writers*writes; n++ {
		assert.True(t, numbers[n], "number %d is used", n)
	}

	all, err := db.Outbox(0, 10*writers*writes)
	require.NoError(t, err)
	assert.Len(t, all, 2*writers*writes, "a customer and a conversation entry per write")
	for _, e := range all {
		assert.True(t, seen[e.Seq], "the reader saw entry %d", e.Seq)
	}
}
