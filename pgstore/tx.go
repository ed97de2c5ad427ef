package pgstore

import (
	"bytes"
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
	_, err := db.run(ctx, func() (*Tx, error) { return db.read(ctx, fn) })
	return err
}

// Update runs fn in a REPEATABLE READ transaction, then the store's
// indexer on the records it touched (see search.go), committed when both
// return nil; it returns 0, the sequence of a store without an outbox.
// fn runs again when PostgreSQL reports a serialization failure or a
// deadlock, so it must touch only the transaction.
//
// Why REPEATABLE READ. fn sees one snapshot, and a record it read and
// writes back cannot have changed meanwhile: PostgreSQL refuses to write
// a row that a write committed after the snapshot changed (a
// serialization failure: fn runs again and sees the change), so no
// change is lost, and an insert of a key a concurrent write took waits
// for it and then fails the same way, or as a unique violation, which is
// retried too (see retryable). READ COMMITTED would see each statement's
// own snapshot: a record read and written back would silently undo a
// change committed in between, unless every read of a write locked its
// row, which would make every write of a company wait on the company's
// and its mailboxes' rows. SERIALIZABLE also fails writes that only
// inserted near one another (its predicate locks cover index pages) and,
// while a write stays open (a node paused inside one), keeps the
// predicate locks of every write committed since, until the server's
// lock table fills. The one thing REPEATABLE READ allows that they do
// not is two writes that each decide on a set of rows no key covers and
// insert a new one (two mailboxes named alike); those rules take a rule
// lock first (parley.RuleLocks, rule_locks.go).
func (db *DB) Update(ctx context.Context, fn func(*Tx) error) (uint64, error) {
	defer db.observeTx(true, time.Now())
	return db.run(ctx, func() (*Tx, error) { return db.write(ctx, fn) })
}

// maxAttempts bounds the runs of one transaction under contention. Writers
// of one company's records collide (two updates of a conversation, two
// writes checking one rule),
// so under load a transaction may lose several times in a row; the pauses
// between runs grow exponentially (maxPause caps one), spreading the
// writers out. A request's deadline ends the retries sooner.
const (
	maxAttempts = 30
	maxPause    = 100 * time.Millisecond
)

// run runs a transaction (attempt, see read and write), again while it
// fails retryably.
func (db *DB) run(ctx context.Context, attempt func() (*Tx, error)) (uint64, error) {
	for n := 1; ; n++ {
		t, err := attempt()
		if err == nil {
			db.committed(t)
			db.announce(ctx, t)
			return 0, nil
		}
		if !retryable(err, n) || ctx.Err() != nil {
			return 0, err
		}
		if n == maxAttempts {
			return 0, gaveUp(err)
		}
		// A random pause up to a bound that doubles with each attempt
		// (full jitter), so the transactions that collided do not collide
		// again.
		pause := time.Duration(rand.Int64N(int64(min(maxPause, time.Millisecond<<min(n, 16)))))
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(pause):
		}
	}
}

// gaveUp is the error of a transaction that failed retryably maxAttempts
// times: other writers of the same records won every time, or the server
// stayed short. Nothing is wrong with the request, and the contention
// passes, so the caller is asked to try again later (parley.Unavailable,
// a 503 with Retry-After) rather than told of an internal error.
func gaveUp(err error) error {
	var e *parley.Error
	if errors.As(err, &e) {
		return err
	}
	return parley.Unavailable(err)
}

// sqlBeginRead opens a View's transaction. It is not sent on its own: it
// goes with the transaction's first statement, in the same round trip
// (see Tx.begin). PostgreSQL takes a REPEATABLE READ transaction's
// snapshot at its first statement, not at BEGIN, so the View sees the
// same data; a View that runs no statement sends nothing.
const sqlBeginRead = "begin isolation level repeatable read read only"

// read runs fn once in a read-only REPEATABLE READ transaction on a
// connection of its own.
func (db *DB) read(ctx context.Context, fn func(*Tx) error) (*Tx, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, shortage(fmt.Errorf("pgstore: begin: %w", err))
	}
	t := &Tx{ctx: ctx, conn: conn, begin: sqlBeginRead, counters: db.counters}
	defer func() {
		// A connection left inside a transaction (its statement, its
		// COMMIT or its ROLLBACK failed) is closed by Release, never
		// reused; the Tx, used after the View, answers as pgx's does.
		conn.Release()
		t.failed = pgx.ErrTxClosed
	}()
	err = fn(t)
	// A write that fn queued is sent, and refused: the transaction is
	// read-only.
	t.flush()
	err = causeOf(t, err)
	if t.begin != "" { // no statement was sent: no transaction to end
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	if err != nil {
		_, _ = conn.Exec(ctx, "rollback")
		return nil, err
	}
	tag, err := conn.Exec(ctx, "commit")
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback // a statement failed unseen; never expected
	}
	if err != nil {
		return nil, shortage(fmt.Errorf("pgstore: commit: %w", err))
	}
	return t, nil
}

