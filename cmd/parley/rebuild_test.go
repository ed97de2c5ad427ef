package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
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
