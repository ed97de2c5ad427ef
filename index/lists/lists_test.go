package lists_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/query"
)

// doc is the list document of a conversation (export_test.go).
var doc = lists.Doc

// TestSearch covers the rules the randomized agreement test in package
// index exercises at scale, on rows small enough to read: ties on the id,
// missing values last in both directions, paging, counting, moves between
// statuses and deletes.
func TestSearch(t *testing.T) {
	e := lists.New()
	ctx := context.Background()
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{
		doc(1, 1, "active", 100, 0, "vip"), doc(2, 1, "active", 300, 50), doc(3, 1, "closed", 300, 0, "vip"),
		doc(4, 1, "pending", 200, 70), doc(6, 1, "spam", 50, 0),
	}}, nil))
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 2, Upserts: []index.Document{doc(5, 2, "active", 900, 0)}}, nil))
	status := func(s string) query.Node { return query.Keyword{Field: "status", Value: s} }
	since := time.UnixMilli(200)
	cases := []struct {
		name  string
		r     index.Request
		total int
		ids   []string
	}{
		{"newest first, id breaks the tie", index.Request{Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10}, 5, []string{"3", "2", "4", "1", "6"}},
		{"oldest first", index.Request{Sort: []index.Sort{{Field: "createdAt"}}, Limit: 10}, 5, []string{"6", "1", "4", "2", "3"}},
		{"missing last ascending", index.Request{Sort: []index.Sort{{Field: "waitingSince"}}, Limit: 2}, 5, []string{"2", "4"}},
		{"missing last descending", index.Request{Sort: []index.Sort{{Field: "waitingSince", Desc: true}}, Limit: 3}, 5, []string{"4", "2", "6"}},
		{"status set", index.Request{Filter: query.Or{Nodes: []query.Node{status("active"), status("pending")}}, Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10}, 3, []string{"2", "4", "1"}},
		{"tag and date", index.Request{Filter: query.And{Nodes: []query.Node{query.Keyword{Field: "tag", Value: "vip"},
			query.TimeRange{Field: "createdAt", From: &since, FromInclusive: true}}}, Limit: 10}, 1, []string{"3"}},
		{"second page", index.Request{Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Offset: 2, Limit: 2}, 5, []string{"4", "1"}},
		{"beyond the last page", index.Request{Offset: 10, Limit: 2}, 5, []string{}},
		{"count only", index.Request{Filter: status("active")}, 2, []string{}},
		{"nothing", index.Request{Filter: query.Not{Node: query.All{}}, Limit: 5}, 0, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.Kind, tc.r.Company = index.Conversations, 1
			require.True(t, e.Supports(tc.r))
			got, err := e.Search(ctx, tc.r)
			require.NoError(t, err)
			assert.Equal(t, index.Result{Total: tc.total, IDs: tc.ids}, got)
		})
	}

	// A status change moves the row; a delete removes it.
	require.NoError(t, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{doc(1, 1, "closed", 100, 0)}, Deletes: []string{"2"}}, nil))
	got, err := e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Filter: status("active"), Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, index.Result{Total: 0, IDs: []string{}}, got)
	got, err = e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Filter: status("closed"), Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, index.Result{Total: 2, IDs: []string{"3", "1"}}, got)
}

func TestSupports(t *testing.T) {
	e := lists.New()
	cases := []struct {
		name string
		r    index.Request
		want bool
	}{
		{"plain list", index.Request{Kind: index.Conversations, Sort: []index.Sort{{Field: "createdAt", Desc: true}}}, true},
		{"a text query", index.Request{Kind: index.Conversations, Query: query.Match{Field: "body", Text: "refund"}}, false},
		{"a text filter", index.Request{Kind: index.Conversations, Filter: query.Match{Field: "subject", Text: "refund"}}, false},
		{"a multi-valued number", index.Request{Kind: index.Conversations, Filter: query.NumberRange{Field: "customerId"}}, false},
		{"sorted by subject", index.Request{Kind: index.Conversations, Sort: []index.Sort{{Field: "subjectSort"}}}, false},
		{"sorted by score", index.Request{Kind: index.Conversations, Sort: []index.Sort{{Field: index.ScoreField}}}, false},
		{"customers", index.Request{Kind: index.Customers}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, e.Supports(tc.r)) })
	}
}

func TestSearchHonoursItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lists.New().Search(ctx, index.Request{Kind: index.Conversations, Company: 1, Limit: 1})
	assert.ErrorIs(t, err, context.Canceled)
}
