// Package pgindex is Parley's PostgreSQL search engine: documents in four
// tables (documents, keywords, numbers, texts) whose keys start with the
// company, query nodes translated to SQL (tsvector and GIN for words,
// phrases and prefixes, trigrams for fragments, btree for filters and
// sorts), and facets as SQL aggregates. It answers exactly what the scan
// oracle answers: text is analysed in Go with index.Tokens and index.Stem,
// never by PostgreSQL's dictionaries, so both sides agree on what a word
// is and on its forms.
//
// The schema is created by versioned migrations (goose, embedded SQL),
// applied when the engine opens.
package pgindex

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"

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
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgindex: %w", err)
	}
	return &Engine{pool: pool}, nil
}

// Migrate applies the search schema's pending migrations, one node at a
// time (an advisory lock), and returns the names of those it applied (none
// when the schema was up to date), for `parley migrate` to report.
func Migrate(ctx context.Context, cfg *pgx.ConnConfig) (applied []string, err error) {
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
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgindex: migrate: %w", err)
	}
	for _, r := range results {
		applied = append(applied, path.Base(r.Source.Path))
	}
	return applied, nil
}

// Close closes the connection pool.
func (e *Engine) Close() error {
	e.pool.Close()
	return nil
}

// Tables lists the tables holding a document's rows; each is keyed by
// company first, and every statement on them filters by company.
var Tables = []string{"search_documents", "search_keywords", "search_numbers", "search_texts"}

// Apply replaces the upserted documents and removes the deleted ones in
// one transaction, with one statement per table. The batch is durable once
// committed, so durable hears of it before Apply returns.
func (e *Engine) Apply(ctx context.Context, batch index.Batch, durable func(error)) error {
	kind := batch.Kind
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		byCompany := map[int64][]string{}
		if batch.Company == 0 {
			owned, err := owners(ctx, tx, kind, batch.Deletes)
			if err != nil {
				return err
			}
			byCompany = owned
		} else if len(batch.Deletes) > 0 {
			byCompany[batch.Company] = append([]string{}, batch.Deletes...)
		}
		deleted := map[string]bool{}
		for _, id := range batch.Deletes {
			deleted[id] = true
		}
		docs := map[int64]map[string]index.Document{}
		for _, d := range batch.Upserts {
			byCompany[d.Company] = append(byCompany[d.Company], d.ID)
			if deleted[d.ID] {
				continue // a batch's deletes win over its upserts, as in the other engines
			}
			if docs[d.Company] == nil {
				docs[d.Company] = map[string]index.Document{}
			}
			docs[d.Company][d.ID] = d // the last of one id wins
		}
		companies := make([]int64, 0, len(byCompany))
		for c := range byCompany {
			companies = append(companies, c)
		}
		slices.Sort(companies) // one order for every writer, against deadlocks
		b := &pgx.Batch{}
		for _, company := range companies {
			ids := byCompany[company]
			slices.Sort(ids)
			ids = slices.Compact(ids)
			for _, t := range Tables {
				b.Queue("DELETE FROM "+t+" x WHERE x.company_id = $1 AND x.kind = $2 AND x.doc_id = ANY($3)", company, string(kind), ids)
			}
			if len(docs[company]) > 0 {
				rows, err := newRows(kind, docs[company])
				if err != nil {
					return err
				}
				rows.queue(b, company, kind)
			}
		}
		if b.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("pgindex: apply %s batch: %w", kind, err)
	}
	if durable != nil {
		durable(nil)
	}
	return nil
}

// owners finds the company of each document to delete in a batch whose
// company is unknown (index.Batch: an outbox entry older than entries that
// name their company), so this is the one statement that does not filter
// by company; the tenant test allows it by its marker comment.
func owners(ctx context.Context, tx pgx.Tx, kind index.Kind, ids []string) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, "SELECT o.company_id, o.doc_id FROM search_documents o WHERE o.kind = $1 AND o.doc_id = ANY($2) "+AnyCompany, string(kind), ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var company int64
		var id string
		if err := rows.Scan(&company, &id); err != nil {
			return nil, err
		}
		out[company] = append(out[company], id)
	}
	return out, rows.Err()
}

// AnyCompany marks the statements that may not filter by company: only
// the lookup of deleted documents' owners (see owners).
const AnyCompany = "/* any company: a legacy delete carries no company */"

// rows are the table rows of a company's documents, column by column, for
// INSERT ... SELECT FROM unnest: one statement per table.
type rows struct {
	docIDs, fieldLists   []string
	sorts                []string
	numIDs               []*float64
	kwDoc, kwField       []string
	kwOrd                []int32
	kwValue              []string
	kwSubstrings         []bool
	numDoc, numField     []string
	numValue             []float64
	txtDoc, txtField     []string
	txtLexemes, txtStems []string
	txtRun               []string
}

