package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/headless"
	"github.com/parley/parley/internal/pgtest/pgserver"
)

// TestBenchRunsSmall runs the whole bench at a tiny size, PostgreSQL peer
// included, so it cannot rot; its figures mean nothing at this size. The
// peer runs wherever PostgreSQL is installed, and must under CI.
func TestBenchRunsSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	var table bytes.Buffer
	err := Run(context.Background(), Options{N: 300, HTTP: 60, Clients: 4, Chats: 30, Repeat: 2, Scan: true, PG: true, Backend: true, Out: out, Companies: 2}, &table)
	require.NoError(t, err, table.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res Results
	require.NoError(t, json.Unmarshal(data, &res))
	assert.Equal(t, 300, res.N)
	assert.Len(t, res.Queries, 13+30+3, "the reference queries, the reports, and the lists with and without facets")
	assert.Positive(t, res.HTTPPerSecond)
	assert.Positive(t, res.InternalPerSecond)
	for _, q := range res.Queries {
		assert.Positive(t, q.P50, q.Name)
		if res.Postgres != nil { // the same query on Parley's PostgreSQL backend found as much
			require.NotNil(t, q.Backend, q.Name)
			assert.Positive(t, q.Backend.P50, q.Name)
		}
	}
	require.Len(t, res.Writes, 3, "a write without and with automatic workflows, and the workflows' own time")
	for _, wr := range res.Writes {
		assert.Positive(t, wr.P50, wr.Name)
	}
	assert.Positive(t, res.StoredBytesPerConv)
	assert.Positive(t, res.StorageCompact)
	assert.LessOrEqual(t, res.StoredBytesPerConv, res.LoadedStoredBytesPerConv, "the storage file is compacted after the load")
	assert.Positive(t, res.IndexBytesPerConv)
	assert.Equal(t, res.StoredBytesPerConv+res.IndexBytesPerConv, res.BytesPerConv)
	for _, m := range []MemoryPeaks{res.Memory, res.MemoryWholeRun} {
		assert.Positive(t, m.RSSAnon)
		assert.Positive(t, m.RSSFile)
		assert.Positive(t, m.HeapInuse)
		assert.GreaterOrEqual(t, m.RSS, m.RSSAnon)
	}
	assert.GreaterOrEqual(t, res.MemoryWholeRun.RSS, res.Memory.RSS)
	assert.Positive(t, res.Restart.Ready)
	assert.GreaterOrEqual(t, res.Restart.Ready, res.Restart.Storage+res.Restart.Index+res.Restart.ListEngine)
	assert.Contains(t, table.String(), "10 one conversation with threads")
	assert.Contains(t, table.String(), "time to ready after a restart")

	if res.Postgres == nil {
		require.False(t, pgserver.Required(), "under CI the PostgreSQL peer must run: %s", res.PostgresSkipped)
		t.Skipf("the PostgreSQL peer did not run: %s", res.PostgresSkipped)
	}
	assert.Positive(t, res.Postgres.RowsPerSecond)
	assert.GreaterOrEqual(t, res.Postgres.Conversations, 300, "the generated ones, and those the chats became")
	assert.Greater(t, res.Postgres.Rows, 300, "conversations, threads, customers, chats...")
	assert.Positive(t, res.Postgres.BytesPerConversation)
	for _, q := range res.Queries {
		if strings.HasPrefix(q.Name, "R ") {
			assert.Nil(t, q.Peer, "%s: the reports have no SQL form", q.Name)
			assert.Nil(t, q.PeerHTTP, "%s: the reports have no SQL form", q.Name)
			continue
		}
		require.NotNil(t, q.Peer, "%s has no SQL form", q.Name)
		assert.Positive(t, q.Peer.P50, q.Name)
		assert.Positive(t, q.Peer.Ratio, q.Name)
		if q.Hits > 0 {
			assert.Positive(t, q.Peer.Hits, "%s: Parley finds %d, PostgreSQL nothing", q.Name, q.Hits)
		}
		require.NotNil(t, q.PeerHTTP, "%s was not asked of the peer behind HTTP", q.Name)
		assert.Positive(t, q.PeerHTTP.P50, q.Name)
		assert.Equal(t, q.Peer.Hits, q.PeerHTTP.Hits, "%s: the HTTP service answers what its SQL finds", q.Name)
	}
	assertKeys(t, data)
}

