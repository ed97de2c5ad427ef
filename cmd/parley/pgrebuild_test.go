package main

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
	"github.com/parley/parley/query"
)

// rebuiltMsg is what a node logs when it rebuilds the search tables.
const rebuiltMsg = "rebuilding the search tables from the store"

// migratedDemo migrates a new database and opens it once with the demo,
// and returns its URL and a connection to it.
func migratedDemo(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"migrate", "--database", database}, &out, &out), out.String())
	in, err := open(ctx, location{url: database}, true, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	require.NoError(t, in.close())
	conn, err := pgx.Connect(ctx, database)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return database, conn
}

// markerDocument is a search row of no record, for a company that does
// not exist: only emptying the search tables removes it.
const markerDocument = `INSERT INTO search_conversation (company_id, doc_id, fields, tag, customer_id, email, reply_user_id, activity_at, reply_at, response_seconds, response_office_seconds,
	subject_lexemes, subject_stems, subject_runs, body_lexemes, body_stems, body_runs, customer_name_lexemes, customer_name_stems, customer_name_runs)
VALUES (424242, 'marker', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '', '', '', '', '', '', '', '', '')`

func markerPresent(t *testing.T, conn *pgx.Conn) bool {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM search_conversation d WHERE d.company_id = 424242 AND d.doc_id = 'marker'`).Scan(&n))
	return n > 0
}

func recordedVersion(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var v string
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT s.mapping_version FROM search_state s`).Scan(&v))
	return v
}

// TestUpgradeRebuildsTheSearchTables: search tables recorded as built by
// another mapping version are rebuilt from the store when a node opens
// the database: rows made stale on purpose are right again, a row of no
// record is gone, and a write committed during the rebuild (to a
// conversation the rebuild had already indexed) reaches the tables.
// Tables recorded as current are left alone.
func TestUpgradeRebuildsTheSearchTables(t *testing.T) {
	ctx := context.Background()
	database, conn := migratedDemo(t)
	assert.Equal(t, index.MappingVersion, recordedVersion(t, conn), "the first open builds and marks the tables")

	// What an older Parley left: another version, and documents that are
	// not what this binary's indexer makes.
	_, err := conn.Exec(ctx, `UPDATE search_state SET mapping_version = 'older'`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `UPDATE search_conversation t SET body_lexemes = '', body_stems = '', body_runs = '' WHERE t.company_id = 1`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, markerDocument)
	require.NoError(t, err)

	// A write during the rebuild, to the first conversation, which the
	// first rebuild batch holds by the time progress is reported.
	writer, err := pgstore.Open(ctx, database, pgstore.Options{Indexer: pgsearch.Write}) // as another node's store writes
	require.NoError(t, err)
	defer writer.Close()
	var first int64
	require.NoError(t, writer.Store().View(ctx, func(tx parley.Tx) error {
		return tx.EachConversationID(func(_, id int64) {
			if first == 0 {
				first = id
			}
		})
	}))
	var writeOnce sync.Once
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	logProgress := rebuildProgress(&bytes.Buffer{}, log)
	progress := func(done, total int) {
		logProgress(done, total)
		writeOnce.Do(func() {
			_, err = writer.Store().Update(ctx, func(tx parley.Tx) error {
				c, err := tx.Conversation(1, first)
				if err != nil {
					return err
				}
				c.Subject = "Wombat during the rebuild"
				return tx.PutConversation(c)
			})
			require.NoError(t, err)
		})
	}
	in, err := open(ctx, location{url: database}, false, fixedClock{}, log, progress)
	require.NoError(t, err)
	assert.Contains(t, logs.String(), rebuiltMsg)
	m := regexp.MustCompile(`done=(\d+) total=(\d+)`).FindAllStringSubmatch(logs.String(), -1)
	require.NotEmpty(t, m, "the rebuild reports its progress")
	assert.Equal(t, m[len(m)-1][2], m[len(m)-1][1], "the last report is the whole way")

	search := func(q query.Node) index.Result {
		t.Helper()
		res, err := in.pgSearch.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: q,
			Sort: []index.Sort{{Field: "id"}}, Limit: 1000})
		require.NoError(t, err)
		return res
	}
	assert.Greater(t, search(bodyMatch("refunded")).Total, 100, "the deleted body rows are back")
	assert.Equal(t, []string{index.FormatID(first)}, search(query.Match{Field: "subject", Text: "wombat"}).IDs,
		"the write committed during the rebuild is in the search tables")
	assert.False(t, markerPresent(t, conn), "the tables were emptied before the rebuild")
	assert.Equal(t, index.MappingVersion, recordedVersion(t, conn))
	require.NoError(t, in.close())

	// Current tables are not rebuilt: the marker stays.
	_, err = conn.Exec(ctx, markerDocument)
	require.NoError(t, err)
	logs.Reset()
	in, err = open(ctx, location{url: database}, false, fixedClock{}, log, nil)
	require.NoError(t, err)
	require.NoError(t, in.close())
	assert.NotContains(t, logs.String(), rebuiltMsg)
	assert.True(t, markerPresent(t, conn), "current tables are not emptied")
}

// TestNodesStartingTogetherRebuildOnce: two nodes opening a database with
// stale search tables at once rebuild them once; the other waits and
// finds them current.
func TestNodesStartingTogetherRebuildOnce(t *testing.T) {
	ctx := context.Background()
	database, conn := migratedDemo(t)
	_, err := conn.Exec(ctx, `UPDATE search_state SET mapping_version = 'older'`)
	require.NoError(t, err)

	var wg sync.WaitGroup
	logs := make([]bytes.Buffer, 2)
	nodes := make([]*instance, 2)
	errs := make([]error, 2)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i], errs[i] = open(ctx, location{url: database}, false, fixedClock{}, slog.New(slog.NewTextHandler(&logs[i], nil)), nil)
		}()
	}
	wg.Wait()
	rebuilt := 0
	for i, node := range nodes {
		require.NoError(t, errs[i])
		rebuilt += strings.Count(logs[i].String(), rebuiltMsg)
		res, err := node.pgSearch.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Query: bodyMatch("refunded"), Limit: 1})
		require.NoError(t, err)
		assert.Greater(t, res.Total, 100, "node %d searches rebuilt tables", i)
		require.NoError(t, node.close())
	}
	assert.Equal(t, 1, rebuilt, "one node rebuilds")
	assert.Equal(t, index.MappingVersion, recordedVersion(t, conn))
}

// TestReindexOnPostgres: `parley reindex --database URL` rebuilds current
// search tables too (the marker goes, the deleted rows come back), reports
// it, and leaves them marked current.
func TestReindexOnPostgres(t *testing.T) {
	ctx := context.Background()
	database, conn := migratedDemo(t)
	_, err := conn.Exec(ctx, markerDocument)
	require.NoError(t, err)
	var out bytes.Buffer
	require.Equal(t, 0, run(ctx, []string{"reindex", "--database", database}, &out, &out), out.String())
	assert.Contains(t, out.String(), rebuiltMsg)
	assert.Contains(t, out.String(), "search tables rebuilt")
	assert.NotContains(t, out.String(), database, "the database URL stays out of the output")
	assert.False(t, markerPresent(t, conn), "the tables were emptied and rebuilt")
	assert.Equal(t, index.MappingVersion, recordedVersion(t, conn))
	var docs int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM search_conversation d WHERE d.company_id = 1`).Scan(&docs))
	assert.Greater(t, docs, 100, "the demo company's documents are back")
}