// write runs fn once in a REPEATABLE READ transaction, then the indexer.
func (db *DB) write(ctx context.Context, fn func(*Tx) error) (*Tx, error) {
	ptx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, shortage(fmt.Errorf("pgstore: begin: %w", err))
	}
	// After Commit, Rollback does nothing; before it, the error that
	// matters is the one returned below.
	defer func() { _ = ptx.Rollback(ctx) }()
	t := &Tx{ctx: ctx, tx: ptx, conn: ptx, counters: db.counters, writable: true}
	err = fn(t)
	// The queued statements run even when fn failed: one of them failing
	// is the cause to report, as when each ran on its own.
	t.flush()
	if t.failed != nil {
		return nil, t.failed // the cause; fn may have returned its consequence, or swallowed it
	}
	if err != nil {
		return nil, err
	}
	if err := t.index(db); err != nil {
		return nil, err
	}
	if t.flush(); t.failed != nil { // what the indexer queued
		return nil, t.failed
	}
	if err := ptx.Commit(ctx); err != nil {
		return nil, shortage(fmt.Errorf("pgstore: commit: %w", err))
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

// retryable reports an error after which the transaction may succeed when
// run again: a serialization failure or a deadlock, or the server short
// of shared memory or of connections. PostgreSQL answers "out of shared
// memory" (53200) when its lock table is full, which empties as the
// transactions holding the locks end; "too many connections" (53300) passes as other clients
// disconnect. A full disk (53100) or a configured limit (53400) lasts
// until an operator acts, so it is not retried. A transaction the server
// ended because it idled past idle_in_transaction_session_timeout (25P03:
// its node was paused, or stalled between two statements) was aborted
// with its session, whatever statement learns of it, even a COMMIT, so it
// runs again on another connection.
//
// A unique violation (23505) is what a plain INSERT meets when a
// concurrent write committed the same key after this one's snapshot: run
// again, the write sees that key and its rule answers as it would have
// (a Conflict, or another position). One that persists over
// uniqueAttempts runs is no race but a write that disagrees with its own
// snapshot, returned as it is.
func retryable(err error, attempt int) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", "40P01", "53200", "53300", "25P03":
		return true
	case "23505":
		return attempt < uniqueAttempts
	}
	return false
}

// uniqueAttempts bounds the runs of a write that meets unique violations.
const uniqueAttempts = 3

// Tx is one PostgreSQL transaction with typed accessors. It implements
// parley.Tx.
type Tx struct {
	ctx context.Context
	// conn runs the statements: the write's transaction (tx), or the
	// connection a read's transaction is open on.
	conn statementRunner
	// tx is a write's transaction, for its indexer (nil in a read).
	tx pgx.Tx
	// begin is a read's BEGIN while it is not sent: it goes to the server
	// with the first statement (see batch).
	begin    string
	counters *pgxpool.Pool // DB.counters
	writable bool
	// failed is the first statement error: PostgreSQL refuses every later
	// statement of the transaction, and methods that return no error
	// (counts, ids) leave it here for the transaction to fail with.
	failed error
	// queued are the statements exec was given, not yet sent: they go to
	// the server with the next statement whose rows are read, in one
	// round trip, or by flush (see exec).
	queued []*pgx.QueuedQuery
	// reads keeps the answers of the transaction's reads of records by
	// key, by table, until it writes the table (see cache.go).
	reads map[string]map[readKey]answer
	// touched lists the records whose search documents the write changed,
	// for the indexer before the commit (see search.go).
	touched []parley.OutboxEntry
	// ruleLocks are the rule locks the write took (see LockRule).
	ruleLocks map[ruleLock]bool
	// laterChanged, webhookWork and mailWork record what the transaction
	// stored, for the signals after its commit.
	laterChanged, webhookWork, mailWork bool
}

var _ parley.Tx = (*Tx)(nil)

// statementRunner is what a Tx sends its statements through.
type statementRunner interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

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

// exec queues a statement that returns no rows: the write reads nothing
// of it, so it waits to be sent with the next statement whose rows are
// read (see query), or before the indexer and the commit (flush), in
// order, without a round trip of its own. A loader's writes then cost
// the round trips of their reads alone. A queued statement's failure
// becomes the transaction's (Tx.failed) when it is sent: every statement
// after it fails with it, and the write with it, as when each ran on its
// own.
func (t *Tx) exec(sql string, args ...any) error {
	if t.failed != nil {
		return t.failed
	}
	t.wrote(sql)
	b := pgx.Batch{QueuedQueries: t.queued}
	b.Queue(sql, args...)
	t.queued = b.QueuedQueries
	return nil
}

// flush sends the queued statements, if any, in one round trip.
func (t *Tx) flush() { t.pipeline(nil) }

// batch starts the statements of a round trip: the BEGIN not sent yet,
// then the queued statements.
func (t *Tx) batch() *pgx.Batch {
	b := &pgx.Batch{}
	if t.begin != "" {
		b.Queue(t.begin)
		t.begin = ""
	}
	b.QueuedQueries = append(b.QueuedQueries, t.queued...)
	t.queued = nil
	return b
}

