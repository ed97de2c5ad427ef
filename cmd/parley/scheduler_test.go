package main

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// manualClock is a clock the test moves.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }

// countWrites counts the write transactions of db from now on.
func countWrites(db *storage.DB) *atomic.Int64 {
	var n atomic.Int64
	db.OnTx(func(write bool, _ time.Duration) {
		if write {
			n.Add(1)
		}
	})
	return &n
}

// TestSchedulerIdleWritesNothing: with nothing due, wake cycles open no
// write transaction and ask to sleep until signalled; a wake-up stored
// later signals the scheduler, which sleeps until it is due, then wakes it
// in one write.
func TestSchedulerIdleWritesNothing(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	clock := &manualClock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	s := &scheduler{db: db, clock: clock, workflows: &workflow.Engine{Clock: clock}, log: quietLog()}
	writes := countWrites(db)

	for range 1000 {
		wait, err := s.step()
		require.NoError(t, err)
		require.Equal(t, time.Duration(-1), wait, "nothing pending: sleep until signalled")
		clock.now = clock.now.Add(time.Second)
	}
	assert.Zero(t, writes.Load(), "an idle scheduler writes nothing")
	select {
	case <-db.LaterChanged():
		t.Fatal("no wake-up was stored, so no signal")
	default:
	}

	at := clock.now.Add(90 * time.Second)
	_, err = db.Update(func(tx *storage.Tx) error {
		return tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 7, ConversationID: 7, At: at})
	})
	require.NoError(t, err)
	select {
	case <-db.LaterChanged():
	default:
		t.Fatal("storing a wake-up signals the scheduler")
	}
	writes.Store(0)
	wait, err := s.step()
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, wait, "sleep exactly until it is due")
	assert.Zero(t, writes.Load(), "not due yet: no write")

	clock.now = at
	wait, err = s.step()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), wait, "woken; nothing else pending")
	assert.Equal(t, int64(1), writes.Load(), "one write wakes the due item")
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		_, pending := tx.NextLater()
		assert.False(t, pending, "the item fired and is gone")
		return nil
	}))
}
