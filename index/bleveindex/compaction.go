package bleveindex

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"

	"github.com/parley/parley/index"
)

// Compact merges every partition down to one segment, so queries after a
// bulk load (an import, a rebuild) do not run over the dozens of segments
// the load left, and removes the segments the merge replaced. It waits for
// the merges; searches go on meanwhile.
func (e *Engine) Compact(ctx context.Context) error {
	for _, kind := range index.Kinds {
		companies, err := e.companies(kind)
		if err != nil {
			return fmt.Errorf("bleveindex: compact: %w", err)
		}
		for _, company := range companies {
			if err := e.compact(ctx, partitionKey{kind, company}); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneMerge is scorch's single-segment plan in one merge task. The plan as
// scorch ships it merges ten segments per task, so a partition holding
// more than ten became two (at 1M conversations: 1.15 GB and 44 MB).
var oneMerge = func() mergeplan.MergePlanOptions {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = math.MaxInt32
	return o
}()

func (e *Engine) compact(ctx context.Context, k partitionKey) error {
	p, err := e.acquire(k, false)
	if err != nil || p == nil {
		return err
	}
	defer e.release(p)
	in, err := p.idx.Advanced()
	if err != nil {
		return fmt.Errorf("bleveindex: compact: %w", err)
	}
	s, ok := in.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("bleveindex: compact: not a scorch index")
	}
	opts := oneMerge
	err = s.ForceMerge(ctx, &opts)
	if err == nil {
		err = dropReplaced(ctx, s, filepath.Join(e.path(k), "store"))
	}
	if err != nil {
		return fmt.Errorf("bleveindex: compact %s partition of company %d: %w", k.kind, k.company, err)
	}
	return ctx.Err()
}

// dropReplaced waits, for up to replacedWait, until the segment files a
// merge replaced have left dir. Scorch removes them when its persister next
// idles after the old snapshot's last reader let go. A reader holding it at
// the merge's end (the warmer reading the old segments' columns, a search)
// let go only after that idle, and with no write to follow, the old
// snapshot and its files stayed on disk until the partition next opened: at
// 1M conversations, 130 MB beside a 76 MB merged segment. Each round here
// writes nothing but a new epoch (the deletion of an internal key that does
// not exist), which wakes the persister to persist it and then clean up.
// Giving up is not an error: the files go at the next write or open.
func dropReplaced(ctx context.Context, s *scorch.Scorch, dir string) error {
	deadline := time.Now().Add(replacedWait)
	for {
		done, err := onlyRoot(s, dir)
		if err != nil || done || time.Now().After(deadline) {
			return err
		}
		if err := s.DeleteInternal(wakeKey); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(replacedPoll):
		}
	}
}

// wakeKey is the internal key dropReplaced deletes; it is never set.
var wakeKey = []byte("parley_wake_persister")

const (
	replacedWait = 10 * time.Second
	replacedPoll = 50 * time.Millisecond
)

// onlyRoot reports whether root.bolt keeps one snapshot and dir holds no
// segment file beyond the current snapshot's.
func onlyRoot(s *scorch.Scorch, dir string) (bool, error) {
	epochs, err := s.RootBoltSnapshotEpochs()
	if err != nil || len(epochs) > 1 {
		return false, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.zap"))
	if err != nil {
		return false, err
	}
	r, err := s.Reader()
	if err != nil {
		return false, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return false, fmt.Errorf("a %T, not a scorch snapshot", r)
	}
	return len(files) <= len(snap.Segments()), nil
}
