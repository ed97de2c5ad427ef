package pgindex

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/query"
)

// TestStaleUntilMarkedWithThisVersion: new tables are stale (never
// marked), marked ones are current, another recorded version is stale
// again; Truncate empties every company's documents.
func TestStaleUntilMarkedWithThisVersion(t *testing.T) {
	ctx := context.Background()
	e, url := open(t)
	stale, err := e.Stale(ctx)
	require.NoError(t, err)
	assert.True(t, stale, "tables never marked are stale")
	require.NoError(t, e.MarkBuilt(ctx))
	require.NoError(t, e.MarkBuilt(ctx), "marking again replaces the one row")
	stale, err = e.Stale(ctx)
	require.NoError(t, err)
	assert.False(t, stale)

	conn := pgtest.Dial(t, url)
	_, err = conn.Exec(ctx, `UPDATE search_state SET mapping_version = 'older'`)
	require.NoError(t, err)
	stale, err = e.Stale(ctx)
	require.NoError(t, err)
	assert.True(t, stale, "another version is stale")

	for company := int64(1); company <= 2; company++ {
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Customers, Company: company,
			Upserts: []index.Document{doc("1", company, nil, map[string][]string{"firstName": {"ann"}}, 1)}}, nil))
	}
	unlock, err := e.LockRebuild(ctx)
	require.NoError(t, err)
	require.NoError(t, e.Truncate(ctx))
	unlock()
	for company := int64(1); company <= 2; company++ {
		res, err := e.Search(ctx, index.Request{Kind: index.Customers, Company: company, Query: query.Match{Field: "firstName", Text: "ann"}, Limit: 10})
		require.NoError(t, err)
		assert.Zero(t, res.Total, "company %d emptied", company)
	}
}

// TestWaitingForTheRebuildLockHoldsNoSnapshot: a node waiting for the
// rebuild lock holds no snapshot, so the holder's REINDEX CONCURRENTLY
// (Settle after a rebuild) finishes. Waiting inside pg_advisory_lock held
// one, the reindex waited for it, and both nodes waited for ever.
func TestWaitingForTheRebuildLockHoldsNoSnapshot(t *testing.T) {
	ctx := context.Background()
	e, url := open(t)
	other, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer other.Close()
	unlock, err := e.LockRebuild(ctx)
	require.NoError(t, err)
	got := make(chan func(), 1)
	go func() {
		unlock, err := other.LockRebuild(ctx)
		if !assert.NoError(t, err) {
			unlock = func() {}
		}
		got <- unlock
	}()
	time.Sleep(300 * time.Millisecond) // the other node is waiting by now

	// Assert, not require: whatever happens, both locks are let go below,
	// or closing the engines would wait for their connections for ever.
	reindex, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = pgtest.Dial(t, url).Exec(reindex, `REINDEX INDEX CONCURRENTLY search_conversation_body_lexemes`)
	assert.NoError(t, err, "the reindex finishes while the other node waits")
	select {
	case unlockOther := <-got:
		t.Error("the other node took the lock while this one held it")
		unlockOther()
		unlock()
		return
	default:
	}
	unlock()
	select {
	case unlockOther := <-got:
		unlockOther()
	case <-time.After(10 * time.Second):
		t.Fatal("the other node never took the lock once it was free")
	}
}
