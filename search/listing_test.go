package search_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

// TestListPages pages a textless list: page Number of Size, the first page
// for a number below 1, an empty page past the end, the total always.
func TestListPages(t *testing.T) {
	d := newDemo(t)
	ctx := context.Background()
	listing := func(number, size int) search.Listing {
		return search.Listing{Kind: index.Conversations, Company: 1, Filter: query.All{},
			Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Paging: search.Paging{Number: number, Size: size}}
	}
	all, err := search.List(ctx, d.deps.Engine, listing(1, 1000))
	require.NoError(t, err)
	require.Greater(t, all.Total, 7)
	require.Len(t, all.IDs, all.Total)
	for _, tc := range []struct {
		name         string
		number, size int
		want         []string
	}{
		{"first", 1, 3, all.IDs[:3]},
		{"second", 2, 3, all.IDs[3:6]},
		{"below one is the first", 0, 3, all.IDs[:3]},
		{"past the end", all.Total + 1, 3, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := search.List(ctx, d.deps.Engine, listing(tc.number, tc.size))
			require.NoError(t, err)
			assert.Equal(t, search.Keys{IDs: tc.want, Total: all.Total}, got)
		})
	}
}
