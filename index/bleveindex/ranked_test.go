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

// TestRankedPagesFollowBleveOrder: a page ranked by relevance, kept by a
// rankedPage, is the same slice of hits as Bleve's own collector orders
// them (a page deeper than maxRankedPage goes through it), over documents
// built to tie: few words, so many equal scores; few dates, so equal
// scores tie on dates too; some without a date, which rank last among
// their equals.
func TestRankedPagesFollowBleveOrder(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()

	rnd := rand.New(rand.NewPCG(3, 5))
	const n = 600
	var docs []index.Document
	for id := 1; id <= n; id++ {
		words := []string{"refund"}
		for range rnd.IntN(3) {
			words = append(words, []string{"order", "late", "refund", "parcel"}[rnd.IntN(4)])
		}
		d := conversation(strconv.Itoa(id), 1, strings.Join(words, " "))
		if rnd.IntN(5) > 0 {
			d.Numbers["createdAt"] = []float64{float64(1_700_000_000_000 + 1000*rnd.IntN(8))}
		}
		docs = append(docs, d)
	}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})

	search := func(offset, limit int) index.Result {
		t.Helper()
		res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
			Query: query.Match{Field: "subject", Text: "refund"}, Sort: []index.Sort{{Field: index.ScoreField, Desc: true}},
			Offset: offset, Limit: limit})
		require.NoError(t, err)
		return res
	}
	whole := search(0, maxRankedPage+1) // Bleve's collector
	require.Len(t, whole.IDs, n)
	for _, page := range [][2]int{{0, 1}, {0, 10}, {0, 25}, {5, 20}, {100, 50}, {580, 25}, {590, 10}, {0, maxRankedPage}, {700, 50}} {
		t.Run(fmt.Sprintf("offset %d limit %d", page[0], page[1]), func(t *testing.T) {
			offset, limit := page[0], page[1]
			want := whole.IDs[min(offset, n):min(offset+limit, n)]
			got := search(offset, limit)
			assert.Equal(t, n, got.Total)
			assert.Equal(t, want, got.IDs)
		})
	}
}
