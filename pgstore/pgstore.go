// Package pgstore keeps Parley's records in PostgreSQL: the second
// implementation of the domain's store seam (parley.Store and parley.Tx),
// beside the embedded bbolt one (package storage), with the same
// behaviour, which one conformance suite (internal/storetest) holds both
// to.
//
// Each record family has its table, keyed by company first so Citus can
// distribute it by company (see the migrations), with the record as JSON
// beside the typed columns that lookups, unique keys and orderings need.
// Every write commits the record, its secondary keys and its index-outbox
// entries in one SERIALIZABLE transaction, retried when PostgreSQL reports
// a serialization failure or a deadlock: the seam lets Update run its
// function more than once. The schema is created by versioned migrations
// (goose, embedded SQL) that `parley migrate` applies (Migrate); Open
// refuses a database whose schema is older than the binary.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	parley "github.com/parley/parley"
)

//go:embed migrations/*.sql
var migrations embed.FS

// versionTable records which migrations are applied: the store's own,
// apart from the search engine's (pgindex) in the same database.
const versionTable = "parley_store_version"

// migrationLock is the advisory lock that keeps two nodes from migrating
// together.
const migrationLock = 0x70617273746f7265 // "parstore"

// ReferenceTables are the tables found without a company, replicated to
// every node under Citus (create_reference_table): companies themselves,
// and the keys a request or a background job starts from before it knows
// the company: credentials by hash or client id, sign-in e-mails, V1 key
// hashes, public widget ids, and the owners of ids that a few reads of the
// seam name without their company. Every other table is in CompanyTables.
var ReferenceTables = []string{"companies", "credentials", "user_emails", "user_v1_keys", "widgets", "owners", "chat_owners"}

// CompanyTables are the tables keyed by company_id first, distributed by
// company under Citus (create_distributed_table(table, 'company_id')):
// every statement on one filters by company_id, but for the few marked
// AllCompanies.
var CompanyTables = []string{"users", "teams", "mailboxes", "saved_replies", "customers", "customer_emails", "property_defs",
	"organizations", "organization_domains", "tags", "tag_names", "conversation_numbers", "conversations", "threads", "ratings",
	"message_ids", "thread_sources", "attachments", "later", "chats", "events", "mail", "webhooks", "deliveries", "workflows",
	"workflow_runs", "outbox"}

// AllCompanies marks the statements that read a company table across
// companies: the queues that background workers drain in time or sequence
// order (the index outbox, wake-ups). Under Citus they are multi-shard
// queries, run by a worker, never by a request.
const AllCompanies = "/* all companies: a queue drained in order */"

// statements is every SQL text the package runs (see stmt), for the test
// that holds each to its company.
var statements []string

// stmt registers a statement; the package runs no SQL it did not register.
func stmt(sql string) string {
	statements = append(statements, sql)
	return sql
}

// Statements lists every SQL statement the package may run.
func Statements() []string { return append([]string(nil), statements...) }

// Options tune Open.
type Options struct {
	// Tracer, when set, sees every statement (tests check that each is
	// registered and keeps to a company). Migrations run apart from it.
	Tracer pgx.QueryTracer
}

// DB is Parley's record store on PostgreSQL.
type DB struct {
	pool *pgxpool.Pool
	// onCommit is told the highest outbox sequence of each committed write.
	onCommit func(seq uint64)
	// onTx is told the duration of each View and Update (metrics).
	onTx atomic.Pointer[func(write bool, took time.Duration)]
	// later, webhooks and mail are signalled after a commit that stored a
	// wake-up, a domain event or webhook delivery, or an e-mail to send.
	// They reach this process only; nodes sharing a database will need
	// LISTEN/NOTIFY.
	later, webhooks, mail chan struct{}
	// beforeCommit, when set, runs at the end of every write that recorded
	// domain events, in its transaction (automatic workflows).
	beforeCommit atomic.Pointer[func(parley.Tx, []parley.Event) error]
}

// ErrSchemaOutdated is returned by Open when the database's schema is
// older than the binary's migrations.
var ErrSchemaOutdated = errors.New("pgstore: the database schema is older than this Parley; run `parley migrate` first")