func newRows(kind index.Kind, docs map[string]index.Document) (*rows, error) {
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	r := &rows{}
	for _, id := range ids {
		d := docs[id]
		r.docIDs = append(r.docIDs, id)
		present := d.Present()
		sort.Strings(present)
		r.fieldLists = append(r.fieldLists, textArray(present))
		var numID *float64
		if vs := d.Numbers["id"]; len(vs) > 0 {
			m := slices.Min(vs)
			numID = &m
		}
		r.numIDs = append(r.numIDs, numID)
		keys, err := sortKeys(kind, d)
		if err != nil {
			return nil, fmt.Errorf("document %s: %w", id, err)
		}
		r.sorts = append(r.sorts, keys)
		for _, field := range sortedKeys(d.Keywords) {
			f, _ := index.FieldOf(kind, field)
			values := make([]string, len(d.Keywords[field]))
			for i, v := range d.Keywords[field] {
				values[i] = text(v)
			}
			slices.Sort(values)
			for i, v := range slices.Compact(values) {
				r.kwDoc, r.kwField, r.kwOrd = append(r.kwDoc, id), append(r.kwField, field), append(r.kwOrd, int32(i))
				r.kwValue, r.kwSubstrings = append(r.kwValue, v), append(r.kwSubstrings, f.Substrings)
			}
		}
		for _, field := range sortedKeys(d.Numbers) {
			values := slices.Clone(d.Numbers[field])
			slices.Sort(values)
			for _, v := range slices.Compact(values) {
				r.numDoc, r.numField, r.numValue = append(r.numDoc, id), append(r.numField, field), append(r.numValue, v)
			}
		}
		for _, field := range sortedKeys(d.Texts) {
			values := d.Texts[field]
			if len(values) == 0 {
				continue
			}
			lexemes, stems, runs, err := analyse(values)
			if err != nil {
				return nil, fmt.Errorf("document %s field %s: %w", id, field, err)
			}
			r.txtDoc, r.txtField = append(r.txtDoc, id), append(r.txtField, field)
			r.txtLexemes, r.txtStems, r.txtRun = append(r.txtLexemes, lexemes), append(r.txtStems, stems), append(r.txtRun, runs)
		}
	}
	return r, nil
}

func (r *rows) queue(b *pgx.Batch, company int64, kind index.Kind) {
	k := string(kind)
	b.Queue(`INSERT INTO search_documents (company_id, kind, doc_id, num_id, fields, sorts)
SELECT $1, $2, u.doc_id, u.num_id, u.fields::text[], u.sorts::jsonb FROM unnest($3::text[], $4::float8[], $5::text[], $6::text[]) AS u(doc_id, num_id, fields, sorts)`,
		company, k, r.docIDs, r.numIDs, r.fieldLists, r.sorts)
	if len(r.kwDoc) > 0 {
		b.Queue(`INSERT INTO search_keywords (company_id, kind, doc_id, field, ord, value, substrings)
SELECT $1, $2, u.doc_id, u.field, u.ord, u.value, u.substrings FROM unnest($3::text[], $4::text[], $5::int4[], $6::text[], $7::bool[]) AS u(doc_id, field, ord, value, substrings)`,
			company, k, r.kwDoc, r.kwField, r.kwOrd, r.kwValue, r.kwSubstrings)
	}
	if len(r.numDoc) > 0 {
		b.Queue(`INSERT INTO search_numbers (company_id, kind, doc_id, field, value)
SELECT $1, $2, u.doc_id, u.field, u.value FROM unnest($3::text[], $4::text[], $5::float8[]) AS u(doc_id, field, value)`,
			company, k, r.numDoc, r.numField, r.numValue)
	}
	if len(r.txtDoc) > 0 {
		b.Queue(`INSERT INTO search_texts (company_id, kind, doc_id, field, lexemes, stems, runs)
SELECT $1, $2, u.doc_id, u.field, u.lexemes::tsvector, u.stems::tsvector, u.runs FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(doc_id, field, lexemes, stems, runs)`,
			company, k, r.txtDoc, r.txtField, r.txtLexemes, r.txtStems, r.txtRun)
	}
}

// sortKeys is the JSON object of a document's sort keys: for each sortable
// number or keyword field of the catalog, its smallest value as text
// (numbers in the shortest form that reads back as the same float8).
func sortKeys(kind index.Kind, d index.Document) (string, error) {
	keys := map[string]string{}
	for _, f := range index.Catalog[kind] {
		if !f.Sortable {
			continue
		}
		switch f.Type {
		case index.NumberField:
			if vs := d.Numbers[f.Name]; len(vs) > 0 {
				keys[f.Name] = float8(slices.Min(vs))
			}
		case index.KeywordField:
			if vs := d.Keywords[f.Name]; len(vs) > 0 {
				values := make([]string, len(vs))
				for i, v := range vs {
					values[i] = text(v)
				}
				keys[f.Name] = slices.Min(values)
			}
		}
	}
	b, err := json.Marshal(keys)
	return string(b), err
}

// float8 writes v as PostgreSQL's float8 input reads it back exactly.
func float8(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Analyze refreshes the planner's statistics of the engine's tables. Call
// it after a rebuild or a bulk load: until autovacuum gets to them, the
// planner takes freshly filled tables for nearly empty ones and picks
// plans that visit every row once per row.
func (e *Engine) Analyze(ctx context.Context) error {
	for _, t := range Tables {
		if _, err := e.pool.Exec(ctx, "ANALYZE "+t); err != nil {
			return fmt.Errorf("pgindex: analyze %s: %w", t, err)
		}
	}
	return nil
}
