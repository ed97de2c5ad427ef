package main

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
)

// TestListSnapshotAcrossRestarts: a clean close saves the list engine's
// rows; the next open uses them (and removes the file, so a crash later
// cannot bring back rows older than the outbox) and answers lists exactly
// as an engine loaded from storage does, also for a write made after the
// restore.
func TestListSnapshotAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	dir := seededDir(t)
	require.FileExists(t, listsPath(dir), "a clean close saves the rows")

	requests := []index.Request{
		{Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 50},
		{Filter: query.Keyword{Field: "status", Value: "closed"}, Sort: []index.Sort{{Field: "number"}}, Offset: 10, Limit: 20},
		{Filter: query.And{Nodes: []query.Node{query.EqualID("mailboxId", 1), query.Keyword{Field: "tag", Value: "refund"}}}, Limit: 50},
	}
	agree := func(in *instance) {
		t.Helper()
		loaded := lists.New()
		loaded.Load(in.db.Store(), listProjection)
		require.NoError(t, loaded.WaitReports())
		require.NoError(t, in.fast.WaitReports()) // the rows fill after the start
		for i, r := range requests {
			r.Kind, r.Company = index.Conversations, 1
			require.True(t, in.fast.Supports(r))
			want, err := loaded.Search(ctx, r)
			require.NoError(t, err)
			require.NotZero(t, want.Total, "request %d finds something", i)
			got, err := in.fast.Search(ctx, r)
			require.NoError(t, err)
			assert.Equal(t, want, got, "request %d", i)
		}
	}

	in, err := open(ctx, location{dir: dir}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	assert.NoFileExists(t, listsPath(dir), "a used snapshot is removed")
	agree(in)
	closeOne(t, in) // a write after the restore, then a clean close
	require.NoError(t, in.close())

	in, err = open(ctx, location{dir: dir}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer in.close()
	agree(in)

	// A snapshot of another storage state is not used.
	require.NoError(t, in.fast.Save(listsPath(dir), lists.Mark{Store: 1, Seq: 1}))
	fresh, restored, damaged, err := lists.Open(in.bolt, dbPath(dir), listsPath(dir), listProjection)
	require.NoError(t, err)
	require.NoError(t, damaged)
	assert.False(t, restored)
	assert.NotNil(t, fresh)
	_, err = os.Stat(listsPath(dir))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// closeOne closes the conversation with the highest id of company 1
// straight in storage and lets the syncer apply it.
func closeOne(t *testing.T, in *instance) {
	t.Helper()
	res, err := in.fast.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
		Filter: query.Keyword{Field: "status", Value: "active"}, Sort: []index.Sort{{Field: "id", Desc: true}}, Limit: 1})
	require.NoError(t, err)
	require.Len(t, res.IDs, 1)
	_, err = in.bolt.Update(func(tx *storage.Tx) error {
		c, err := tx.ConversationByID(index.ParseIDs(res.IDs)[0])
		if err != nil {
			return err
		}
		c.Status = parley.StatusClosed
		return tx.PutConversation(c)
	})
	require.NoError(t, err)
	require.NoError(t, in.syncer.Drain(context.Background()))
}

// seededDir is a data directory opened with the demo data and closed
// cleanly, for a test to open again as a later start would.
func seededDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	in, err := open(context.Background(), location{dir: dir}, true, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	require.NoError(t, in.close())
	return dir
}