// Open connects to the database at url (a postgres:// URL) and checks that
// its schema is migrated at least as far as this binary's migrations
// (ErrSchemaOutdated otherwise). A newer schema is served: migrations only
// add, so nodes of the previous version keep serving while a new one rolls
// out.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	have, want, err := versions(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if have < want {
		return nil, fmt.Errorf("%w (schema version %d, this binary needs %d)", ErrSchemaOutdated, have, want)
	}
	cfg.ConnConfig.Tracer = opts.Tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	return &DB{pool: pool, later: make(chan struct{}, 1), webhooks: make(chan struct{}, 1), mail: make(chan struct{}, 1)}, nil
}

// Migrate applies the store schema's pending migrations to the database at
// url, one node at a time (an advisory lock): what `parley migrate` runs.
func Migrate(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	return withProvider(cfg, func(p *goose.Provider) error {
		if _, err := p.Up(ctx); err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		return nil
	})
}

// versions returns the schema version of the database and the latest
// version of the binary's migrations.
func versions(ctx context.Context, cfg *pgx.ConnConfig) (have, want int64, err error) {
	err = withProvider(cfg, func(p *goose.Provider) error {
		sources := p.ListSources()
		want = sources[len(sources)-1].Version
		if have, err = p.GetDBVersion(ctx); err != nil {
			return fmt.Errorf("pgstore: schema version: %w", err)
		}
		return nil
	})
	return have, want, err
}

func withProvider(cfg *pgx.ConnConfig, fn func(*goose.Provider) error) error {
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLock))
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithTableName(versionTable),
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("pgstore: migrations: %w", err)
	}
	return fn(p)
}

// Close closes the connection pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// OnCommit registers the function told the outbox sequence of each write
// that queued index work. Set it before serving.
func (db *DB) OnCommit(f func(seq uint64)) { db.onCommit = f }

// OnTx registers the function told how long each View and Update took
// (for metrics). It may be set while the database is in use.
func (db *DB) OnTx(f func(write bool, took time.Duration)) { db.onTx.Store(&f) }

// SetBeforeCommit sets the hook every write that recorded domain events
// runs in its transaction before committing (automatic workflows); an
// error from it aborts the write. nil removes it.
func (db *DB) SetBeforeCommit(fn func(tx parley.Tx, events []parley.Event) error) {
	if fn == nil {
		db.beforeCommit.Store(nil)
		return
	}
	db.beforeCommit.Store(&fn)
}

// LaterChanged is signalled after each commit that stored a wake-up.
func (db *DB) LaterChanged() <-chan struct{} { return db.later }

// WebhookWork is signalled after each commit that recorded a domain event
// or stored a webhook delivery.
func (db *DB) WebhookWork() <-chan struct{} { return db.webhooks }

// MailWork is signalled after each commit that stored an e-mail to send.
func (db *DB) MailWork() <-chan struct{} { return db.mail }

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (db *DB) observeTx(write bool, start time.Time) {
	if f := db.onTx.Load(); f != nil {
		(*f)(write, time.Since(start))
	}
}

// store is the database as the domain's seam, its transactions run with
// the context it was made with (the seam's functions take none).
type store struct {
	db  *DB
	ctx context.Context
}

var _ parley.Store = store{}

// Store returns the database as a parley.Store whose transactions run
// without a deadline.
func (db *DB) Store() parley.Store { return store{db, context.Background()} }

// StoreContext returns the database as a parley.Store whose transactions
// run with ctx: a request's, so a client gone or a deadline passed ends
// its statements.
func (db *DB) StoreContext(ctx context.Context) parley.Store { return store{db, ctx} }

func (s store) View(fn func(parley.Tx) error) error {
	return s.db.View(s.ctx, func(tx *Tx) error { return fn(tx) })
}

func (s store) Update(fn func(parley.Tx) error) (uint64, error) {
	return s.db.Update(s.ctx, func(tx *Tx) error { return fn(tx) })
}

// View runs fn in a read-only REPEATABLE READ transaction: one snapshot
// for all its reads. Records returned by Tx methods are decoded copies.
func (db *DB) View(ctx context.Context, fn func(*Tx) error) error {
	defer db.observeTx(false, time.Now())
	_, err := db.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	return err
}

// Update runs fn in a SERIALIZABLE transaction, committed when fn returns
// nil, and returns the highest outbox sequence it queued (0 if none). fn
// runs again when PostgreSQL reports a serialization failure or a
// deadlock, so it must touch only the transaction.
func (db *DB) Update(ctx context.Context, fn func(*Tx) error) (uint64, error) {
	defer db.observeTx(true, time.Now())
	return db.run(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn)
}

// maxAttempts bounds the runs of one transaction under contention.
const maxAttempts = 10

