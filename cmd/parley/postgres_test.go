package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestServeOnPostgres migrates a new database, serves the demo from it,
// and finds a conversation created over HTTP by a search, in a plain list
// and in a report; after a restart, on the same database, it finds it
// again.
func TestServeOnPostgres(t *testing.T) {
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &out, &out), out.String())
	assert.Contains(t, out.String(), "store schema: applied 00001_")
	assert.Contains(t, out.String(), "search schema: applied 00001_")
	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &out, &out), out.String())
	assert.Contains(t, out.String(), "store schema: up to date, nothing applied")
	assert.NotContains(t, out.String(), "applied 0", "a migrated database receives nothing")

	dir := t.TempDir() // holds the mail-outbox folder only
	srv := serveInProcess(t, servingAddr, "serve", "--demo", "--addr", "127.0.0.1:0", "--data", dir, "--database", database)
	base := "http://" + srv.addr
	token := demoToken(t, base)
	require.NotEmpty(t, token, "the demo's credentials sign in")
	ctx := context.Background()
	id, ok := createConversation(ctx, base, token, "Quokka invoice on PostgreSQL")
	require.True(t, ok, "create a conversation")

	found := func() {
		t.Helper()
		search := base + "/v2/conversations?status=all&query=" + url.QueryEscape(`(subject:"quokka")`)
		assert.Equal(t, []int64{id}, listIDs(t, search, token), "found by a query= search (pgindex)")
		list := base + "/v2/conversations?status=active&mailbox=1&sortField=createdAt&sortOrder=desc"
		ids := listIDs(t, list, token)
		require.NotEmpty(t, ids)
		assert.Equal(t, id, ids[0], "first of a plain list (the list engine)")
		res, err := call(ctx, http.MethodGet, base+"/v2/reports/conversations?start=2000-01-01T00:00:00Z&end=2100-01-01T00:00:00Z", token, "")
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "a report runs on pgindex's facets")
	}
	found()
	srv.stop()
	assert.NotContains(t, srv.logs.String(), "postgres://parley", "the database URL stays out of the logs")

	again := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", dir, "--database", database)
	base = "http://" + again.addr
	token = demoToken(t, base)
	found()
	again.stop()
}

// TestServeRefusesAnUnmigratedDatabase: serve names the command that
// creates the schema, and starts nothing.
func TestServeRefusesAnUnmigratedDatabase(t *testing.T) {
	database := pgtest.Database(t)
	var out bytes.Buffer
	code := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--database", database}, &out, &out)
	assert.Equal(t, 1, code)
	assert.Contains(t, out.String(), "parley migrate --database")
	assert.NotContains(t, out.String(), "parley serving")
}

// TestInitOnPostgres creates a company in a migrated database, whose
// application then signs in to a server on it.
func TestInitOnPostgres(t *testing.T) {
	database := pgtest.Database(t)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &errs, &errs), errs.String())
	t.Setenv("PARLEY_DATABASE_URL", database)
	require.Equal(t, 0, run(context.Background(), []string{"init", "--company", "Initech", "--owner", "bill@initech.test"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), `"company": "Initech"`)

	again := &bytes.Buffer{}
	assert.Equal(t, 1, run(context.Background(), []string{"init", "--company", "Initech", "--owner", "bill@initech.test"}, again, again))
	assert.Contains(t, again.String(), "--owner", "the owner's e-mail is taken, in the same database")
}

// TestEmbeddedOnlyCommandsRefuseADatabase: the commands that work on the
// bbolt file and the Bleve index say so, and what to do on PostgreSQL,
// given --database or run where PARLEY_DATABASE_URL is set.
func TestEmbeddedOnlyCommandsRefuseADatabase(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"backup", "--out", "x.db", "--database", "postgres://db.example/parley"}, "", "pg_dump"},
		{[]string{"backup", "--out", "x.db", "--database=postgres://db.example/parley"}, "", "pg_dump"},
		{[]string{"backup", "--out", "x.db"}, "postgres://db.example/parley", "pg_dump"},
		{[]string{"restore", "--from", "x.db", "-database", "postgres://db.example/parley"}, "", "pg_restore"},
		{[]string{"import", "--database", "postgres://db.example/parley", "export.json"}, "", "not yet available on PostgreSQL"},
		{[]string{"app", "list", "--database", "postgres://db.example/parley"}, "", "not yet available on PostgreSQL"},
	} {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			t.Setenv("PARLEY_DATABASE_URL", c.env)
			var out bytes.Buffer
			assert.Equal(t, 1, run(context.Background(), c.args, &out, &out))
			assert.Contains(t, out.String(), "works on the embedded database (--data) only")
			assert.Contains(t, out.String(), c.want)
		})
	}
}

// listIDs reads the ids of a conversation list answer.
func listIDs(t *testing.T, target, token string) []int64 {
	t.Helper()
	res, err := call(context.Background(), http.MethodGet, target, token, "")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var list struct {
		Embedded map[string][]struct{ ID int64 } `json:"_embedded"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
	ids := []int64{}
	for _, c := range list.Embedded["conversations"] {
		ids = append(ids, c.ID)
	}
	return ids
}
