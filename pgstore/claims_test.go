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

// TestAClaimHoldsUntilItsLeaseEnds: an e-mail or a webhook delivery
// claimed by a node that then stops is not listed while the lease runs;
// once it is over the queue lists it, due at the lease's end, and another
// node's claim takes it.
func TestAClaimHoldsUntilItsLeaseEnds(t *testing.T) {
	lease := at.Add(2 * time.Minute)
	for _, c := range []struct {
		name  string
		put   func(tx *Tx) error
		due   func(tx *Tx, now time.Time) ([]time.Time, error)
		claim func(db *DB, tx *Tx, now, until time.Time) (bool, error)
	}{
		{"e-mail", func(tx *Tx) error {
			return tx.PutMail(&parley.Mail{CompanyID: 1, ConversationID: 1, ThreadID: 1, Kind: parley.MailReply, Status: parley.MailQueued, NextAttemptAt: at})
		}, func(tx *Tx, now time.Time) ([]time.Time, error) {
			due, err := tx.DueMail(now, 10)
			var times []time.Time
			for _, m := range due {
				times = append(times, m.NextAttemptAt)
			}
			return times, err
		}, func(db *DB, tx *Tx, now, until time.Time) (bool, error) {
			due, err := tx.DueMail(now, 10)
			if err != nil || len(due) != 1 {
				return false, err
			}
			return db.ClaimMail(&due[0], until)
		}},
		{"delivery", func(tx *Tx) error {
			return tx.PutDelivery(&parley.Delivery{CompanyID: 1, WebhookID: 1, OrderKey: "conversation:1", Status: parley.DeliveryPending, NextAttemptAt: at})
		}, func(tx *Tx, now time.Time) ([]time.Time, error) {
			due, err := tx.DueDeliveries(now, 10)
			var times []time.Time
			for _, d := range due {
				times = append(times, d.NextAttemptAt)
			}
			return times, err
		}, func(db *DB, tx *Tx, now, until time.Time) (bool, error) {
			due, err := tx.DueDeliveries(now, 10)
			if err != nil || len(due) != 1 {
				return false, err
			}
			return db.ClaimDelivery(&due[0], until)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, url := open(t)
			b, err := Open(context.Background(), url, Options{})
			require.NoError(t, err)
			defer b.Close()
			ctx := context.Background()
			_, err = a.Update(ctx, c.put)
			require.NoError(t, err)
			claim := func(db *DB, now, until time.Time) (got bool) {
				t.Helper()
				require.NoError(t, db.View(ctx, func(tx *Tx) (err error) {
					got, err = c.claim(db, tx, now, until)
					return err
				}))
				return got
			}
			due := func(now time.Time) (times []time.Time) {
				t.Helper()
				require.NoError(t, b.View(ctx, func(tx *Tx) (err error) {
					times, err = c.due(tx, now)
					return err
				}))
				return times
			}
			require.True(t, claim(a, at, lease), "A claims it")
			assert.Empty(t, due(lease.Add(-time.Second)), "not listed while A's lease runs")
			assert.Equal(t, []time.Time{lease}, due(lease.Add(time.Second)), "listed at the lease's end once it is over")
			assert.True(t, claim(b, lease.Add(time.Second), lease.Add(time.Hour)), "B claims it then")
		})
	}
}
