package bleveindex

import (
	"encoding/json"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planned is a segment as scorch's merge planner sees it: documents only.
type planned struct {
	id   uint64
	docs int64
}

func (s planned) Id() uint64          { return s.id }
func (s planned) FullSize() int64     { return s.docs }
func (s planned) LiveSize() int64     { return s.docs }
func (s planned) HasVector() bool     { return false }
func (s planned) FileSize() int64     { return 0 }
func (s planned) LiveFileSize() int64 { return 0 }

// scorchMergeOptions reads the merge plan options out of scorchConfig as
// scorch does: its defaults, overridden by the config's JSON.
func scorchMergeOptions(t *testing.T) mergeplan.MergePlanOptions {
	t.Helper()
	o := mergeplan.DefaultMergePlanOptions
	raw, err := json.Marshal(scorchConfig()["scorchMergePlanOptions"])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &o))
	require.NoError(t, mergeplan.ValidateMergePlannerOptions(&o))
	return o
}

// TestSmallBatchesDoNotRewriteTheirPredecessors plans merges for a partition
// written through the API: one segment holding the earlier writes, and the
// small segments of the writes since. The segment that grew from earlier
// merges must not be merged again with every new batch; that rewrote it
// once per batch while it was under scorch's default floor of 2,000
// documents.
func TestSmallBatchesDoNotRewriteTheirPredecessors(t *testing.T) {
	opts := scorchMergeOptions(t)
	for _, tc := range []struct {
		name  string
		grown int64 // documents of the segment earlier merges made
		small int   // one-document segments written since
		want  []int // documents per planned merge task
	}{
		{"under the first tier's budget", 1500, 9, nil},
		{"over it: ten small ones merge, the grown one stays", 1500, 11, []int{10}},
		{"under the floor all merge, a few dozen documents", 60, 11, []int{10, 61}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			segments := []mergeplan.Segment{planned{1, tc.grown}}
			for i := range tc.small {
				segments = append(segments, planned{uint64(2 + i), 1})
			}
			plan, err := mergeplan.Plan(segments, &opts)
			require.NoError(t, err)
			var got []int
			if plan != nil {
				for _, task := range plan.Tasks {
					docs := 0
					for _, s := range task.Segments {
						docs += int(s.LiveSize())
					}
					got = append(got, docs)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
