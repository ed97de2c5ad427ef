// Package pgtest gives tests throwaway PostgreSQL databases: one server
// (started by pgserver, fsync off) serves a test package (see Main); each
// test gets a database of its own (see Database). Where PostgreSQL is not
// installed a test skips with the reason, except under CI (CI=true), where
// it fails (see pgserver.Required).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/parley/parley/internal/pgtest/pgserver"
)

// testSettings trade durability for speed: a test server's data dies
// with the test.
var testSettings = []string{"fsync=off", "synchronous_commit=off", "full_page_writes=off", "shared_buffers=32MB", "max_connections=60"}

// shared is the server of the running test package, started on first use.
var shared struct {
	once   sync.Once
	server *pgserver.Server
	err    error
}

// Main runs a test package's tests and stops its server, if one was
// started, after them. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if shared.server != nil {
		if err := shared.server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return code
}

// Database returns the URL of a new empty database on the package's
// server, dropped when the test ends. It skips the test where PostgreSQL is
// not installed, and fails it instead under CI.
func Database(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.server, shared.err = pgserver.Start(testSettings...) })
	if shared.err != nil {
		if errors.Is(shared.err, pgserver.ErrNotInstalled) && !pgserver.Required() {
			t.Skipf("%v; install PostgreSQL 15 (apt-get install postgresql-15) to run this test", shared.err)
		}
		t.Fatal(shared.err)
	}
	url, err := shared.server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := shared.server.DropDatabase(context.Background(), url); err != nil {
			t.Error(err)
		}
	})
	return url
}
