package lists

import (
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
				r.words[kStatus] = status
				if int(id)%4 == 0 {
					r.tags = []string{"vip", status}
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
	require.Len(t, restored.parts, len(saved.parts))
	for company, byStatus := range saved.parts {
		require.Len(t, restored.parts[company], len(byStatus))
		for status, want := range byStatus {
			got := restored.parts[company][status]
			require.NotNil(t, got, "company %d, %s", company, status)
			assert.Equal(t, want.rows, got.rows, "company %d, %s", company, status)
			assert.Equal(t, want.pos, got.pos, "company %d, %s", company, status)
			oneAllocation := cap(slices.Grow([]row(nil), len(got.rows))) // len, rounded up to its size class
			assert.Equal(t, oneAllocation, cap(got.rows), "company %d, %s: the rows' slice", company, status)
		}
	}
	assert.Equal(t, saved.where, restored.where)
}
