package pgstore

import (
	"context"
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
