package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	parley "github.com/parley/parley"
)

// store is the database as the domain's seam.
type store struct{ db *DB }

var _ parley.Store = store{}

// Store returns the database as a parley.Store. Its transactions run with
// the context each call is given: a request's, so a client gone or a
// deadline passed ends its statements.
func (db *DB) Store() parley.Store { return store{db} }

func (s store) View(ctx context.Context, fn func(parley.Tx) error) error {
	return s.db.View(ctx, func(tx *Tx) error { return fn(tx) })
}

// Update runs fn, then the before-commit step (parley.CommitHooks), in one
// write.
func (s store) Update(ctx context.Context, fn func(parley.Tx) error) (uint64, error) {
	return s.db.Update(ctx, func(tx *Tx) error { return s.db.CommitHooks.Write(tx, fn) })
}

// View runs fn in a read-only REPEATABLE READ transaction: one snapshot
// for all its reads. Records returned by Tx methods are decoded copies.
func (db *DB) View(ctx context.Context, fn func(*Tx) error) error {
	defer db.observeTx(false, time.Now())
	_, err := db.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	return err
}

// Update runs fn in a SERIALIZABLE transaction, then the store's indexer
// on the records it touched (see search.go), committed when both return
// nil; it returns 0, the sequence of a store without an outbox. fn
// runs again when PostgreSQL reports a serialization failure or a
// deadlock, so it must touch only the transaction.
func (db *DB) Update(ctx context.Context, fn func(*Tx) error) (uint64, error) {
	defer db.observeTx(true, time.Now())
	return db.run(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn)
}

// maxAttempts bounds the runs of one transaction under contention. Writers
// of one company's records collide (two updates of a conversation, the
// inserts near one another that serializable isolation cannot tell apart),
// so under load a transaction may lose several times in a row; the pauses
// between runs grow exponentially (maxPause caps one), spreading the
// writers out. A request's deadline ends the retries sooner.
const (
	maxAttempts = 30
	maxPause    = 100 * time.Millisecond
)

func (db *DB) run(ctx context.Context, opts pgx.TxOptions, fn func(*Tx) error) (uint64, error) {
	for attempt := 1; ; attempt++ {
		t, err := db.attempt(ctx, opts, fn)
		if err == nil {
			db.committed(t)
			db.announce(ctx, t)
			return 0, nil
		}
		if !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return 0, err
		}
		// A random pause up to a bound that doubles with each attempt
		// (full jitter), so the transactions that collided do not collide
		// again.
		pause := time.Duration(rand.Int64N(int64(min(maxPause, time.Millisecond<<min(attempt, 16)))))
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(pause):
		}
	}
}

func (db *DB) attempt(ctx context.Context, opts pgx.TxOptions, fn func(*Tx) error) (*Tx, error) {
	ptx, err := db.pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("pgstore: begin: %w", err)
	}
	// After Commit, Rollback does nothing; before it, the error that
	// matters is the one returned below.
	defer func() { _ = ptx.Rollback(ctx) }()
	t := &Tx{ctx: ctx, tx: ptx, counters: db.counters, owners: map[owner]int64{}, writable: opts.AccessMode != pgx.ReadOnly}
	err = fn(t)
	if t.failed != nil {
		return nil, t.failed // the cause; fn may have returned its consequence, or swallowed it
	}
	if err != nil {
		return nil, err
	}
	if t.writable {
		if err := t.index(db); err != nil {
			return nil, err
		}
	}
	if err := ptx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("pgstore: commit: %w", err)
	}
	return t, nil
}

// causeOf prefers a statement's failure over what a caller made of it.
func causeOf(t *Tx, err error) error {
	if t.failed != nil {
		return t.failed
	}
	return err
}

// committed tells the waiters of a committed write.
func (db *DB) committed(t *Tx) {
	if t.laterChanged {
		signal(db.later)
	}
	if t.webhookWork {
		signal(db.webhooks)
	}
	if t.mailWork {
		signal(db.mail)
	}
}

