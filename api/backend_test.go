package api_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backend is the storage and search a world runs on.
type backend string

const (
	embedded backend = "embedded" // bbolt and Bleve
	postgres backend = "postgres" // pgstore and pgindex
)

// suiteEnv selects the backend of every test that does not choose one:
// PARLEY_API_BACKEND=postgres go test ./api runs the whole suite on
// PostgreSQL; unset, it runs embedded, and the tests of onEachBackend run
// on both.
const suiteEnv = "PARLEY_API_BACKEND"

func suiteBackend() backend {
	if backend(os.Getenv(suiteEnv)) == postgres {
		return postgres
	}
	return embedded
}

// worldDB is what a world needs of either backend's database.
type worldDB interface {
	api.Database
	parley.WebhookSource
	parley.MailSource
	SetBeforeCommit(fn parley.BeforeCommit)
	Close() error
}

// onEachBackend runs a test on both backends, as subtests named after
// them, against the same golden files: the API answers the same whichever
// backend holds its records. Where PostgreSQL is not installed the
// postgres subtest skips (and fails under CI; see pgtest).
func onEachBackend(t *testing.T, test func(t *testing.T, on backend)) {
	for _, on := range []backend{embedded, postgres} {
		t.Run(string(on), func(t *testing.T) { test(t, on) })
	}
}

// openPostgres migrates a database of the test's own and opens the store
// and the search engine on it, as `parley migrate` and `parley serve
// --database` do, and returns them with the database's URL. tracer, when
// not nil, sees every statement of the store.
func openPostgres(t *testing.T, tracer pgx.QueryTracer) (worldDB, index.Engine, string) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.Database(t)
	_, err := pgstore.Migrate(ctx, url)
	require.NoError(t, err)
	db, err := pgstore.Open(ctx, url, pgstore.Options{Tracer: tracer, Indexer: pgsearch.Write})
	require.NoError(t, err)
	engine, err := pgindex.Open(ctx, url, pgindex.Options{})
	require.NoError(t, err)
	return db, engine, url
}
