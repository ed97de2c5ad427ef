package index_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
)

// listEngines are the list engine over the fixtures, filled both ways it
// is filled: Load from storage and Apply from the syncer, and the first
// saved and restored.
func listEngines(t *testing.T, e *engines) map[string]*lists.Engine {
	loaded := lists.New()
	require.NoError(t, loaded.Load(e.db.Store(), lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument}))
	require.NoError(t, loaded.WaitReports())
	applied := lists.New()
	require.NoError(t, indexer.NewSyncer(e.db, applied, quiet).Rebuild(context.Background(), nil))
	path, mark := t.TempDir()+"/lists.snapshot", lists.Mark{Store: 1, Seq: 2}
	require.NoError(t, loaded.Save(path, mark))
	restored := lists.New()
	ok, err := restored.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, restored.WaitReports())
	return map[string]*lists.Engine{"loaded": loaded, "applied": applied, "restored": restored}
}

// TestListAggregatesAgree holds the list engine's report rows to the
// oracle: the random aggregates TestAggregatesAgree draws, and facets over
// the same filters and fields, on every report kind. The engine must take
// every request whose filter reads no text.
func TestListAggregatesAgree(t *testing.T) {
	e := loadEngines(t)
	engines := listEngines(t, e)
	g := newQueryGen(t, e.db)
	ctx := context.Background()
	supported, nonEmpty := 0, 0
	for i := 0; i < *randomCount/4; i++ {
		r := randomAggregate(t, g, e, i)
		facets := reportFacetRequest(g, r)
		if !engines["loaded"].AggregateSupported(r) {
			assert.True(t, needsFull(r.Filter), "the list engine refused %+v", r)
			assert.False(t, engines["loaded"].FacetsSupported(facets))
			continue
		}
		supported++
		want, err := e.oracle.(index.Aggregator).Aggregate(ctx, r)
		require.NoError(t, err)
		if len(want.Groups) > 0 {
			nonEmpty++
		}
		require.True(t, engines["loaded"].FacetsSupported(facets), "%+v", facets)
		wantFacets, err := e.oracle.(index.Faceter).Facets(ctx, facets)
		require.NoError(t, err)
		for name, engine := range engines {
			got, err := engine.Aggregate(ctx, r)
			require.NoError(t, err)
			require.Equal(t, roundSums(want), roundSums(got), "%s list engine, aggregate %+v", name, r)
			gotFacets, err := engine.Facets(ctx, facets)
			require.NoError(t, err)
			require.Equal(t, wantFacets, gotFacets, "%s list engine, facets %+v", name, facets)
		}
	}
	assert.Greater(t, supported, *randomCount/8, "the list engine should take most aggregates")
	assert.Greater(t, nonEmpty, supported/3, "too few random aggregates find anything")
}

// reportFacetRequest asks, over an aggregate's filter, for the Values of
// its group and distinct fields and Ranges of its bucketing field.
func reportFacetRequest(g *queryGen, r index.AggregateRequest) index.FacetRequest {
	out := index.FacetRequest{Kind: r.Kind, Company: r.Company, Filter: r.Filter, Values: map[string]string{}, Ranges: map[string]index.RangeFacet{}}
	for _, f := range append(slices.Clone(r.GroupBy), r.Distinct...) {
		out.Values["v-"+f] = f
	}
	if r.By != "" {
		var buckets []index.Bucket
		for i := 0; i+1 < len(r.Edges); i++ {
			lo, hi := r.Edges[i], r.Edges[i+1]
			switch g.r.IntN(5) {
			case 0:
				buckets = append(buckets, index.Bucket{Max: &hi})
			case 1:
				buckets = append(buckets, index.Bucket{Min: &lo})
			default:
				buckets = append(buckets, index.Bucket{Min: &lo, Max: &hi})
			}
		}
		out.Ranges["by"] = index.RangeFacet{Field: r.By, Buckets: buckets}
	}
	return out
}

// needsFull reports whether a conversation filter reads what report
// rows do not hold: text, and the keywords no report reads (sort keys and
// addresses).
func needsFull(n query.Node) bool {
	switch n := n.(type) {
	case query.And:
		return slices.ContainsFunc(n.Nodes, needsFull)
	case query.Or:
		return slices.ContainsFunc(n.Nodes, needsFull)
	case query.Not:
		return needsFull(n.Node)
	case query.Match, query.Phrase, query.Prefix:
		return true
	case query.Keyword:
		return slices.Contains([]string{"email", "customerEmail", "subjectSort", "customerNameSort"}, n.Field)
	case query.FieldExists:
		f, ok := index.FieldOf(index.Conversations, n.Field)
		return ok && f.Type == index.TextField || n.Field == "email"
	}
	return false
}
