package index_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/enginetest"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
)

// listEngines are the list engine over the fixtures, filled both ways it
// is filled: Load from storage and Apply from the syncer, and the first
// saved and restored.
func listEngines(t *testing.T, e *engines) map[string]*lists.Engine {
	loaded := lists.New()
	loaded.Load(e.db.Store(), lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument})
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

// reportEngines are the engines that answer the report kinds' requests:
// the list engine, filled every way it is filled (embedded nodes), and
// pgindex (PostgreSQL nodes, which hold no list engine).
func reportEngines(t *testing.T, e *engines, lists map[string]*lists.Engine) map[string]enginetest.Engine {
	out := map[string]enginetest.Engine{}
	for name, l := range lists {
		out[name+" list engine"] = l
	}
	out["postgres"] = e.open(t, "postgres").(enginetest.Engine)
	return out
}

// TestListAggregatesAgree holds the list engine's report rows, and
// pgindex's tables, to the oracle: the random aggregates TestAggregatesAgree draws, and facets over
// the same filters and fields, on every report kind. The engine must take
// every request whose filter reads no text.
func TestListAggregatesAgree(t *testing.T) {
	e := loadEngines(t)
	lists := listEngines(t, e)
	engines := reportEngines(t, e, lists)
	g := newQueryGen(t, e.db)
	ctx := context.Background()
	supported, nonEmpty := 0, 0
	for i := 0; i < *randomCount/4; i++ {
		r := randomAggregate(t, g, e, i)
		facets := reportFacetRequest(g, r)
		if !lists["loaded"].AggregateSupported(r) {
			assert.True(t, needsFull(r.Filter), "the list engine refused %+v", r)
			assert.False(t, lists["loaded"].FacetsSupported(facets))
			continue
		}
		supported++
		want, err := e.oracle.(index.Aggregator).Aggregate(ctx, r)
		require.NoError(t, err)
		if len(want.Groups) > 0 {
			nonEmpty++
		}
		require.True(t, lists["loaded"].FacetsSupported(facets), "%+v", facets)
		wantFacets, err := e.oracle.(index.Faceter).Facets(ctx, facets)
		require.NoError(t, err)
		for name, engine := range engines {
			got, err := engine.Aggregate(ctx, r)
			require.NoError(t, err)
			require.Equal(t, roundSums(want), roundSums(got), "%s, aggregate %+v", name, r)
			gotFacets, err := engine.Facets(ctx, facets)
			require.NoError(t, err)
			require.Equal(t, wantFacets, gotFacets, "%s, facets %+v", name, facets)
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

// TestListTextlessSearchAgrees holds the searches on the textless kinds
// of the engines that answer them (the list engine embedded, through
// index.Router; pgindex on PostgreSQL) to the oracle:
// random filters over each kind's fields, every sortable field either way
// or none, pages and counts, filled every way the engine is filled.
func TestListTextlessSearchAgrees(t *testing.T) {
	e := loadEngines(t)
	engines := reportEngines(t, e, listEngines(t, e))
	g := newQueryGen(t, e.db)
	ctx := context.Background()
	for _, kind := range index.Kinds {
		if !kind.Textless() {
			continue
		}
		t.Run(string(kind), func(t *testing.T) {
			sorts := [][]index.Sort{nil}
			for _, f := range index.Catalog[kind] {
				if f.Sortable {
					sorts = append(sorts, []index.Sort{{Field: f.Name}}, []index.Sort{{Field: f.Name, Desc: true}})
				}
			}
			hits := 0
			for i := 0; i < *randomCount/4; i++ {
				company := int64(1 + i%2)
				words := textlessWords(t, e, kind, company)
				r := index.Request{Kind: kind, Company: company, Filter: textlessFilter(g, kind, words, 0),
					Sort: sorts[i%len(sorts)], Offset: g.r.IntN(3) * 5, Limit: pickOne(g.r, []int{0, 5, 50})}
				if i%7 == 0 {
					r.Filter = nil
				}
				want, err := e.oracle.Search(ctx, r)
				require.NoError(t, err)
				if want.Total > 0 {
					hits++
				}
				for name, engine := range engines {
					got, err := engine.Search(ctx, r)
					require.NoError(t, err)
					require.Equal(t, want, got, "%s, %+v", name, r)
				}
			}
			assert.Greater(t, hits, *randomCount/16, "too few generated filters match anything")
		})
	}
}

// textlessWords are the values of each keyword field of a kind's
// documents of a company, as the oracle counts them.
func textlessWords(t *testing.T, e *engines, kind index.Kind, company int64) map[string][]string {
	r := index.FacetRequest{Kind: kind, Company: company, Values: map[string]string{}}
	for _, f := range index.Catalog[kind] {
		if f.Type == index.KeywordField {
			r.Values[f.Name] = f.Name
		}
	}
	res, err := e.oracle.(index.Faceter).Facets(context.Background(), r)
	require.NoError(t, err)
	out := map[string][]string{}
	for field, counts := range res.Values {
		for v := range counts {
			out[field] = append(out[field], v)
		}
		slices.Sort(out[field])
	}
	return out
}

// textlessFilter draws a filter over a kind's fields: keywords (mostly
// values some document holds), ranges of numbers and dates with open or
// closed bounds, presence, and their NOT, AND and OR.
func textlessFilter(g *queryGen, kind index.Kind, words map[string][]string, depth int) query.Node {
	if depth < 2 {
		switch g.r.IntN(6) {
		case 0:
			return query.Not{Node: textlessFilter(g, kind, words, depth+1)}
		case 1:
			return query.And{Nodes: []query.Node{textlessFilter(g, kind, words, depth+1), textlessFilter(g, kind, words, depth+1)}}
		case 2:
			return query.Or{Nodes: []query.Node{textlessFilter(g, kind, words, depth+1), textlessFilter(g, kind, words, depth+1)}}
		}
	}
	f := pickOne(g.r, index.Catalog[kind])
	switch {
	case g.r.IntN(8) == 0:
		return query.FieldExists{Field: f.Name}
	case f.Type == index.KeywordField:
		value := "none of them"
		if vs := words[f.Name]; len(vs) > 0 && g.r.IntN(6) > 0 {
			value = pickOne(g.r, vs)
		}
		return query.Keyword{Field: f.Name, Value: value}
	case strings.HasSuffix(f.Name, "At"):
		from := fixtureNow.Add(-time.Duration(g.r.IntN(400)) * 24 * time.Hour)
		to := from.Add(time.Duration(1+g.r.IntN(200)) * 24 * time.Hour)
		n := query.TimeRange{Field: f.Name, From: &from, To: &to, FromInclusive: g.r.IntN(2) == 0, ToInclusive: g.r.IntN(2) == 0}
		switch g.r.IntN(4) {
		case 0:
			n.From = nil
		case 1:
			n.To = nil
		}
		return n
	}
	lo, hi := float64(g.r.IntN(500)), float64(500+g.r.IntN(5000))
	n := query.NumberRange{Field: f.Name, Min: &lo, Max: &hi, MinInclusive: g.r.IntN(2) == 0, MaxInclusive: g.r.IntN(2) == 0}
	if g.r.IntN(4) == 0 {
		n.Min = nil
	}
	return n
}
