package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Search rows in the record's own transaction. The search tables (package
// pgindex) live in the store's database, so a write need not queue its
// index work for a process to apply later: before it commits, the
// indexer set by SetIndexer builds the documents of the records the write
// touched, reading through the write's own parley.Tx (so it sees what the
// write changed), and writes their rows on the same PostgreSQL
// transaction. The rows commit with the records or not at all; a read on
// any node that sees the write sees its rows; a write waits for no other
// node, and no node keeps a position in a queue.
//
// Without an indexer (tests of the store alone), the entries go to the
// outbox table instead, in sequence order (see outbox.go).

// Indexer writes, on conn, the search rows of the records touched names;
// tx is the same transaction as the domain sees it, to build documents
// with.
type Indexer func(ctx context.Context, tx *Tx, conn pgx.Tx, touched []parley.OutboxEntry) error

// SetIndexer sets the function every write's touched records go to
// before it commits. Set it before serving.
func (db *DB) SetIndexer(fn Indexer) { db.indexer = fn }

// index hands the records the write touched to the indexer, or queues
// them in the outbox without one.
func (t *Tx) index(db *DB) error {
	if len(t.outbox) == 0 {
		return nil
	}
	if db.indexer == nil {
		return t.flushOutbox()
	}
	if t.failed != nil {
		return t.failed
	}
	return causeOf(t, db.indexer(t.ctx, t, t.tx, t.outbox))
}

// Reindex writes afresh the search rows of the records entries name, in
// one write that changes no record: a rebuild of the search tables calls
// it batch by batch. A write of the same records committing meanwhile
// conflicts with it (SERIALIZABLE), and one of the two runs again, so the
// rows left are those of the records as last committed.
func (db *DB) Reindex(ctx context.Context, entries []parley.OutboxEntry) error {
	_, err := db.Update(ctx, func(t *Tx) error {
		t.outbox = append(t.outbox, entries...)
		return nil
	})
	return err
}
