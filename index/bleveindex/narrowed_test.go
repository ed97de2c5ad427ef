package bleveindex

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// TestNarrowedRangesAgree: a range ANDed with a tag finds the same
// conversations whether the tag is selective (the range checked on doc
// values, each candidate in turn) or not (the range's term searchers),
// at bounds that fall exactly on values, open or closed, and for
// conversations without the field.
func TestNarrowedRangesAgree(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()

	const n = narrowLimit + 200 // "every" then has too many to check one by one
	waiting := func(id int) (float64, bool) { return float64(id * 10), id%3 != 0 }
	var docs []index.Document
	for id := 1; id <= n; id++ {
		d := conversation(strconv.Itoa(id), 1, "hello")
		d.Keywords["tag"] = []string{"every"}
		if id%50 == 0 {
			d.Keywords["tag"] = append(d.Keywords["tag"], "some")
		}
		if v, ok := waiting(id); ok {
			d.Numbers["waitingSince"] = []float64{v}
		}
		docs = append(docs, d)
	}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})

	at := func(v float64) *float64 { return &v }
	ranges := []struct {
		name             string
		min, max         *float64
		minIncl, maxIncl bool
	}{
		{"closed on values", at(1000), at(2500), true, true},
		{"open on values", at(1000), at(2500), false, false},
		{"half open", at(1000), at(2500), true, false},
		{"from only", at(40000), nil, false, false},
		{"to only", nil, at(500), false, true},
		{"to only, open", nil, at(500), false, false},
		{"between values", at(1005), at(2495), true, true},
		{"empty", at(2000), at(1000), true, true},
	}
	for _, tc := range ranges {
		for _, tag := range []string{"some", "every"} {
			t.Run(tc.name+"/"+tag, func(t *testing.T) {
				want := []string{}
				for id := n; id >= 1; id-- {
					v, ok := waiting(id)
					in := ok && (tag == "every" || id%50 == 0) &&
						(tc.min == nil || v > *tc.min || tc.minIncl && v == *tc.min) &&
						(tc.max == nil || v < *tc.max || tc.maxIncl && v == *tc.max)
					if in {
						want = append(want, strconv.Itoa(id))
					}
				}
				q := query.And{Nodes: []query.Node{
					query.Keyword{Field: "tag", Value: tag},
					query.NumberRange{Field: "waitingSince", Min: tc.min, Max: tc.max, MinInclusive: tc.minIncl, MaxInclusive: tc.maxIncl},
				}}
				res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Query: q,
					Sort: []index.Sort{{Field: "id", Desc: true}}, Limit: n})
				require.NoError(t, err)
				assert.Equal(t, len(want), res.Total)
				assert.Equal(t, want, res.IDs)
			})
		}
	}
}
