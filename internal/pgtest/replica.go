package pgtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/internal/pgtest/pgserver"
)

// Replicated starts a server of the test's own, with a new database, and
// a streaming replica of it (pg_basebackup -R), and returns the URLs of
// the database on both; both servers stop when the test ends. It skips
// as Database does where PostgreSQL is not installed.
func Replicated(t testing.TB) (primary, replica string) {
	t.Helper()
	// Without synchronous commits the WAL writer flushes, and so sends,
	// the WAL every wal_writer_delay: shorter than its 200ms default, so
	// the replica follows within milliseconds, as on a busy server.
	server, err := pgserver.Start(append(slices.Clone(testSettings), "wal_writer_delay=10ms")...)
	if err != nil {
		if errors.Is(err, pgserver.ErrNotInstalled) && !pgserver.Required() {
			t.Skipf("%v; install PostgreSQL 15 (apt-get install postgresql-15) to run this test", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := server.Stop(); err != nil {
			t.Error(err)
		}
	})
	primary, err = server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	standby, err := server.StartReplica(testSettings...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := standby.Stop(); err != nil {
			t.Error(err)
		}
	})
	cfg, err := pgx.ParseConfig(primary)
	if err != nil {
		t.Fatal(err)
	}
	return primary, standby.URL(cfg.Database)
}
