// Package pgindex is Parley's PostgreSQL search engine. Each document kind
// has a typed table (search_conversation, search_customer, search_chat,
// search_call, search_message), one row per document, keyed by company
// first, whose columns are derived from the field catalog (index.Catalog):
//
//   - a keyword field is a text column (COLLATE "C", as Go compares) when
//     a document holds one value, a text[] (GIN on the values' first 256
//     characters) when it may hold several (manyValued: tags, e-mails);
//   - a number or date (Unix milliseconds) is a double precision column,
//     or a double precision[] (GIN) when it may hold several values
//     (thread customers, reply users, reply times); double precision
//     because documents hold float64 and the scan oracle compares them so;
//   - a text field is three columns: <name>_lexemes and <name>_stems,
//     tsvectors of its exact and stemmed forms (GIN), and <name>_runs,
//     its tokens in order, which phrases and long prefixes are checked
//     against;
//   - every row has its present fields (field:*) and extra: the values
//     that have no column (custom fields, cfk./cfn./cft.), as JSON.
//
// Text is analysed in Go with index.Tokens and index.Stem, never by
// PostgreSQL's dictionaries, so both sides agree on what a word is and on
// its forms, and the engine answers exactly what the scan oracle answers.
// A search is one statement: one WHERE over the kind's table, its exact
// total counted over the same WHERE, and one ORDER BY whose last keys are
// the numeric id and the document id; the btrees of the access paths
// (company, then a filter such as status or mailbox, then created_at, id
// and doc_id, descending with NULLS LAST as a sort puts missing values)
// hand a page over in order. Facets and aggregates are SQL aggregates
// over the same rows.
//
// The schema is created by versioned migrations (goose, embedded SQL),
// applied when the engine opens. A migration that changes the tables
// forgets the mapping version they were built with (search_state), so the
// first node to start rebuilds them from storage; TestTablesFollowCatalog
// holds the migrated columns to the catalog.
package pgindex

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/parley/parley/index"
)

//go:embed migrations/*.sql
var migrations embed.FS

// versionTable records which migrations are applied; it is the engine's
// own, apart from any other schema in the same database.
const versionTable = "search_schema_version"

// migrationLock is the advisory lock that keeps two nodes opening at once
// from migrating together.
const migrationLock = 0x70617273 // "pars"

// parallelWorkers is the setting that lets one statement use parallel
// workers, which the engine's sessions turn off unless the database URL
// sets it: a node answers many requests at once, and a parallel plan
// takes workers that other requests' statements would use, and on a small
// server costs more to start and gather than it saves (at 1M, status AND
// NOT tag AND subject OR: 91 ms with two workers, 47 to 56 ms without).
const parallelWorkers = "max_parallel_workers_per_gather"

// Options tune Open.
type Options struct {
	// Tracer, when set, sees every statement the engine issues (tests
	// check that each filters by company). Migrations run apart from it.
	Tracer pgx.QueryTracer
}

// Engine is the PostgreSQL implementation of index.Engine, index.Faceter and
// index.Suggester.
type Engine struct {
	pool *pgxpool.Pool
	// textPool's sessions plan no plain or index-only scans, for the
	// statements that must reach text through its GIN indexes (see keyed).
	textPool *pgxpool.Pool
	// writtenAtOpen is each search table's rows written (inserted or
	// updated) on the server when the engine opened, for Settle to tell
	// how much a load wrote.
	writtenAtOpen map[string]int64
}

var (
	_ index.Engine  = (*Engine)(nil)
	_ index.Faceter = (*Engine)(nil)
)