// assertKeys checks that the JSON results hold every figure docs/benchmarks.md
// describes, under its documented name.
func assertKeys(t *testing.T, data []byte) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	memory := []string{"rssBytes", "rssAnonBytes", "rssFileBytes", "heapInuseBytes"}
	for key, nested := range map[string][]string{
		"n": nil, "httpLoaded": nil, "httpConversationsPerSecond": nil, "internalConversationsPerSecond": nil,
		"storedBytesPerConversation": nil, "loadedStoredBytesPerConversation": nil, "storageCompactNanoseconds": nil, "indexBytesPerConversation": nil, "bytesPerConversation": nil, "peakRSSBytes": nil,
		"memory": memory, "memoryWholeRun": memory, "listEngineLoad": nil,
		"restart":  {"storage", "index", "listEngine", "drain", "ready"},
		"postgres": {"version", "rows", "conversations", "duration", "rowsPerSecond", "conversationsPerSecond", "bytesPerConversation"},
	} {
		require.Contains(t, doc, key)
		for _, k := range nested {
			assert.Contains(t, doc[key], k, key)
		}
	}
	first := doc["queries"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "hits", "p50", "p99", "scanP50", "postgres", "postgresHTTP"} {
		assert.Contains(t, first, k)
	}
	for _, k := range []string{"hits", "p50", "p99", "ratio"} {
		assert.Contains(t, first["postgres"], k)
		assert.Contains(t, first["postgresHTTP"], k)
	}
}

