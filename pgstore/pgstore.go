// Package pgstore keeps Parley's records in PostgreSQL: the second
// implementation of the domain's store seam (parley.Store and parley.Tx),
// beside the embedded bbolt one (package storage), with the same
// behaviour, which one conformance suite (internal/storetest) holds both
// to.
//
// Each record family has its table, keyed by company first so Citus can
// distribute it by company (see the migrations), with the record as JSON
// beside the typed columns that lookups, unique keys and orderings need.
// Every write commits the record, its secondary keys and its search rows
// (written by the indexer it is opened with, see search.go) in one
// REPEATABLE READ transaction, retried when PostgreSQL reports
// a serialization failure or a deadlock: the seam lets Update run its
// function more than once (see tx.go for why this level, and
// rule_locks.go for the rules that need more). A transaction spends few round trips: a View's
// BEGIN and the statements whose results it does not read wait to go
// with the next that it reads (tx.go), it answers its repeated reads of a
// record by key itself (cache.go), it reads ahead at once what the indexer
// reads of the records it touched (prefetch.go), and what a caller names
// as its next reads by key (readahead.go). The schema is created by versioned migrations
// (goose, embedded SQL) that `parley migrate` applies (Migrate); Open
// refuses a database whose schema is older than the binary.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
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
// hashes, public widget ids, mailbox addresses. No write of a record of a
// company table writes one of these (see ids.go for how ids stay unique
// without one), but for a mailbox's address and widget keys. Every other
// table is in CompanyTables.
var ReferenceTables = []string{"companies", "credentials", "user_emails", "user_v1_keys", "widgets", "mailbox_emails"}

// CompanyTables are the tables keyed by company_id first, distributed by
// company under Citus (create_distributed_table(table, 'company_id')):
// every statement on one filters by company_id, but for the few marked
// AllCompanies.
var CompanyTables = []string{"users", "teams", "mailboxes", "saved_replies", "customers", "customer_emails", "property_defs",
	"organizations", "organization_domains", "tags", "tag_names", "conversation_numbers", "conversations", "threads", "ratings",
	"message_ids", "thread_sources", "attachments", "later", "chats", "chat_timeline", "events", "mail", "webhooks", "deliveries",
	"workflows", "workflow_runs", "saved_views", "rate_windows", "pulled_ids", "pulls", "rule_locks"}

// AllCompanies marks the statements that read a company table across
// companies: the queues that background workers drain in time or sequence
// order (wake-ups, domain events, webhook deliveries, outgoing e-mail). Under Citus they are multi-shard queries, run by a
// worker, never by a request. Nodes sharing a database split the work
// with row locks, never one lock across companies: a wake-up is taken
// FOR UPDATE SKIP LOCKED, domain events are claimed a company at a time
// (events.go), deliveries and e-mail with a lease (claims.go); the
// read-only looks (what is due next) take no lock.
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
	// Indexer writes the search rows of each write's touched records in
	// its transaction (see search.go); without one, the store keeps no
	// search rows (tests of the store alone).
	Indexer Indexer
	// StatementTimeout ends any one statement that runs longer
	// (DefaultStatementTimeout when zero), so a runaway query cannot hold
	// its locks and connection for good.
	StatementTimeout time.Duration
}

// Settings of every connection of the pool (see sessionSettings). A
// setting the database URL names itself is left as the URL says.
const (
	// DefaultStatementTimeout is Options.StatementTimeout's default.
	DefaultStatementTimeout = 30 * time.Second
	// idleInTransactionTimeout ends the session of a node that stopped
	// (a process paused or wedged) inside a transaction, which releases
	// its row locks for the other nodes' writes of the same rows, and
	// lets vacuum pass its snapshot; a node sends a transaction's
	// statements one after another, never waiting on anything else in
	// between, so only a stopped node idles this long.
	idleInTransactionTimeout = 5 * time.Second
	// The server probes an idle connection after keepaliveIdle, every
	// keepaliveInterval, and drops it after keepaliveCount unanswered
	// probes: a node gone from the network gives up its session (and its
	// locks) within about two minutes rather than the kernel's two hours.
	keepaliveIdle     = time.Minute
	keepaliveInterval = 10 * time.Second
	keepaliveCount    = 6
)

// sessionSettings sets the timeouts and TCP keepalives on every connection
// cfg opens, keeping what the URL already sets. The client side keeps
// pgx's own keepalive on its socket.
func sessionSettings(cfg *pgx.ConnConfig, statementTimeout time.Duration) {
	if statementTimeout <= 0 {
		statementTimeout = DefaultStatementTimeout
	}
	for name, d := range map[string]time.Duration{
		"statement_timeout":                   statementTimeout,
		"idle_in_transaction_session_timeout": idleInTransactionTimeout,
		"tcp_keepalives_idle":                 keepaliveIdle,
		"tcp_keepalives_interval":             keepaliveInterval,
	} {
		setDefault(cfg, name, fmt.Sprint(d.Milliseconds())+"ms")
	}
	setDefault(cfg, "tcp_keepalives_count", fmt.Sprint(keepaliveCount))
}

func setDefault(cfg *pgx.ConnConfig, name, value string) {
	if _, set := cfg.RuntimeParams[name]; !set {
		cfg.RuntimeParams[name] = value
	}
}

// DB is Parley's record store on PostgreSQL.
type DB struct {
	pool *pgxpool.Pool
	// counters runs the statements of the companies' conversation
	// counters, each committed on its own (see Tx.counter); its own few
	// connections, so a write holding one of pool's never waits for
	// another of pool's to draw its number.
	counters *pgxpool.Pool
	// indexer writes the search rows of each write's touched records on
	// its transaction (see search.go): Options.Indexer.
	indexer Indexer
	// onTx is told the duration of each View and Update (metrics).
	onTx atomic.Pointer[func(write bool, took time.Duration)]
	// later, webhooks and mail are signalled after a commit that stored a
	// wake-up, a domain event or webhook delivery, or an e-mail to send:
	// by this process at once, and by every node through Listen.
	later, webhooks, mail chan struct{}
	// CommitHooks runs the before-commit step of every write through the
	// domain's seam (Store().Update): SetBeforeCommit sets it.
	parley.CommitHooks
	nodeState
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
	sessionSettings(cfg.ConnConfig, opts.StatementTimeout)
	countersCfg := cfg.Copy()
	countersCfg.MaxConns = counterConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	counters, err := pgxpool.NewWithConfig(ctx, countersCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	return &DB{pool: pool, counters: counters, indexer: opts.Indexer, later: make(chan struct{}, 1), webhooks: make(chan struct{}, 1), mail: make(chan struct{}, 1)}, nil
}

// Migrate applies the store schema's pending migrations to the database at
// url, one node at a time (an advisory lock): what `parley migrate` runs.
// It returns the names of the migrations it applied, none when the schema
// was up to date, so the operator sees what changed.
func Migrate(ctx context.Context, url string) (applied []string, err error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	err = withProvider(cfg, func(p *goose.Provider) error {
		results, err := p.Up(ctx)
		if err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		for _, r := range results {
			applied = append(applied, path.Base(r.Source.Path))
		}
		return nil
	})
	return applied, err
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

// counterConns bounds the connections of DB.counters: a counter's
// statement is one short UPDATE, so a few serve every writer of a node.
const counterConns = 4

// Close closes the connection pools.
func (db *DB) Close() error {
	db.pool.Close()
	db.counters.Close()
	return nil
}

// OnTx registers the function told how long each View and Update took
// (for metrics). It may be set while the database is in use.
func (db *DB) OnTx(f func(write bool, took time.Duration)) { db.onTx.Store(&f) }

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