func (db *DB) run(ctx context.Context, opts pgx.TxOptions, fn func(*Tx) error) (uint64, error) {
	for attempt := 1; ; attempt++ {
		t, err := db.attempt(ctx, opts, fn)
		if err == nil {
			db.committed(t)
			return t.outboxSeq, nil
		}
		if !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return 0, err
		}
		// A short random pause, growing with the attempts, so the
		// transactions that collided do not collide again.
		pause := time.Duration(rand.Int64N(int64(attempt) * int64(2*time.Millisecond)))
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
	t := &Tx{ctx: ctx, tx: ptx, owners: map[owner]int64{}, writable: opts.AccessMode != pgx.ReadOnly}
	err = fn(t)
	if t.failed != nil {
		return nil, t.failed // the cause; fn may have returned its consequence, or swallowed it
	}
	if err != nil {
		return nil, err
	}
	if t.writable {
		if hook := db.beforeCommit.Load(); hook != nil && len(t.events) > 0 {
			if err := (*hook)(t, t.takeEvents()); err != nil {
				return nil, causeOf(t, err)
			}
		}
		if err := t.flushOutbox(); err != nil {
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
	if t.outboxSeq != 0 && db.onCommit != nil {
		db.onCommit(t.outboxSeq)
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
	writable bool
	// failed is the first statement error: PostgreSQL refuses every later
	// statement of the transaction, and methods that return no error
	// (counts, ids) leave it here for the transaction to fail with.
	failed error
	// owners caches the companies of ids this transaction looked up or
	// wrote (see owners.go).
	owners map[owner]int64
	// outbox holds the entries queued so far, written at commit (see
	// outbox.go); outboxSeq is the highest sequence they got.
	outbox    []parley.OutboxEntry
	outboxSeq uint64
	// laterChanged, webhookWork and mailWork record what the transaction
	// stored, for the signals after its commit.
	laterChanged, webhookWork, mailWork bool
	// events are the domain events recorded so far, for beforeCommit.
	events []parley.Event
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

var sqlNextID = stmt(`SELECT nextval($1::regclass)`)

// nextID draws the next id of a family from its sequence. Ids are global
// across companies, so a URL never names two records. Unlike the embedded
// store's, a sequence does not roll back: a write that fails or runs again
// leaves a gap.
func (t *Tx) nextID(sequence string) (int64, error) {
	var id int64
	_, err := t.scan(sqlNextID, []any{sequence}, &id)
	return id, err
}

// The sequence of each family (see the migrations). Users and teams have a
// sequence each, as in the embedded store; giving them one id space is
// naming the same sequence for both.
const (
	seqCompanies              = "company_ids"
	seqUsers                  = "user_ids"
	seqTeams                  = "team_ids"
	seqMailboxes              = "mailbox_ids"
	seqSavedReplies           = "saved_reply_ids"
	seqCustomers              = "customer_ids"
	seqCustomerProperties     = "customer_property_ids"
	seqOrganizations          = "organization_ids"
	seqOrganizationProperties = "organization_property_ids"
	seqTags                   = "tag_ids"
	seqConversations          = "conversation_ids"
	seqThreads                = "thread_ids"
	seqRatings                = "rating_ids"
	seqAttachments            = "attachment_ids"
	seqWebhooks               = "webhook_ids"
	seqDeliveries             = "delivery_ids"
	seqMail                   = "mail_ids"
	seqWorkflows              = "workflow_ids"
	seqWorkflowRuns           = "workflow_run_ids"
	seqItems                  = "item_ids"
)

// assignID gives *id the next id of a family when it is 0.
func (t *Tx) assignID(sequence string, id *int64) error {
	if *id != 0 {
		return nil
	}
	n, err := t.nextID(sequence)
	*id = n
	return err
}

var (
	sqlSequenceLock = stmt(`SELECT pg_advisory_xact_lock(hashtext($1))`)
	sqlSequencePast = stmt(`SELECT setval($1::text::regclass, $2) FROM pg_sequences s WHERE s.schemaname = current_schema() AND s.sequencename = $1::text AND coalesce(s.last_value, 0) < $2`)
)

// keepSequencePast moves a family's sequence to at least id (an imported
// id: later ids must not reach it). setval is not transactional, so the
// compare and the set run under a lock of the sequence held until commit.
func (t *Tx) keepSequencePast(sequence string, id int64) error {
	if err := t.exec(sqlSequenceLock, sequence); err != nil {
		return err
	}
	return t.exec(sqlSequencePast, sequence, id)
}