// runSmall runs the bench at 300 conversations in dir with o's other
// options, and returns its JSON results and its table.
func runSmall(t *testing.T, dir string, o Options) (Results, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results.json")
	o.N, o.HTTP, o.Clients, o.Chats, o.Repeat, o.Companies, o.Dir, o.Out = 300, 60, 4, 30, 2, 2, dir, out
	var table bytes.Buffer
	require.NoError(t, Run(context.Background(), o, &table), table.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res Results
	require.NoError(t, json.Unmarshal(data, &res))
	return res, table.String()
}

// TestBenchReusesALoadedDirectory runs the bench again on the data a first
// run loaded: the world and clock read back from storage must give every
// query the hits the first run found (the first run's writes touch the
// last company, the queries read the first).
func TestBenchReusesALoadedDirectory(t *testing.T) {
	dir := t.TempDir()
	run := func(o Options) Results {
		t.Helper()
		res, _ := runSmall(t, dir, o)
		return res
	}
	first := run(Options{})
	profiles := t.TempDir()
	again := run(Options{Reuse: true, QueryProfiles: profiles})
	assert.Equal(t, first.At, again.ReusedFrom, "the reused run's clock is the loading run's")
	assert.Zero(t, again.InternalPerSecond)
	assert.Zero(t, again.HTTPPerSecond)
	assert.Positive(t, again.BytesPerConv)
	require.Len(t, again.Queries, len(first.Queries))
	for i, q := range first.Queries {
		assert.Equal(t, q.Name, again.Queries[i].Name)
		assert.Equal(t, q.Hits, again.Queries[i].Hits, q.Name)
		profile, err := os.Stat(filepath.Join(profiles, profileName(q.Name)))
		if assert.NoError(t, err, "-queryprofiles: %s", q.Name) {
			assert.Positive(t, profile.Size(), q.Name)
		}
	}

	only := run(Options{Reuse: true, Only: regexp.MustCompile(`^(8|10) `)})
	var names []string
	for _, q := range only.Queries {
		names = append(names, q.Name)
	}
	assert.Equal(t, []string{"8 last 30 days for one customer", "10 one conversation with threads"}, names, "-only")
}

func TestProfileName(t *testing.T) {
	for query, want := range map[string]string{
		"1 ranked body term":                           "1-ranked-body-term.cpu",
		"3f the same list with every facet (issue 22)": "3f-the-same-list-with-every-facet-issue-22.cpu",
		"R  chats: day/hour (30 days)":                 "r-chats-day-hour-30-days.cpu",
	} {
		assert.Equal(t, want, profileName(query), query)
	}
}

// TestBenchMeasuresTheInbox runs the bench's browser phase at a tiny size:
// it signs in to the inbox in headless Chromium, types each search and
// opens the conversations of 20 threads, and reads the page's own
// measures back. Where Chromium is missing it skips, except under CI.
func TestBenchMeasuresTheInbox(t *testing.T) {
	if headless.Chromium() == "" {
		require.False(t, headless.Required(), "under CI the browser phase must run: Chromium is not installed")
		t.Skip("Chromium is not installed")
	}
	out := filepath.Join(t.TempDir(), "results.json")
	var table bytes.Buffer
	err := Run(context.Background(), Options{N: 300, HTTP: 60, Clients: 4, Chats: 30, Repeat: 2, Companies: 2,
		Browser: true, BrowserRepeat: 2, Out: out}, &table)
	require.NoError(t, err, table.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res Results
	require.NoError(t, json.Unmarshal(data, &res))
	require.Len(t, res.Browser, len(browserQueries)+1, "each search, and the opening of a conversation")
	for i, b := range res.Browser {
		assert.Equal(t, 2, b.Runs, b.Name)
		assert.Positive(t, b.P50, b.Name)
		assert.GreaterOrEqual(t, b.P95, b.P50, b.Name)
		if i < len(browserQueries) {
			assert.Equal(t, browserQueries[i].query, b.Query)
		}
	}
	assert.Positive(t, res.Browser[0].Hits, "the list answered the one-word search")
	assert.Contains(t, table.String(), "open a conversation of 20 threads")
}

// TestBenchKeepsItsPostgreSQLDatabases: with -dir, the PostgreSQL server
// keeps the peer's and Parley-on-PostgreSQL's databases in the data
// directory, and a -reuse run measures them again without loading them:
// the same hits on both, the loads' figures the first run's.
func TestBenchKeepsItsPostgreSQLDatabases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads PostgreSQL twice")
	}
	// Not t.TempDir: under root the server runs as another user, who must
	// reach the data directory through its parents.
	dir, err := os.MkdirTemp("", "bench-kept-")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o755))
	run := func(o Options) (Results, string) {
		t.Helper()
		o.PG, o.Backend, o.Only = o.Reuse, o.Reuse, regexp.MustCompile(`^(3|8|10) `)
		return runSmall(t, dir, o)
	}
	// The data directory is loaded without PostgreSQL, as by an earlier
	// release: the first -reuse run finds no load of its databases, so it
	// loads them, and the next one reuses them.
	loading, _ := run(Options{})
	first, _ := run(Options{Reuse: true})
	if first.Postgres == nil {
		require.False(t, pgserver.Required(), "under CI the PostgreSQL peer must run: %s", first.PostgresSkipped)
		t.Skipf("the PostgreSQL peer did not run: %s", first.PostgresSkipped)
	}
	require.NotNil(t, first.PostgresBackend)
	assert.Empty(t, first.Postgres.LoadedBy)
	assert.Empty(t, first.PostgresBackend.LoadedBy)
	assert.DirExists(t, filepath.Join(dir, keptServerDir, "data"))

	again, table := run(Options{Reuse: true})
	require.NotNil(t, again.Postgres)
	require.NotNil(t, again.PostgresBackend)
	assert.Equal(t, loading.At, again.Postgres.LoadedBy, "the peer is the one the first -reuse run loaded, on the loading run's clock")
	assert.Equal(t, loading.At, again.PostgresBackend.LoadedBy, "so is Parley on PostgreSQL")
	assert.Equal(t, first.Postgres.Rows, again.Postgres.Rows)
	assert.NotContains(t, table, "loading the PostgreSQL peer")
	assert.NotContains(t, table, "into Parley on PostgreSQL")
	assert.Contains(t, table, "(loaded by the run of "+loading.At+")")
	require.Len(t, again.Queries, len(first.Queries))

	// The kept Parley database is one parley serve starts on at once: its
	// search tables are recorded as built by this mapping version.
	server, err := pgserver.StartIn(filepath.Join(dir, keptServerDir), peerSettings...)
	require.NoError(t, err)
	defer func() { assert.NoError(t, server.Stop()) }()
	search, err := pgindex.Open(context.Background(), server.URL(backendDatabase), pgindex.Options{})
	require.NoError(t, err)
	defer search.Close()
	stale, err := search.Stale(context.Background())
	require.NoError(t, err)
	assert.False(t, stale, "a node started on the kept database would rebuild its search tables")

	for i, q := range first.Queries {
		require.NotNil(t, again.Queries[i].Peer, q.Name)
		require.NotNil(t, again.Queries[i].Backend, q.Name)
		assert.Equal(t, q.Peer.Hits, again.Queries[i].Peer.Hits, q.Name)
		assert.Equal(t, q.Backend.Hits, again.Queries[i].Backend.Hits, q.Name)
	}
}
