package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parley/parley/internal/pgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRateWindowsShareOneBudget: two stores on one database, as two nodes
// hold them, spend from one budget per company and window: together they
// take exactly the limit, a refused call spends nothing, a refund gives
// back, a new window starts afresh, and companies are apart.
func TestRateWindowsShareOneBudget(t *testing.T) {
	a, url := open(t)
	b, err := Open(context.Background(), url, Options{})
	require.NoError(t, err)
	defer b.Close()
	window := at.Truncate(time.Minute)
	const limit = 50
	taken := make([]int, 2)
	var wg sync.WaitGroup
	for node, db := range []*DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				ok, _, err := db.Take(7, "company", window, limit, 1)
				if !assert.NoError(t, err) {
					return
				}
				if ok {
					taken[node]++
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, limit, taken[0]+taken[1], "80 calls on two nodes, 50 allowed in all")

	for _, c := range []struct {
		name    string
		db      *DB
		company int64
		window  time.Time
		cost    int
		taken   bool
		used    int
	}{
		{"spent: refused, nothing spent", b, 7, window, 1, false, limit},
		{"another company has its own budget", a, 8, window, 2, true, 2},
		{"a cost above the limit is refused", a, 9, window, limit + 1, false, 0},
		{"a new window starts afresh", b, 7, window.Add(time.Minute), 2, true, 2},
		{"a node behind counts in the newer window", a, 7, window, 1, true, 3},
	} {
		ok, used, err := c.db.Take(c.company, "company", c.window, limit, c.cost)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.taken, ok, c.name)
		assert.Equal(t, c.used, used, c.name)
	}
	require.NoError(t, a.Refund(7, "company", window.Add(time.Minute), 2))
	_, used, err := b.Take(7, "company", window.Add(time.Minute), limit, 1)
	require.NoError(t, err)
	assert.Equal(t, 2, used, "a refund on one node gives back on the other")
}

// TestRateWindowsAreUnlogged: the windows every request writes stay out of
// the write-ahead log, so that a request's commit does not wait for it.
func TestRateWindowsAreUnlogged(t *testing.T) {
	ctx := context.Background()
	_, url := open(t)
	var persistence string
	require.NoError(t, pgtest.Dial(t, url).QueryRow(ctx, `SELECT relpersistence FROM pg_class WHERE oid = 'rate_windows'::regclass`).Scan(&persistence))
	assert.Equal(t, "u", persistence)
}
