package pgstore

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/storetest"
)

// TestConformance holds the PostgreSQL store to the seam's conformance
// suite, which the bbolt store runs too.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		r := &recorded{}
		r.DB, _ = openIndexed(t, r.index)
		return r
	})
}

// recorded is the store with an indexer that records the records each
// write hands it. The suite's writes run one at a time and never run
// again (no conflict), so what it records is what the committed writes
// touched: a write that failed before its commit would show as one that
// touched records, and fail the suite.
type recorded struct {
	*DB
	mu      sync.Mutex
	touched []parley.OutboxEntry
}

func (r *recorded) index(_ context.Context, _ *Tx, _ pgx.Tx, touched []parley.OutboxEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.touched = append(r.touched, touched...)
	return nil
}

// Touched returns what the writes since the last call touched.
func (r *recorded) Touched() ([]parley.OutboxEntry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.touched
	r.touched = nil
	return out, nil
}
