package pgindex

import (
	"context"
	"testing"

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
