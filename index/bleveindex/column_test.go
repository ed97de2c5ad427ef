package bleveindex

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
)

// TestSortedPagesWhileSegmentsMerge: sorted pages are asked while batches
// add segments and compactions merge them away, so searches on older
// snapshots meet searches on newer ones that forget the merged segments'
// columns. Every page answers, in order, with no error (an older snapshot
// once found its segment's column forgotten and indexed an empty one).
func TestSortedPagesWhileSegmentsMerge(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()

	const rounds, perRound = 40, 15
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
					Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 10})
				if !assert.NoError(t, err) {
					return
				}
				assert.GreaterOrEqual(t, res.Total, seen, "documents are only added")
				seen = res.Total
				assert.Len(t, res.IDs, min(10, res.Total))
				for i := 1; i < len(res.IDs); i++ {
					assert.Greater(t, res.IDs[i-1], res.IDs[i], "newest first") // ids are zero-padded, created in order
				}
			}
		}()
	}
	id := 0
	for round := range rounds {
		var docs []index.Document
		for range perRound {
			id++
			d := conversation(strconv.Itoa(id), 1, "refund")
			d.ID = fmt.Sprintf("%06d", id)
			d.Numbers["createdAt"] = []float64{float64(1_700_000_000_000 + id)}
			docs = append(docs, d)
		}
		apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})
		if round%4 == 3 {
			require.NoError(t, e.Compact(context.Background()))
		}
	}
	close(done)
	wg.Wait()
}
