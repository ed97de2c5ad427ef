package storage

import (
	"context"
	"fmt"

	parley "github.com/parley/parley"
)

// store is the database as the domain's seam (parley.Store): the same
// transactions as View and Update, handed out as parley.Tx.
type store struct{ db *DB }

var _ parley.Store = store{}

// Store returns the database as a parley.Store, the interface a second
// backend implements too; callers that hold it need no bbolt type.
func (db *DB) Store() parley.Store { return store{db} }

// View runs fn in a read-only transaction, unless ctx is already done.
// bbolt's reads do not wait on anything, so there is nothing to end
// sooner.
func (s store) View(ctx context.Context, fn func(parley.Tx) error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return s.db.View(func(tx *Tx) error { return fn(tx) })
}

// Update runs fn in a read-write transaction, then the before-commit step
// (parley.CommitHooks), committed when both return nil and ctx is not done
// by then (a request gone or past its deadline writes nothing), and
// returns the outbox sequence the write queued.
func (s store) Update(ctx context.Context, fn func(parley.Tx) error) (uint64, error) {
	if err := ctxErr(ctx); err != nil {
		return 0, err
	}
	return s.db.Update(func(tx *Tx) error {
		if err := s.db.CommitHooks.Write(tx, fn); err != nil {
			return err
		}
		return ctxErr(ctx)
	})
}

// ctxErr is ctx's error, if it is done, in the words of this package.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// The index outbox (outbox.go) holds the domain's entries, so the indexer
// reads and acknowledges them without a storage type.
type (
	// OutboxEntry is parley.OutboxEntry.
	OutboxEntry = parley.OutboxEntry
	// Kind names what an outbox entry asks to reindex: parley.OutboxKind.
	Kind = parley.OutboxKind
)

// Outbox entry kinds.
const (
	KindConversation = parley.OutboxConversation
	KindCustomer     = parley.OutboxCustomer
	KindChat         = parley.OutboxChat
)
