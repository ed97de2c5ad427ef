package index_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
)

// recording is a full engine that keeps the kinds of the batches and
// requests it is given.
type recording struct {
	applied, searched, counted []index.Kind
}

func (r *recording) Apply(_ context.Context, b index.Batch, durable func(error)) error {
	r.applied = append(r.applied, b.Kind)
	durable(nil)
	return nil
}

func (r *recording) Search(_ context.Context, req index.Request) (index.Result, error) {
	r.searched = append(r.searched, req.Kind)
	return index.Result{IDs: []string{}}, nil
}

func (r *recording) Aggregate(_ context.Context, req index.AggregateRequest) (index.AggregateResult, error) {
	r.counted = append(r.counted, req.Kind)
	return index.AggregateResult{}, nil
}

func (r *recording) Facets(_ context.Context, req index.FacetRequest) (index.FacetResult, error) {
	r.counted = append(r.counted, req.Kind)
	return index.FacetResult{}, nil
}

func (r *recording) Close() error { return nil }

// TestTextlessKinds: messages, calls and chats are the kinds without text.
func TestTextlessKinds(t *testing.T) {
	assert.Equal(t, []index.Kind{index.Chats, index.Calls, index.Messages}, index.TextlessKinds())
}

// TestRouterKeepsTextlessKindsFromFull: the batches of a textless kind go
// to the list engine alone, durable at once, and so do its searches,
// facets and aggregates; other kinds reach the full engine.
func TestRouterKeepsTextlessKindsFromFull(t *testing.T) {
	ctx := context.Background()
	full, fast := &recording{}, lists.New()
	router := index.Router{Full: full, Fast: fast}
	message := index.NewDocument("7", 1)
	message.Numbers["createdAt"] = []float64{5}
	customer := index.NewDocument("3", 1)
	durable := 0
	for _, b := range []index.Batch{
		{Kind: index.Messages, Company: 1, Upserts: []index.Document{message}},
		{Kind: index.Customers, Company: 1, Upserts: []index.Document{customer}},
		{Kind: index.Chats, Company: 1, Deletes: []string{"c1"}},
	} {
		require.NoError(t, router.Apply(ctx, b, func(err error) {
			require.NoError(t, err)
			durable++
		}))
	}
	assert.Equal(t, []index.Kind{index.Customers}, full.applied)
	assert.Equal(t, 3, durable)

	got, err := router.Search(ctx, index.Request{Kind: index.Messages, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{"7"}, Total: 1}, got)
	_, err = router.Search(ctx, index.Request{Kind: index.Customers, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, []index.Kind{index.Customers}, full.searched)

	counts, err := router.Facets(ctx, index.FacetRequest{Kind: index.Messages, Company: 1, Values: map[string]string{"from": "from"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]map[string]int{"from": {}}, counts.Values)
	groups, err := router.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: 1, By: "createdAt", Edges: []float64{0, 10}})
	require.NoError(t, err)
	assert.Equal(t, []index.Group{{Bucket: 0, Key: []string{}, Count: 1, Sums: map[string]index.Sum{}, Distinct: map[string]int{}}}, groups.Groups)
	assert.Empty(t, full.counted)
}
