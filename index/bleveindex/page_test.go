package bleveindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// TestSortedPagesFollowBleveOrder: a page kept by a sortedPage, ranked by
// relevance or sorted on numbers, is the same slice of hits as Bleve's own
// collector orders them (a page deeper than maxSortedPage goes through
// it). The documents are built to tie: few words, so many equal scores;
// few dates, so equal scores tie on dates too; some without a date or a
// waiting time, which sort last; negative numbers (sortKey's order of
// fractional ones is TestSortKeyOrdersLikeNumbers'). They arrive in
// several batches, so in several segments, some replaced and some deleted
// by later batches, and the pages are asked again after each.
func TestSortedPagesFollowBleveOrder(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()

	rnd := rand.New(rand.NewPCG(3, 5))
	const n = 600
	doc := func(id int) index.Document {
		words := []string{"refund"}
		for range rnd.IntN(3) {
			words = append(words, []string{"order", "late", "refund", "parcel"}[rnd.IntN(4)])
		}
		d := conversation(strconv.Itoa(id), 1, strings.Join(words, " "))
		if rnd.IntN(5) > 0 {
			d.Numbers["createdAt"] = []float64{float64(1_700_000_000_000 + 1000*rnd.IntN(8))}
		}
		if rnd.IntN(3) > 0 {
			d.Numbers["waitingSince"] = []float64{float64(rnd.IntN(7)-3) * 1500}
		}
		return d
	}
	type request struct {
		name  string
		sort  []index.Sort
		query query.Node
	}
	refund := query.Match{Field: "subject", Text: "refund"}
	requests := []request{
		{"ranked", []index.Sort{{Field: index.ScoreField, Desc: true}}, refund},
		{"newest first", []index.Sort{{Field: "createdAt", Desc: true}}, refund},
		{"oldest first", []index.Sort{{Field: "createdAt"}}, refund},
		{"waiting, then newest", []index.Sort{{Field: "waitingSince"}, {Field: "createdAt", Desc: true}}, query.Match{Field: "subject", Text: "late"}},
		{"by id, no query", []index.Sort{{Field: "id", Desc: true}}, nil},
	}
	check := func(t *testing.T, want int) {
		for _, r := range requests {
			search := func(offset, limit int) index.Result {
				t.Helper()
				res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
					Query: r.query, Sort: r.sort, Offset: offset, Limit: limit})
				require.NoError(t, err)
				return res
			}
			whole := search(0, maxSortedPage+1) // Bleve's collector
			if r.query == nil {
				require.Len(t, whole.IDs, want)
			}
			for _, page := range [][2]int{{0, 1}, {0, 10}, {0, 25}, {5, 20}, {100, 50}, {580, 25}, {590, 10}, {0, maxSortedPage}, {700, 50}} {
				t.Run(fmt.Sprintf("%s offset %d limit %d", r.name, page[0], page[1]), func(t *testing.T) {
					offset, limit := page[0], page[1]
					n := len(whole.IDs)
					want := whole.IDs[min(offset, n):min(offset+limit, n)]
					got := search(offset, limit)
					assert.Equal(t, whole.Total, got.Total)
					assert.Equal(t, want, got.IDs)
				})
			}
		}
	}

	live := map[int]bool{}
	for from := 1; from <= n; from += n / 3 { // three segments
		var docs []index.Document
		for id := from; id < from+n/3; id++ {
			docs = append(docs, doc(id))
			live[id] = true
		}
		apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})
	}
	t.Run("three segments", func(t *testing.T) { check(t, len(live)) })

	var again []index.Document
	var gone []string
	for id := 1; id <= n; id += 7 {
		again = append(again, doc(id))
	}
	for id := 3; id <= n; id += 11 {
		gone = append(gone, strconv.Itoa(id))
		delete(live, id)
	}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: again, Deletes: gone})
	t.Run("replaced and deleted", func(t *testing.T) { check(t, len(live)) })

	require.NoError(t, e.Compact(context.Background()))
	t.Run("compacted", func(t *testing.T) { check(t, len(live)) })
}
