package lists

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// TestOrdersAgreeWithScans runs lists that the sorted orders answer (a
// filter of statuses and mailboxes, a range on a date) on an engine whose
// parts use orders and compares each answer with a plain scan's, through
// rounds of writes that put, move between statuses, change the sort
// values of and delete rows, enough of them that orders are dropped and
// built again.
func TestOrdersAgreeWithScans(t *testing.T) {
	defer func(was int) { minOrdered = was }(minOrdered)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(18, 1))
	statuses := []string{"active", "pending", "closed"}
	doc := func(id int64) index.Document {
		d := index.NewDocument(index.FormatID(id), 1)
		d.Numbers["id"] = []float64{float64(id)}
		d.Numbers["number"] = []float64{float64(id)}
		d.Numbers["mailboxId"] = []float64{float64(1 + rng.IntN(4))}
		d.Numbers["createdAt"] = []float64{float64(rng.IntN(500))} // many ties: the id breaks them
		if rng.IntN(10) > 0 {
			d.Numbers["modifiedAt"] = []float64{float64(rng.IntN(1000))}
		}
		d.Keywords["status"] = []string{statuses[rng.IntN(len(statuses))]}
		if rng.IntN(4) == 0 {
			d.Keywords["tag"] = []string{"vip"}
		}
		return d
	}
	e := New()
	var docs []index.Document
	for id := int64(1); id <= 3000; id++ {
		docs = append(docs, doc(id))
	}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs}, nil))

	status := func(s ...string) query.Node { return query.AnyKeyword("status", s) }
	boxes := func(ids ...int64) query.Node { return query.AnyID("mailboxId", ids) }
	at := func(ms int64) *time.Time { v := time.UnixMilli(ms).UTC(); return &v }
	num := func(v float64) *float64 { return &v }
	and := func(nodes ...query.Node) query.Node {
		return query.And{Nodes: append([]query.Node{query.All{}}, nodes...)}
	}
	filters := map[string]query.Node{
		"everything":                 nil,
		"all statuses":               and(status("active", "pending", "closed")),
		"one status, two mailboxes":  and(status("active"), boxes(1, 3)),
		"two mailbox conditions":     and(boxes(1, 2, 3), boxes(2, 3, 4), status("closed", "pending")),
		"two status conditions":      and(status("active", "pending"), status("pending", "closed")),
		"a week of modifiedAt":       and(status("active"), query.TimeRange{Field: "modifiedAt", From: at(900), FromInclusive: true}),
		"a closed range, exclusive":  and(query.TimeRange{Field: "createdAt", From: at(100), To: at(130)}),
		"a closed range, inclusive":  and(query.TimeRange{Field: "createdAt", From: at(100), To: at(130), FromInclusive: true, ToInclusive: true}),
		"an upper bound only":        and(query.TimeRange{Field: "modifiedAt", To: at(40), ToInclusive: true}, boxes(2)),
		"a number range and a tag":   and(query.NumberRange{Field: "number", Min: num(10), Max: num(200), MinInclusive: true}, query.Keyword{Field: "tag", Value: "vip"}),
		"a range with nothing in it": and(query.TimeRange{Field: "createdAt", From: at(5000)}),
	}
	sorts := [][]index.Sort{
		{{Field: "createdAt", Desc: true}}, {{Field: "createdAt"}}, {{Field: "modifiedAt", Desc: true}},
		{{Field: "modifiedAt"}}, {{Field: "number"}}, {{Field: "status"}},
	}
	pages := [][2]int{{0, 25}, {100, 25}, {0, 0}, {2990, 50}}
	search := func(ordered bool, r index.Request) index.Result {
		minOrdered = 1 << 40
		if ordered {
			minOrdered = 0
		}
		res, err := e.Search(ctx, r)
		require.NoError(t, err)
		return res
	}
	for round := range 8 {
		for name, f := range filters {
			for _, s := range sorts {
				for _, pg := range pages {
					r := index.Request{Kind: index.Conversations, Company: 1, Filter: f, Sort: s, Offset: pg[0], Limit: pg[1]}
					require.Equal(t, search(false, r), search(true, r), "round %d: %s, sorted by %v, page %v", round, name, s, pg)
				}
			}
		}
		if round == 0 { // the searches above built orders and used them
			for status, p := range e.parts[1] {
				require.NotEmpty(t, p.orders, status)
			}
		}
		// Writes between rounds: new values, moves between statuses,
		// deletes and new rows; the later rounds write enough to drop
		// the orders.
		writes := 50 << round
		var upserts []index.Document
		var deletes []string
		for range writes {
			id := int64(1 + rng.IntN(3000+round*100))
			if rng.IntN(5) == 0 {
				deletes = append(deletes, index.FormatID(id))
				continue
			}
			upserts = append(upserts, doc(id))
		}
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: upserts}, nil))
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Deletes: deletes}, nil))
	}
}

