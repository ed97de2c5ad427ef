package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/transfer"
)

// TestCopyThroughPostgres copies the demo from a data directory into
// PostgreSQL and back into another data directory: each copy verifies
// itself, the round trip's records equal the original's, the API answers
// the same on all three, and a second copy into a filled target is
// refused.
func TestCopyThroughPostgres(t *testing.T) {
	ctx := context.Background()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"migrate", "--database", database}, &out, &out), out.String())

	original, back := t.TempDir(), t.TempDir()
	demo, err := open(ctx, location{dir: original}, true, parley.ClockFunc(func() time.Time { return copyClock }), quietLogger(), nil)
	require.NoError(t, err)
	require.NoError(t, demo.close())

	for _, c := range [][]string{{"--from", original, "--to", database}, {"--from", database, "--to", back}} {
		out.Reset()
		require.Equal(t, 0, run(ctx, append([]string{"copy"}, c...), &out, &out), out.String())
		assert.Contains(t, out.String(), "the copy matches its source")
		assert.Contains(t, out.String(), "conversations by a word of the newest subject")
		assert.NotContains(t, out.String(), "DIFFERENT")
	}

	out.Reset()
	assert.Equal(t, 1, run(ctx, []string{"copy", "--from", original, "--to", database, "--company", "1"}, &out, &out))
	assert.Contains(t, out.String(), "the target is not empty: company 1 (")

	compareStores(t, original, back)

	bases := map[string]string{}
	for name, args := range map[string][]string{"original": {"--data", original}, "round trip": {"--data", back},
		"PostgreSQL": {"--data", t.TempDir(), "--database", database}} {
		srv := serveInProcess(t, servingAddr, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		bases[name] = "http://" + srv.addr
	}
	for _, path := range []string{
		"/v2/conversations?status=all&sortField=createdAt&sortOrder=desc&page=2",
		"/v2/conversations?status=active&mailbox=1&query=" + "(body:refund)",
		"/v2/conversations/1?embed=threads",
		"/v2/customers?sortField=lastName",
		"/v2/mailboxes/1/folders",
		"/v2/users",
	} {
		want := get(t, bases["original"], path)
		assert.True(t, strings.HasPrefix(want, "200 OK\n"), "%s: %.200s", path, want)
		assert.Equal(t, want, get(t, bases["round trip"], path), "round trip: %s", path)
		assert.Equal(t, want, get(t, bases["PostgreSQL"], path), "PostgreSQL: %s", path)
	}
}

var copyClock = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// compareStores compares every company's records of two data directories.
func compareStores(t *testing.T, a, b string) {
	t.Helper()
	open := func(dir string) *storage.DB {
		db, err := storage.Open(dbPath(dir), storage.Options{})
		require.NoError(t, err)
		return db
	}
	left, right := open(a), open(b)
	defer left.Close()
	defer right.Close()
	companies, err := transfer.Companies(left.Store(), nil)
	require.NoError(t, err)
	require.NotEmpty(t, companies)
	for _, company := range companies {
		counts, err := transfer.Compare(left.Store(), right.Store(), company)
		require.NoError(t, err)
		for _, c := range counts {
			assert.True(t, c.Same, "company %d, %s: %d and %d", company, c.Kind, c.Source, c.Target)
		}
	}
}

// get answers a GET with the demo's credentials: status and body, the
// server's address in links replaced by BASE.
func get(t *testing.T, base, path string) string {
	t.Helper()
	res, err := call(context.Background(), http.MethodGet, base+path, demoToken(t, base), "")
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.Status + "\n" + strings.ReplaceAll(string(body), base, "BASE")
}

// TestCopyRefusesBadArguments: what copy needs is named, before anything
// is opened.
func TestCopyRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", dir}, "copy needs --from and --to"},
		{[]string{"--to", dir}, "copy needs --from and --to"},
		{[]string{"--from", dir, "--to", dir}, "--from and --to name the same place"},
		{[]string{"--from", dir + "/missing", "--to", t.TempDir()}, "no Parley database in " + dir + "/missing"},
	} {
		var out bytes.Buffer
		assert.Equal(t, 1, run(context.Background(), append([]string{"copy"}, c.args...), &out, &out), "%v", c.args)
		assert.Contains(t, out.String(), c.want, "%v", c.args)
	}
}
