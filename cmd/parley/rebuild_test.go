package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/query"
)

// TestUpgradeRebuildsTheIndex: an index written under another mapping
// version (an older Parley) is rebuilt from storage when the data
// directory opens, with its progress reported, and searches find what the
// new analysis finds.
func TestUpgradeRebuildsTheIndex(t *testing.T) {
	dir := t.TempDir()
	in, err := open(context.Background(), location{dir: dir}, true, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	require.NoError(t, in.close())

	// What an older Parley left: the index marked with another version,
	// and an index of the layout before partitions.
	require.NoError(t, os.WriteFile(filepath.Join(indexPath(dir), "VERSION"), []byte("10"), 0o600))
	old, err := bleve.New(filepath.Join(indexPath(dir), "conversation.bleve"), bleve.NewIndexMapping())
	require.NoError(t, err)
	require.NoError(t, old.Close())

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	in, err = open(context.Background(), location{dir: dir}, false, fixedClock{}, log, rebuildProgress(&bytes.Buffer{}, log))
	require.NoError(t, err)
	defer in.close()
	assert.Contains(t, logs.String(), "building the search index from storage")
	assert.Regexp(t, `msg="rebuilding the search index" done=(\d+) total=(\d+) mappingVersion=`+index.MappingVersion, logs.String())
	m := regexp.MustCompile(`done=(\d+) total=(\d+)`).FindAllStringSubmatch(logs.String(), -1)
	require.NotEmpty(t, m)
	last := m[len(m)-1]
	assert.Equal(t, last[2], last[1], "the last report is the whole way")

	// The rebuilt index has the new analysis: word forms match.
	res, err := in.search.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
		Query: bodyMatch("refunded"), Limit: 1})
	require.NoError(t, err)
	assert.Greater(t, res.Total, 100, "refunded finds every form of refund")
	assert.NoDirExists(t, filepath.Join(indexPath(dir), "conversation.bleve"), "the old layout is gone")
}

func bodyMatch(text string) query.Match { return query.Match{Field: "body", Text: text} }

// TestRebuildProgressLogs: away from a terminal, a line every tenth.
func TestRebuildProgressLogs(t *testing.T) {
	var logs bytes.Buffer
	progress := rebuildProgress(&bytes.Buffer{}, slog.New(slog.NewTextHandler(&logs, nil)))
	for done := 1; done <= 1000; done++ {
		progress(done, 1000)
	}
	assert.Equal(t, 10, strings.Count(logs.String(), "rebuilding the search index"), logs.String())
	assert.Contains(t, logs.String(), "done=100 total=1000")
	assert.Contains(t, logs.String(), "done=1000 total=1000")
}

// TestRebuildFillsTheListEngine: when the index is built afresh, the list
// engine starts empty and the rebuild fills it through the router, instead
// of the list engine also loading itself from storage, which read and
// decoded every conversation and its threads a second time. Its rows then
// answer, on every kind, as those of an engine loaded from storage.
func TestRebuildFillsTheListEngine(t *testing.T) {
	ctx := context.Background()
	dir := seededDir(t)
	// Storage alone, as a bulk load killed before its index was built
	// leaves it: no index, no list engine snapshot.
	require.NoError(t, os.RemoveAll(indexPath(dir)))
	require.NoError(t, os.Remove(listsPath(dir)))

	var read atomic.Int64
	counted := listProjection
	defer func(p lists.Projection) { listProjection = p }(listProjection)
	listProjection = lists.Projection{
		List: func(tx parley.Tx, c *parley.Conversation) (index.Document, bool) {
			read.Add(1)
			return counted.List(tx, c)
		},
		Conversation: func(tx parley.Tx, c *parley.Conversation, yield func(index.Kind, index.Document)) error {
			read.Add(1)
			return counted.Conversation(tx, c, yield)
		},
		Chat: func(tx parley.Tx, company int64, id string) (index.Document, bool, error) {
			read.Add(1)
			return counted.Chat(tx, company, id)
		},
	}
	in, err := open(ctx, location{dir: dir}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer in.close()
	require.NoError(t, in.fast.WaitReports())
	assert.Zero(t, read.Load(), "records the list engine read from storage itself")

	loaded := lists.New()
	defer loaded.Close()
	loaded.Load(in.bolt.Store(), counted)
	require.NoError(t, loaded.WaitReports())
	for _, kind := range index.Kinds {
		if kind == index.Customers {
			continue // the list engine keeps no customers
		}
		req := index.Request{Kind: kind, Company: 1, Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10_000}
		want, err := loaded.Search(ctx, req)
		require.NoError(t, err, kind)
		require.NotZero(t, want.Total, kind)
		got, err := in.fast.Search(ctx, req)
		require.NoError(t, err, kind)
		assert.Equal(t, want, got, kind)
	}
}
