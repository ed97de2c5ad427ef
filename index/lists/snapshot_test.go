package lists_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/query"
)

// TestSnapshotRoundTrip: rows saved and restored answer every request as
// the engine they came from; a snapshot of another storage state, a
// missing one and a damaged one are not used.
func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	saved := lists.New()
	statuses := []string{"active", "pending", "closed", "spam"}
	for company := int64(1); company <= 3; company++ {
		var docs []index.Document
		for i := int64(1); i <= 40; i++ {
			id := company*1000 + i
			var tags []string
			for k := int64(0); k < i%3; k++ {
				tags = append(tags, fmt.Sprint("tag", (i+k)%5))
			}
			d := doc(id, company, statuses[i%4], float64(i*7%13), float64(i%5*10), tags...)
			d.Numbers["mailboxId"] = []float64{float64(i % 3)}
			d.Keywords["type"] = []string{"email"}
			docs = append(docs, d)
		}
		require.NoError(t, saved.Apply(ctx, index.Batch{Kind: index.Conversations, Company: company, Upserts: docs}, nil))
	}
	path := filepath.Join(t.TempDir(), "lists.snapshot")
	mark := lists.Mark{Store: 42, Seq: 7}
	require.NoError(t, saved.Save(path, mark))

	restored := lists.New()
	ok, err := restored.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, restored.WaitReports()) // the rows fill after Restore returns
	requests := []index.Request{
		{Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Limit: 100},
		{Sort: []index.Sort{{Field: "waitingSince"}}, Limit: 100},
		{Filter: query.Keyword{Field: "status", Value: "pending"}, Limit: 100},
		{Filter: query.Keyword{Field: "tag", Value: "tag3"}, Sort: []index.Sort{{Field: "id"}}, Limit: 100},
		{Filter: query.EqualID("mailboxId", 2), Offset: 3, Limit: 5},
		{Filter: query.Keyword{Field: "type", Value: "email"}},
	}
	for company := int64(1); company <= 4; company++ {
		for i, r := range requests {
			r.Kind, r.Company = index.Conversations, company
			want, err := saved.Search(ctx, r)
			require.NoError(t, err)
			got, err := restored.Search(ctx, r)
			require.NoError(t, err)
			assert.Equal(t, want, got, "company %d, request %d", company, i)
		}
	}

	for name, tc := range map[string]struct {
		path string
		mark lists.Mark
	}{
		"another storage file":  {path, lists.Mark{Store: 43, Seq: 7}},
		"writes since the save": {path, lists.Mark{Store: 42, Seq: 8}},
		"no snapshot (a crash)": {filepath.Join(t.TempDir(), "none"), mark},
	} {
		t.Run(name, func(t *testing.T) {
			e := lists.New()
			ok, err := e.Restore(tc.path, tc.mark)
			require.NoError(t, err)
			assert.False(t, ok)
		})
	}

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	t.Run("damaged report rows", func(t *testing.T) {
		// The report rows are checked as they fill, after the start: the
		// list rows answer, the report rows never do (requests on them
		// fail, or go to the full engine for conversations), and
		// WaitReports says why.
		bad := filepath.Join(t.TempDir(), "bad")
		flipped := append([]byte{}, data...)
		flipped[len(flipped)-24-1] ^= 1 // the last byte before the footer
		require.NoError(t, os.WriteFile(bad, flipped, 0o600))
		e := lists.New()
		ok, err := e.Restore(bad, mark)
		require.NoError(t, err)
		require.True(t, ok)
		require.ErrorContains(t, e.WaitReports(), "the snapshot is damaged: checksum")
		r := requests[0]
		r.Kind, r.Company = index.Conversations, 1
		want, err := saved.Search(ctx, r)
		require.NoError(t, err)
		got, err := e.Search(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.False(t, e.AggregateSupported(index.AggregateRequest{Kind: index.Conversations, Company: 1, By: "createdAt", Edges: []float64{0, 1}}))
		_, err = e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: 1, By: "createdAt", Edges: []float64{0, 1}})
		require.ErrorContains(t, err, "the snapshot is damaged: checksum")
	})
	for name, damaged := range map[string][]byte{
		"truncated":    data[:len(data)/2],
		"a byte flips": append(append(append([]byte{}, data[:100]...), data[100]^1), data[101:]...),
		"empty":        {},
	} {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad")
			require.NoError(t, os.WriteFile(bad, damaged, 0o600))
			e := lists.New()
			ok, err := e.Restore(bad, mark)
			require.ErrorContains(t, err, "damaged")
			assert.False(t, ok)
		})
	}
}
