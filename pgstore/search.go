package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Search rows in the record's own transaction. The search tables (package
// pgindex) live in the store's database, so a write does not queue its
// index work for a process to apply later: before it commits, the store's
// indexer (Options.Indexer) builds the documents of the records the write
// touched, reading through the write's own parley.Tx (so it sees what the
// write changed), and writes their rows on the same PostgreSQL
// transaction. The rows commit with the records or not at all; a read on
// any node that sees the write sees its rows; a write waits for no other
// node, and no node keeps a position in a queue. There is no index
// outbox: Update returns 0 as the sequence of every write.

// Indexer writes, on conn, the search rows of the records touched names;
// tx is the same transaction as the domain sees it, to build documents
// with.
type Indexer func(ctx context.Context, tx *Tx, conn pgx.Tx, touched []parley.OutboxEntry) error

// touch records that the write changed a record's search document.
func (t *Tx) touch(kind parley.OutboxKind, company, id int64) {
	t.touched = append(t.touched, parley.OutboxEntry{Kind: kind, Company: company, ID: id})
}

// touchRef records it for a record with a string id.
func (t *Tx) touchRef(kind parley.OutboxKind, company int64, ref string) {
	t.touched = append(t.touched, parley.OutboxEntry{Kind: kind, Company: company, Ref: ref})
}

// index hands the records the write touched to the store's indexer.
func (t *Tx) index(db *DB) error {
	if len(t.touched) == 0 || db.indexer == nil {
		return nil
	}
	t.prefetch(t.touched)
	t.flush() // the indexer writes on the transaction itself
	if t.failed != nil {
		return t.failed
	}
	// A write whose caller went away commits nothing: no documents to build.
	if err := t.ctx.Err(); err != nil {
		return err
	}
	return causeOf(t, db.indexer(t.ctx, t, t.tx, t.touched))
}

// Reindex writes afresh the search rows of the records entries name, in
// one write that changes no record: a rebuild of the search tables calls
// it batch by batch. A write of the same records committing meanwhile
// writes the same search rows, so one of the two meets the other's rows
// changed after its snapshot and runs again (see DB.Update), and the rows
// left are those of the records as last committed.
func (db *DB) Reindex(ctx context.Context, entries []parley.OutboxEntry) error {
	_, err := db.Update(ctx, func(t *Tx) error {
		t.touched = append(t.touched, entries...)
		return nil
	})
	return err
}

// OutboxDepth is 0: no write leaves index work behind (see above).
func (db *DB) OutboxDepth() (int, error) { return 0, nil }

// LastOutboxSeq is 0: writes take no outbox sequence (see above).
func (db *DB) LastOutboxSeq() (uint64, error) { return 0, nil }
