// Package enginetest lists the search engines that tests hold to the scan
// oracle, so that each test runs every engine as one entry of a table
// rather than repeating itself per engine. It is test support: only tests
// import it.
package enginetest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/storage"
)

// Engine is a search engine that also counts facets and aggregates.
type Engine interface {
	index.Engine
	index.Faceter
	index.Aggregator
}

// Case is one engine under test: Open returns it empty, closed when the
// test ends.
type Case struct {
	Name string
	Open func(t *testing.T) Engine
}

// Cases are the engines every conformance test runs on. Test packages
// using the postgres case stop its server from TestMain with pgtest.Main.
var Cases = []Case{
	{"bleve", func(t *testing.T) Engine {
		b, err := bleveindex.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}},
	{"postgres", openPostgres},
}

// openPostgres opens the PostgreSQL engine on a database of its own and,
// when the test ends, checks that every statement it ran kept to one
// company.
func openPostgres(t *testing.T) Engine {
	rec := &pgtest.Recorder{}
	e, err := pgindex.Open(context.Background(), pgtest.Database(t), pgindex.Options{Tracer: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		rec.AssertTenant(t, pgindex.Tables, pgindex.AnyCompany, 1)
	})
	return e
}

// Fill indexes every record of db in e, as a rebuild does, and settles an
// engine that needs it after a bulk load (PostgreSQL's planner takes
// freshly filled tables for empty ones until VACUUM (ANALYZE)).
func Fill(t *testing.T, db *storage.DB, e index.Engine) {
	t.Helper()
	ctx := context.Background()
	if err := indexer.NewSyncer(db, e, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if a, ok := e.(interface{ Settle(context.Context) error }); ok {
		if err := a.Settle(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
