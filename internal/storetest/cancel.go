package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// testCancelled: a transaction whose context is done answers the
// context's error, and a write commits nothing, neither its records nor
// their outbox entries, whether its context ended before it started or
// while it ran (a request gone or past its deadline writes nothing).
func testCancelled(t *testing.T, b Backend) {
	put(t, b, func(tx parley.Tx) error { return tx.PutCompany(&parley.Company{Name: "Acme", CreatedAt: clock}) })
	drain(t, b)
	for _, tc := range []struct {
		name string
		// during ends ctx inside the write rather than before it.
		during bool
		// end makes the context and the function that ends it; want is
		// the error the transaction then answers.
		end  func() (ctx context.Context, end func())
		want error
	}{
		{name: "cancelled before", end: cancellable, want: context.Canceled},
		{name: "cancelled during", during: true, end: cancellable, want: context.Canceled},
		{name: "past its deadline before", end: expired, want: context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, end := tc.end()
			if !tc.during {
				end()
			}
			_, err := b.Store().Update(ctx, func(tx parley.Tx) error {
				if err := tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Dropped", CreatedAt: clock}); err != nil {
					return err
				}
				if tc.during {
					end()
				}
				return nil
			})
			require.ErrorIs(t, err, tc.want)
			var customers []string
			view(t, b, func(tx parley.Tx) error {
				return tx.EachCustomer(func(c *parley.Customer) error {
					customers = append(customers, c.FirstName)
					return nil
				})
			})
			assert.Empty(t, customers, "nothing committed")
			assert.Empty(t, drain(t, b), "nor outbox entries")

			err = b.Store().View(ctx, func(tx parley.Tx) error { return nil })
			require.ErrorIs(t, err, tc.want, "a read does not start either")
		})
	}
}

func cancellable() (context.Context, func()) { return context.WithCancel(context.Background()) }

// expired is a context whose deadline has passed.
func expired() (context.Context, func()) { return context.WithDeadline(context.Background(), clock) }
