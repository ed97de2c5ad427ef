package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/pgstore"
)

// eavTables are the search tables of pgindex's first schema, one row per
// document, keyword, number and text field, which migration 00004
// replaced by one typed table per kind.
var eavTables = []string{"search_documents", "search_keywords", "search_numbers", "search_texts"}

// TestUpgradeFromTheEAVSearchTables: a database whose search schema is at
// migration 3 (the EAV tables, filled, recorded as built) and whose store
// holds the demo company is migrated by `parley migrate` and served: the
// EAV tables are gone, and searches and lists answer what they answer on
// a new database loaded with the same demo.
//
// The store's schema is the current one: records written by an older
// Parley are read through the store's own migrations, which its tests
// cover. The records are written by a store without an indexer, as this
// binary's indexer writes the typed tables, which do not exist yet at
// version 3; the EAV rows stand for what an older indexer wrote (one per
// conversation, which no query of this binary reads).
func TestUpgradeFromTheEAVSearchTables(t *testing.T) {
	ctx := context.Background()
	old := pgtest.Database(t)
	_, err := pgstore.Migrate(ctx, old)
	require.NoError(t, err)
	cfg, err := pgx.ParseConfig(old)
	require.NoError(t, err)
	_, err = pgindex.MigrateTo(ctx, cfg, 3)
	require.NoError(t, err)
	store, err := pgstore.Open(ctx, old, pgstore.Options{})
	require.NoError(t, err)
	require.NoError(t, loadDemoIfEmpty(store.Store(), fixedClock{}))
	require.NoError(t, store.Close())
	conn, err := pgx.Connect(ctx, old)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO search_documents (company_id, kind, doc_id, num_id, fields, sorts)
SELECT c.company_id, 'conversation', c.id::text, c.id, '{id}', '{}' FROM conversations c`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO search_state (mapping_version) VALUES ($1)`, index.MappingVersion)
	require.NoError(t, err)
	eavLeft := func() int {
		t.Helper()
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables t
WHERE t.table_schema = current_schema() AND t.table_name = ANY($1)`, eavTables).Scan(&n))
		return n
	}
	require.Equal(t, len(eavTables), eavLeft(), "the database from before has the EAV tables")

	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"migrate", "--database", old}, &out, &out), out.String())
	assert.Contains(t, out.String(), "search schema: applied 00004_typed_tables.sql")
	assert.Zero(t, eavLeft(), "the EAV tables are dropped")

	fresh, _ := migratedDemo(t)
	upgraded := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--database", old)
	reference := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--database", fresh)
	assert.Contains(t, upgraded.logs.String(), rebuiltMsg, "the first node rebuilds the search tables from the store")
	answer := func(node *inProcess, target string) string {
		t.Helper()
		base := "http://" + node.addr
		res, err := call(ctx, http.MethodGet, base+target, demoToken(t, base), "")
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", target, body)
		return strings.ReplaceAll(string(body), base, "")
	}
	for _, target := range []string{
		"/v2/conversations?status=all&query=" + url.QueryEscape(`body:"refunded"`),
		"/v2/conversations?status=all&sortField=number&sortOrder=asc&query=" + url.QueryEscape(`(subject:"order" OR body:"invoice") AND NOT status:closed`),
		"/v2/conversations?status=all&query=" + url.QueryEscape(`type:email`) + "&page=2",
		"/v2/customers?sortField=lastName&sortOrder=asc&page=2",
		"/v2/conversations?status=active&mailbox=1&sortField=createdAt&sortOrder=desc",
	} {
		want := answer(reference, target)
		assert.NotContains(t, want, `"totalElements":0`, "%s finds something on the new database", target)
		assert.Equal(t, want, answer(upgraded, target), target)
	}
}
