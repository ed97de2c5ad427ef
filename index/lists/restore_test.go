package lists

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoredPartsHoldTheirRowsExactly: a restore gives every part the
// rows it was saved with, in their order, in a slice allocated once for
// them (sized before its rows are read, not grown by appending).
func TestRestoredPartsHoldTheirRowsExactly(t *testing.T) {
	saved := New()
	statuses := []string{"active", "pending", "closed"}
	id := 0.0
	for company := int64(1); company <= 3; company++ {
		for s, status := range statuses {
			for range 100*int(company) + 37*s { // parts of 100 to 374 rows
				id++
				r := row{has: 1<<fID | 1<<fCreated}
				r.nums[fID], r.nums[fCreated] = id, 1000-id
				r.words[kStatus] = saved.vocab.intern(status)
				if int(id)%4 == 0 {
					r.tags = []uint32{saved.vocab.intern("vip"), saved.vocab.intern(status)}
				}
				saved.put(company, r)
			}
		}
	}
	path, mark := filepath.Join(t.TempDir(), "lists.snapshot"), Mark{Store: 1, Seq: 2}
	require.NoError(t, saved.Save(path, mark))

	restored := New()
	ok, err := restored.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, restored.WaitReports()) // its background fill interns into the vocabulary spelled reads
	require.Len(t, restored.parts, len(saved.parts))
	for company, byStatus := range saved.parts {
		require.Len(t, restored.parts[company], len(byStatus))
		for status, want := range byStatus {
			got := restored.parts[company][status]
			require.NotNil(t, got, "company %d, %s", company, status)
			assert.Equal(t, spelled(saved, want.rows), spelled(restored, got.rows), "company %d, %s", company, status)
			assert.Equal(t, want.pos, got.pos, "company %d, %s", company, status)
			oneAllocation := cap(slices.Grow([]row(nil), len(got.rows))) // len, rounded up to its size class
			assert.Equal(t, oneAllocation, cap(got.rows), "company %d, %s: the rows' slice", company, status)
		}
	}
	assert.Equal(t, partsOf(saved), partsOf(restored))
}

// partsOf names the part of each conversation (Engine.where) by its
// company and status.
func partsOf(e *Engine) map[int64]string {
	names := map[*part]string{}
	for company, byStatus := range e.parts {
		for status, p := range byStatus {
			names[p] = fmt.Sprint(company, status)
		}
	}
	out := map[int64]string{}
	for id, p := range e.where {
		out[id] = names[p]
	}
	return out
}

// spelledRow is a row with its keywords spelled: engines number them
// each in their own order.
type spelledRow struct {
	nums  [numFields]float64
	has   uint16
	words [wordFields]string
	tags  []string
}

func spelled(e *Engine, rows []row) []spelledRow {
	out := make([]spelledRow, len(rows))
	for i, r := range rows {
		out[i] = spelledRow{nums: r.nums, has: r.has}
		for f, w := range r.words {
			out[i].words[f] = e.vocab.word(w)
		}
		for _, w := range r.tags {
			out[i].tags = append(out[i].tags, e.vocab.word(w))
		}
	}
	return out
}
