package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Dial opens a connection of the test's own to the database at url (to
// inspect plans, catalogs or locks beside the code under test), closed
// when the test ends.
func Dial(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
