package bleveindex

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// A merge replaces segments with a new one, and so does persisting a
// batch's in-memory segment. A sorted page meeting a new segment reads its
// columns (column.go) first: about 100 ms per field for a merged segment
// of 333,000 documents, paid by whichever search comes first. Each open
// partition has a warmer instead: scorch tells it when it introduces a
// merged or persisted segment (an event callback), and it reads the
// snapshot's missing columns of the fields pages have sorted on, in the
// background. Events that come while it reads make one more pass.

// warmEvents is the name of the scorch event callback (scorchConfig).
const warmEvents = "parley_warm_columns"

// warmers are the open partitions' warmers, by their scorch index.
var warmers sync.Map // *scorch.Scorch -> *warmer

func init() {
	scorch.RegistryEventCallbacks[warmEvents] = func(ev scorch.Event) bool {
		switch ev.Kind {
		case scorch.EventKindMergeTaskIntroduction, scorch.EventKindPersisterProgress:
			if w, ok := warmers.Load(ev.Scorch); ok {
				w.(*warmer).poke()
			}
		}
		return true // PreMergeCheck's answer: merge
	}
}

type warmer struct {
	s       *scorch.Scorch
	mu      sync.Mutex
	stopped bool
	poked   chan struct{} // one pass pending at most
	done    chan struct{} // closed when run returns
}

// startWarmer warms cols from the segments idx introduces, until stop.
func startWarmer(idx bleve.Index, cols *columns) (*warmer, error) {
	in, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	s, ok := in.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("bleveindex: warm the columns of a %T, not a scorch index", in)
	}
	w := &warmer{s: s, poked: make(chan struct{}, 1), done: make(chan struct{})}
	warmers.Store(s, w)
	go w.run(cols)
	return w, nil
}

func (w *warmer) poke() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	select {
	case w.poked <- struct{}{}:
	default:
	}
}

func (w *warmer) run(cols *columns) {
	defer close(w.done)
	for range w.poked {
		r, err := w.s.Reader()
		if err != nil {
			continue // closing: stop closes poked next
		}
		// A failed read is left to the search that needs the column: it
		// reads it again and reports the error.
		_ = cols.warm(r)
		_ = r.Close()
	}
}

// stop ends the warmer and waits for a pass under way; the partition's
// index closes after it.
func (w *warmer) stop() {
	warmers.Delete(w.s)
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.poked)
	}
	w.mu.Unlock()
	<-w.done
}
