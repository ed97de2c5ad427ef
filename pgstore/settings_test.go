package pgstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConnectionSettings: every connection of the pool ends a statement
// that runs too long and a session idle inside a transaction, and has the
// server probe it with TCP keepalives; a URL's own setting is kept.
func TestConnectionSettings(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	for _, c := range []struct {
		name  string
		url   string
		opts  Options
		wants map[string]string
	}{
		{"defaults", url, Options{}, map[string]string{
			"statement_timeout":                   "30s",
			"idle_in_transaction_session_timeout": "5s",
			"tcp_keepalives_idle":                 "60",
			"tcp_keepalives_interval":             "10",
			"tcp_keepalives_count":                "6",
		}},
		{"option", url, Options{StatementTimeout: 5 * time.Second}, map[string]string{"statement_timeout": "5s"}},
		{"the URL's own", url + "&statement_timeout=2000", Options{StatementTimeout: 5 * time.Second}, map[string]string{"statement_timeout": "2s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(ctx, c.url, c.opts)
			require.NoError(t, err)
			defer db.Close()
			conn, err := db.pool.Acquire(ctx)
			require.NoError(t, err)
			defer conn.Release()
			for name, want := range c.wants {
				var got string
				require.NoError(t, conn.QueryRow(ctx, "SHOW "+name).Scan(&got))
				assert.Equal(t, want, got, name)
			}
		})
	}
}

// TestAdvice: the test server, set up as the docs ask, needs no advice;
// a server below the predicate locks several nodes need is told so.
func TestAdvice(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, migrated(t), Options{})
	require.NoError(t, err)
	defer db.Close()
	advice, err := db.Advice(ctx)
	require.NoError(t, err)
	assert.Empty(t, advice, "the test server runs with max_pred_locks_per_transaction=%d", MinPredicateLocks)

	// The setting needs a server restart, so the other values are
	// checked on the rule alone.
	low := `max_pred_locks_per_transaction is 64; set it to at least 256 when several nodes share the database (a node paused inside a write can otherwise make every node's writes fail with "out of shared memory")`
	for locks, want := range map[int][]string{64: {low}, 255: {strings.Replace(low, "64", "255", 1)}, 256: nil, 1024: nil} {
		assert.Equal(t, want, predicateLockAdvice(locks), locks)
	}
}
