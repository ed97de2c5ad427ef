package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestCancelWhileWaitingOnALock: a transaction whose context ends while
// its statement waits for a lock another transaction holds returns at
// once with the context's error, and a write's earlier statements do not
// commit.
func TestCancelWhileWaitingOnALock(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, store parley.Store) error
	}{
		{"view", func(ctx context.Context, store parley.Store) error {
			return store.View(ctx, func(tx parley.Tx) error {
				_, err := tx.Tags(1)
				return err
			})
		}},
		{"update", func(ctx context.Context, store parley.Store) error {
			_, err := store.Update(ctx, func(tx parley.Tx) error {
				if err := tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Dropped"}); err != nil {
					return err
				}
				_, err := tx.Tags(1)
				return err
			})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, url := open(t)
			store := db.Store()
			_, err := store.Update(context.Background(), func(tx parley.Tx) error {
				return tx.PutCompany(&parley.Company{Name: "Acme"})
			})
			require.NoError(t, err)

			release := pgtest.LockTable(t, url, "tags")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- tc.run(ctx, store) }()
			pgtest.AwaitLockWait(t, url)
			cancel()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				release()
				t.Fatalf("still waiting on the lock after its context ended; then: %v", <-done)
			}
			release()
			require.ErrorIs(t, err, context.Canceled)

			var customers []string
			require.NoError(t, store.View(context.Background(), func(tx parley.Tx) error {
				return tx.EachCustomer(func(c *parley.Customer) error {
					customers = append(customers, c.FirstName)
					return nil
				})
			}))
			assert.Empty(t, customers, "nothing committed")
		})
	}
}
