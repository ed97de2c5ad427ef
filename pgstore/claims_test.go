package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestTwoNodesWakeEachItemOnce: two stores on one database, as two nodes
// hold them, list the same due snoozes and wake each in a write of its
// own, at once, round after round; every wake-up fires on one of them,
// none on both.
func TestTwoNodesWakeEachItemOnce(t *testing.T) {
	a, url := open(t)
	b, err := Open(context.Background(), url, Options{})
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	const items = 24
	_, err = a.Update(ctx, func(tx *Tx) error {
		if err := tx.PutMailbox(&parley.Mailbox{CompanyID: 1, Name: "Desk", Email: "desk@example.com"}); err != nil {
			return err
		}
		for range items {
			c := &parley.Conversation{CompanyID: 1, CustomerID: 1, MailboxID: 1, State: parley.StatePublished, Status: parley.StatusActive}
			if err := tx.PutConversation(c); err != nil {
				return err
			}
			if err := tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: c.ID, ConversationID: c.ID, At: at}); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)

	woken := make([]int, 2)
	var wg sync.WaitGroup
	for node, db := range []*DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				var due []parley.LaterItem
				if !assert.NoError(t, db.View(ctx, func(tx *Tx) (err error) {
					due, err = tx.DueLater(at.Add(time.Minute))
					return err
				})) {
					return
				}
				for _, it := range due {
					var fired bool
					_, err := db.Update(ctx, func(tx *Tx) (err error) {
						fired, err = parley.WakeItem(tx, it, at.Add(time.Minute), noWorkflowWakeUps)
						return err
					})
					if !assert.NoError(t, err) {
						return
					}
					if fired {
						woken[node]++
					}
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, items, woken[0]+woken[1], "each wake-up fired once (node A %d, node B %d)", woken[0], woken[1])
	require.NoError(t, a.View(ctx, func(tx *Tx) error {
		n, err := tx.CountLater(1)
		assert.Zero(t, n, "none left")
		return err
	}))
}

// noWorkflowWakeUps is the waker of tests that store only snoozes.
func noWorkflowWakeUps(parley.Tx, parley.LaterItem, time.Time) error {
	return errors.New("a workflow wake-up where only snoozes were stored")
}
