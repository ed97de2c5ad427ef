package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestFanOutSkipsACompanyAnotherNodeHolds: while another node's fan-out
// holds company 1's pending events (a transaction left open, as by a node
// paused mid-fan-out), this node fans out company 2's at once, without
// waiting; company 1's come once the other ends, each event once, each
// company's in the order recorded.
func TestFanOutSkipsACompanyAnotherNodeHolds(t *testing.T) {
	ctx := context.Background()
	db, url := open(t)
	recorded := []parley.Event{
		{Kind: "convo.created", CompanyID: 1, ResourceID: "10", At: at},
		{Kind: "convo.created", CompanyID: 2, ResourceID: "20", At: at},
		{Kind: "convo.assigned", CompanyID: 1, ResourceID: "10", At: at},
		{Kind: "convo.assigned", CompanyID: 2, ResourceID: "20", At: at},
	}
	_, err := db.Update(ctx, func(tx *Tx) error {
		for _, e := range recorded {
			if err := tx.PutEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)

	other := pgtest.Dial(t, url)
	held, err := other.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = held.Rollback(ctx) }()
	_, err = held.Exec(ctx, `SELECT seq FROM events WHERE company_id = 1 ORDER BY seq FOR UPDATE`)
	require.NoError(t, err)

	fanOut := func() []parley.Event {
		var out []parley.Event
		_, err := db.Update(ctx, func(tx *Tx) error {
			out = nil
			events, err := tx.PendingEvents(10)
			for _, e := range events {
				out = append(out, e.Event)
				if err == nil {
					err = tx.DeleteEvent(e.CompanyID, e.Seq)
				}
			}
			return err
		})
		assert.NoError(t, err) // not require: it runs in a goroutine too
		return out
	}
	watch := pgtest.Dial(t, url)
	done := make(chan []parley.Event)
	go func() { done <- fanOut() }()
	var first []parley.Event
	for first == nil {
		select {
		case first = <-done:
		default:
			if waiting(t, watch) {
				t.Error("the fan-out waited for the lock of another company's events")
				_ = held.Rollback(ctx)
				first = <-done
			}
		}
	}
	assert.Equal(t, []parley.Event{recorded[1], recorded[3]}, first, "company 2's, at once")
	require.NoError(t, held.Rollback(ctx))
	assert.Equal(t, []parley.Event{recorded[0], recorded[2]}, fanOut(), "company 1's, once released")
	assert.Empty(t, fanOut(), "none twice")
}

// waiting reports whether a statement on conn's database waits for a
// lock; it pauses a little first, as a caller's loop polls.
func waiting(t *testing.T, conn *pgx.Conn) bool {
	t.Helper()
	time.Sleep(5 * time.Millisecond)
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n))
	return n > 0
}