// retryable reports a serialization failure or a deadlock: the
// transaction may succeed when run again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// Tx is one PostgreSQL transaction with typed accessors. It implements
// parley.Tx.
type Tx struct {
	ctx      context.Context
	tx       pgx.Tx
	counters *pgxpool.Pool // DB.counters
	writable bool
	// failed is the first statement error: PostgreSQL refuses every later
	// statement of the transaction, and methods that return no error
	// (counts, ids) leave it here for the transaction to fail with.
	failed error
	// owners caches the companies of ids this transaction looked up or
	// wrote (see owners.go).
	owners map[owner]int64
	// touched lists the records whose search documents the write changed,
	// for the indexer before the commit (see search.go).
	touched []parley.OutboxEntry
	// laterChanged, webhookWork and mailWork record what the transaction
	// stored, for the signals after its commit.
	laterChanged, webhookWork, mailWork bool
}

var _ parley.Tx = (*Tx)(nil)

// check records a statement's error as the transaction's failure and
// returns it in the domain's terms (see domainError).
func (t *Tx) check(err error) error {
	if err == nil {
		return nil
	}
	if t.failed == nil {
		t.failed = domainError(err)
	}
	return t.failed
}

// exec runs a statement that returns no rows.
func (t *Tx) exec(sql string, args ...any) error {
	if t.failed != nil {
		return t.failed
	}
	_, err := t.tx.Exec(t.ctx, sql, args...)
	return t.check(err)
}

// scan runs a statement returning at most one row into dest; found is
// false when it returned none.
func (t *Tx) scan(sql string, args []any, dest ...any) (found bool, err error) {
	if t.failed != nil {
		return false, t.failed
	}
	err = t.tx.QueryRow(t.ctx, sql, args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, t.check(err)
}

// collect runs a statement and scans each row with fn; the rows are all
// read before it returns, so fn's caller may run statements again.
func collect[T any](t *Tx, fn func(pgx.CollectableRow) (T, error), sql string, args ...any) ([]T, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return nil, t.check(err)
	}
	var out []T // nil when empty, as the embedded store answers
	for rows.Next() {
		v, err := fn(rows)
		if err != nil {
			rows.Close()
			return nil, t.check(err)
		}
		out = append(out, v)
	}
	return out, t.check(rows.Err())
}

// one loads the record a statement's single body column holds, or answers
// NotFound(noun).
func one[T any](t *Tx, noun, sql string, args ...any) (*T, error) {
	var body []byte
	found, err := t.scan(sql, args, &body)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound(noun)
	}
	rec := new(T)
	return rec, t.decode(body, rec)
}

// many loads the records of a statement's body column, in its order.
func many[T any](t *Tx, sql string, args ...any) ([]T, error) {
	return collect(t, bodyRow[T], sql, args...)
}

// inOrder loads, in one statement, the records of a company a statement
// selects by `id = ANY($2)`, and returns them in the order of ids (the
// statement's own order is the table's), skipping ids it did not find.
func inOrder[T any](t *Tx, sql string, companyID int64, ids []int64, idOf func(*T) int64) ([]T, error) {
	if len(ids) == 0 {
		return []T{}, nil
	}
	found, err := many[T](t, sql, companyID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*T, len(found))
	for i := range found {
		byID[idOf(&found[i])] = &found[i]
	}
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if rec, ok := byID[id]; ok {
			out = append(out, *rec)
		}
	}
	return out, nil
}

// ids collects a statement's single bigint column.
func (t *Tx) ids(sql string, args ...any) ([]int64, error) {
	return collect(t, idRow, sql, args...)
}

func (t *Tx) decode(body []byte, rec any) error { return t.check(decodeBody(body, rec)) }

// countOf runs a count for a method that returns no error: a failure
// stays on the transaction (see Tx.failed).
func (t *Tx) countOf(sql string, args ...any) int {
	var n int
	_, _ = t.scan(sql, args, &n)
	return n
}