// TestTableOrdersAgreeWithScans reads report rows through a range on a
// date, by the table's order and by a scan, and requires the same rows in
// the same order, through rounds of puts (replacing rows, so some die),
// deletes and rows with several values of the date or none.
func TestTableOrdersAgreeWithScans(t *testing.T) {
	defer func(was int) { minOrdered = was }(minOrdered)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(18, 2))
	doc := func(id int) index.Document {
		d := index.NewDocument(fmt.Sprintf("chat-%d", id), 1)
		switch n := rng.IntN(20); {
		case n == 0: // no date: never in a range
		case n == 1:
			d.Numbers["createdAt"] = []float64{float64(rng.IntN(1000)), float64(rng.IntN(1000))}
		default:
			d.Numbers["createdAt"] = []float64{float64(rng.IntN(1000))}
		}
		d.Numbers["waitSeconds"] = []float64{float64(rng.IntN(60))}
		return d
	}
	e := New()
	var docs []index.Document
	for id := range 4000 {
		docs = append(docs, doc(id))
	}
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Chats, Company: 1, Upserts: docs}, nil))
	at := func(ms int64) *time.Time { v := time.UnixMilli(ms).UTC(); return &v }
	num := func(v float64) *float64 { return &v }
	filters := map[string]query.Node{
		"a month":              query.TimeRange{Field: "createdAt", From: at(300), To: at(330), FromInclusive: true},
		"a month, exclusive":   query.TimeRange{Field: "createdAt", From: at(300), To: at(330), ToInclusive: true},
		"and a wait":           query.And{Nodes: []query.Node{query.TimeRange{Field: "createdAt", To: at(20), ToInclusive: true}, query.NumberRange{Field: "waitSeconds", Min: num(30)}}},
		"from a day on":        query.TimeRange{Field: "createdAt", From: at(980)},
		"nothing in the range": query.TimeRange{Field: "createdAt", From: at(5000)},
		"too broad to order":   query.TimeRange{Field: "createdAt", From: at(100)},
	}
	rows := func(ordered bool, f query.Node) []int32 {
		minOrdered = 1 << 40
		if ordered {
			minOrdered = 0
		}
		var out []int32
		require.NoError(t, e.scan(ctx, e.tables[tableKey{1, index.Chats}], f, func(i int32) { out = append(out, i) }))
		return out
	}
	for round := range 6 {
		for name, f := range filters {
			require.Equal(t, rows(false, f), rows(true, f), "round %d: %s", round, name)
		}
		var upserts []index.Document
		var deletes []string
		for range 60 << round {
			id := rng.IntN(4000 + 100*round)
			if rng.IntN(5) == 0 {
				deletes = append(deletes, fmt.Sprintf("chat-%d", id))
				continue
			}
			upserts = append(upserts, doc(id))
		}
		require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Chats, Company: 1, Upserts: upserts, Deletes: deletes}, nil))
		if round == 0 {
			require.NotEmpty(t, e.tables[tableKey{1, index.Chats}].sorted.by, "the ranges built an order")
		}
	}
}
