package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestAnnouncementsFollowTheCommit: a write's NOTIFY runs after its
// commit, outside any transaction, so the write's commit never takes
// PostgreSQL's NOTIFY queue lock; every listening node still hears it.
func TestAnnouncementsFollowTheCommit(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	notifies := &notifyTracer{}
	db, err := Open(ctx, url, Options{Tracer: notifies})
	require.NoError(t, err)
	defer db.Close()
	listener := pgtest.Dial(t, url)
	_, err = listener.Exec(ctx, sqlListen)
	require.NoError(t, err)

	_, err = db.Update(ctx, func(tx *Tx) error {
		return tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 7, ConversationID: 7, At: at})
	})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, notifies.inTransaction(), "one NOTIFY, outside the write's transaction")
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := listener.WaitForNotification(wait)
	require.NoError(t, err)
	assert.Equal(t, "later", n.Payload)
}

// notifyTracer records, for each NOTIFY a store runs, whether its
// connection was inside a transaction.
type notifyTracer struct {
	mu   sync.Mutex
	inTx []bool
}

func (n *notifyTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if data.SQL == sqlNotify {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.inTx = append(n.inTx, conn.PgConn().TxStatus() != 'I')
	}
	return ctx
}

func (n *notifyTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (n *notifyTracer) inTransaction() []bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]bool(nil), n.inTx...)
}
