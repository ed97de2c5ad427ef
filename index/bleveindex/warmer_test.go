package bleveindex

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
)

// TestMergedSegmentsAreWarmed: once a merge has made a new segment, the
// partition reads its columns of the fields sorted pages have used, before
// any search meets it; fields never sorted on are not read.
func TestMergedSegmentsAreWarmed(t *testing.T) {
	ctx := context.Background()
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	for from := 0; from < 300; from += 100 { // three segments
		var docs []index.Document
		for id := from + 1; id <= from+100; id++ {
			d := conversation(strconv.Itoa(id), 1, "refund")
			d.Numbers["createdAt"] = []float64{float64(1_700_000_000_000 + id)}
			docs = append(docs, d)
		}
		apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})
	}
	_, err = e.Search(ctx, index.Request{Kind: index.Conversations, Company: 1,
		Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10})
	require.NoError(t, err)

	require.NoError(t, e.Compact(ctx))
	p, snap, done := snapshot(t, e, 1)
	defer done()
	segs := snap.Segments()
	require.Len(t, segs, 1)
	merged := segs[0].Segment()

	held := func() []string {
		p.columns.mu.Lock()
		defer p.columns.mu.Unlock()
		return slices.Sorted(maps.Keys(p.columns.segs[merged]))
	}
	want := []string{sortField("createdAt"), sortField("id")} // the sort and its tie-break
	slices.Sort(want)
	assert.Eventually(t, func() bool { return slices.Equal(held(), want) }, 10*time.Second, 5*time.Millisecond,
		"held %v", held())
	p.columns.mu.Lock()
	defer p.columns.mu.Unlock()
	assert.Len(t, p.columns.segs[merged][sortField("createdAt")], 300)
}