// Open connects to the database at url (a postgres:// URL), applies the
// search schema's pending migrations, and returns the engine.
func Open(ctx context.Context, url string, opts Options) (*Engine, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgindex: %w", err)
	}
	if _, err := Migrate(ctx, cfg.ConnConfig.Copy()); err != nil {
		return nil, err
	}
	cfg.ConnConfig.Tracer = opts.Tracer
	e, err := connect(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgindex: %w", err)
	}
	if e.writtenAtOpen, err = e.rowsWritten(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// connect opens the engine's two pools of sessions on one database: the
// text sessions are the others without plain index scans.
func connect(ctx context.Context, cfg *pgxpool.Config) (*Engine, error) {
	if _, set := cfg.ConnConfig.RuntimeParams[parallelWorkers]; !set {
		cfg.ConnConfig.RuntimeParams[parallelWorkers] = "0"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	textCfg := cfg.Copy()
	textCfg.ConnConfig.RuntimeParams[noIndexScans] = "off"
	textPool, err := pgxpool.NewWithConfig(ctx, textCfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Engine{pool: pool, textPool: textPool}, nil
}

// noIndexScans is the setting that the text sessions turn off.
const noIndexScans = "enable_indexscan"

// sessions is the pool a statement runs on: the text sessions when text
// must be reached through its GIN indexes.
func (e *Engine) sessions(text bool) *pgxpool.Pool {
	if text {
		return e.textPool
	}
	return e.pool
}

// Migrate applies the search schema's pending migrations, one node at a
// time (an advisory lock), and returns the names of those it applied (none
// when the schema was up to date), for `parley migrate` to report.
func Migrate(ctx context.Context, cfg *pgx.ConnConfig) (applied []string, err error) {
	return migrate(ctx, cfg, (*goose.Provider).Up)
}

// MigrateTo applies the search schema's migrations up to version and no
// further: the schema an older Parley left, for the tests of an upgrade
// from it.
func MigrateTo(ctx context.Context, cfg *pgx.ConnConfig, version int64) (applied []string, err error) {
	return migrate(ctx, cfg, func(p *goose.Provider, ctx context.Context) ([]*goose.MigrationResult, error) {
		return p.UpTo(ctx, version)
	})
}

func migrate(ctx context.Context, cfg *pgx.ConnConfig, up func(*goose.Provider, context.Context) ([]*goose.MigrationResult, error)) (applied []string, err error) {
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("pgindex: %w", err)
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLock))
	if err != nil {
		return nil, fmt.Errorf("pgindex: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithTableName(versionTable),
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("pgindex: migrations: %w", err)
	}
	results, err := up(p, ctx)
	if err != nil {
		return nil, fmt.Errorf("pgindex: migrate: %w", err)
	}
	for _, r := range results {
		applied = append(applied, path.Base(r.Source.Path))
	}
	return applied, nil
}

// Close closes the connection pools.
func (e *Engine) Close() error {
	e.pool.Close()
	e.textPool.Close()
	return nil
}

// Settle readies the engine's tables for queries after a rebuild or a
// bulk load, with VACUUM (ANALYZE): until autovacuum gets to them, the
// planner takes freshly filled tables for nearly empty ones and picks
// plans that visit every row once per row; the GIN indexes' pending lists
// hold what the load added, which every search reads whole; and no page
// is marked all-visible, so counts that an index could answer alone read
// the table.
//
// A table that the engine wrote at least a quarter of since it opened
// (the load, or the rebuild, that Settle follows) also gets its GIN
// indexes built afresh, without blocking its readers and writers
// (REINDEX CONCURRENTLY): a GIN index filled row by row holds its
// posting lists in many small pieces, and at one million conversations
// the body's index was 605 MB against 512 MB built at once, its scan
// for two common words 62-70 ms against 34-43 ms. PostgreSQL's own
// advice for a bulk load into a GIN index is the same.
func (e *Engine) Settle(ctx context.Context) error {
	written, err := e.rowsWritten(ctx)
	if err != nil {
		return err
	}
	for _, t := range Tables {
		if _, err := e.pool.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return fmt.Errorf("pgindex: vacuum %s: %w", t, err)
		}
		var rows float64
		if err := e.pool.QueryRow(ctx, sqlTableRows, t).Scan(&rows); err != nil {
			return fmt.Errorf("pgindex: rows of %s: %w", t, err)
		}
		if loaded := written[t] - e.writtenAtOpen[t]; loaded <= 0 || float64(loaded)*4 < rows {
			continue
		}
		if err := e.rebuildGIN(ctx, t); err != nil {
			return err
		}
	}
	e.writtenAtOpen = written
	return nil
}

const (
	// sqlRowsWritten reads the server's counts of rows inserted and
	// updated per table (cumulative, as the statistics report them).
	sqlRowsWritten = `SELECT relname, n_tup_ins + n_tup_upd FROM pg_stat_user_tables WHERE relname = ANY($1)`
	// sqlTableRows is the planner's count of a table's rows, as the
	// ANALYZE before it left it.
	sqlTableRows = `SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = $1::regclass`
	// sqlGINIndexes lists a table's GIN indexes.
	sqlGINIndexes = `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = $1::regclass AND a.amname = 'gin' ORDER BY c.relname`
)

// rowsWritten is each search table's rows written on the server so far.
func (e *Engine) rowsWritten(ctx context.Context) (map[string]int64, error) {
	rows, err := e.pool.Query(ctx, sqlRowsWritten, Tables)
	if err != nil {
		return nil, fmt.Errorf("pgindex: table statistics: %w", err)
	}
	written := map[string]int64{}
	var table string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&table, &n}, func() error {
		written[table] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgindex: table statistics: %w", err)
	}
	return written, nil
}

// rebuildGIN builds each GIN index of table afresh, concurrently.
func (e *Engine) rebuildGIN(ctx context.Context, table string) error {
	rows, err := e.pool.Query(ctx, sqlGINIndexes, table)
	if err != nil {
		return fmt.Errorf("pgindex: indexes of %s: %w", table, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("pgindex: indexes of %s: %w", table, err)
	}
	for _, name := range names {
		if _, err := e.pool.Exec(ctx, "REINDEX INDEX CONCURRENTLY "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("pgindex: reindex %s: %w", name, err)
		}
	}
	return nil
}