// pendingRead is one statement of a pipeline of reads: row is called for
// each of its rows, then done once all are read.
type pendingRead struct {
	sql  string
	args []any
	row  func(pgx.Rows) error
	done func()
}

// pipeline runs the queued statements and reads in one round trip, and
// reports whether all succeeded (a failure stays on the transaction, see
// exec).
func (t *Tx) pipeline(reads []pendingRead) bool {
	if t.failed != nil {
		return false
	}
	if len(reads) == 0 && len(t.queued) == 0 {
		return true
	}
	b := t.batch()
	for _, r := range reads {
		b.Queue(r.sql, r.args...)
	}
	br := t.conn.SendBatch(t.ctx, b)
	defer func() { _ = t.check(br.Close()) }()
	for range len(b.QueuedQueries) - len(reads) {
		if _, err := br.Exec(); err != nil {
			_ = t.check(err)
			return false
		}
	}
	for _, r := range reads {
		rows, err := br.Query()
		if err != nil {
			_ = t.check(err)
			return false
		}
		for rows.Next() {
			if err := r.row(rows); err != nil {
				rows.Close()
				_ = t.check(err)
				return false
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			_ = t.check(err)
			return false
		}
		if r.done != nil {
			r.done()
		}
	}
	return true
}

// query runs a statement whose rows are read, after the queued statements
// and in the same round trip. The rows must be closed before the next
// statement.
func (t *Tx) query(sql string, args ...any) (pgx.Rows, error) {
	t.wrote(sql)
	if len(t.queued) == 0 && t.begin == "" {
		return t.conn.Query(t.ctx, sql, args...)
	}
	b := t.batch()
	b.Queue(sql, args...)
	br := t.conn.SendBatch(t.ctx, b)
	for range len(b.QueuedQueries) - 1 {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, batch: br}, nil
}

// batchRows are the rows of a pipeline's last statement; closing them
// ends the pipeline.
type batchRows struct {
	pgx.Rows
	batch    pgx.BatchResults
	closed   bool
	closeErr error
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.closeErr = r.batch.Close()
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.closeErr
}

// scan runs a statement returning at most one row into dest; found is
// false when it returned none.
func (t *Tx) scan(sql string, args []any, dest ...any) (found bool, err error) {
	if t.failed != nil {
		return false, t.failed
	}
	key, table, cacheable := keyOf(sql, args)
	if cacheable {
		if a, ok := t.cached(table, key); ok {
			if len(a) == 0 {
				return false, nil
			}
			scanValues(a[0], dest)
			return true, nil
		}
	}
	rows, err := t.query(sql, args...)
	if err != nil {
		return false, t.check(err)
	}
	if !rows.Next() {
		rows.Close()
		if err := t.check(rows.Err()); err != nil {
			return false, err
		}
		if cacheable {
			t.keep(table, key, answer{})
		}
		return false, nil
	}
	err = rows.Scan(dest...)
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return false, t.check(err)
	}
	if values, ok := rowValues(dest); ok && cacheable {
		t.keep(table, key, answer{values})
	}
	return true, nil
}

// collect runs a statement and scans each row with fn; the rows are all
// read before it returns, so fn's caller may run statements again.
func collect[T any](t *Tx, fn func(pgx.CollectableRow) (T, error), sql string, args ...any) ([]T, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	rows, err := t.query(sql, args...)
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
	rows.Close()
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
	if t.failed != nil {
		return nil, t.failed
	}
	key, table, cacheable := keyOf(sql, args)
	key.all = true
	a, kept := t.cached(table, key)
	if !cacheable || !kept {
		bodies, err := collect(t, rawBodyRow, sql, args...)
		if err != nil {
			return nil, err
		}
		a = make(answer, len(bodies))
		for i, body := range bodies {
			a[i] = []any{body}
		}
		if cacheable {
			t.keep(table, key, a)
		}
	}
	var out []T // nil when empty, as the embedded store answers
	for _, row := range a {
		var rec T
		if err := t.decode(row[0].([]byte), &rec); err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// rawBodyRow scans a row's body column, kept as it is.
func rawBodyRow(row pgx.CollectableRow) ([]byte, error) {
	var body []byte
	err := row.Scan(&body)
	return bytes.Clone(body), err
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
	if t.failed != nil {
		return nil, t.failed
	}
	key, table, cacheable := keyOf(sql, args)
	key.all = true
	if a, ok := t.cached(table, key); ok && cacheable {
		var out []int64 // nil when empty, as collect answers
		for _, row := range a {
			out = append(out, row[0].(int64))
		}
		return out, nil
	}
	out, err := collect(t, idRow, sql, args...)
	if err == nil && cacheable {
		a := make(answer, len(out))
		for i, id := range out {
			a[i] = []any{id}
		}
		t.keep(table, key, a)
	}
	return out, err
}

func (t *Tx) decode(body []byte, rec any) error { return t.check(decodeBody(body, rec)) }

// countOf runs a count for a method that returns no error: a failure
// stays on the transaction (see Tx.failed).
func (t *Tx) countOf(sql string, args ...any) int {
	var n int
	_, _ = t.scan(sql, args, &n)
	return n
}
