package bleveindex

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/parley/parley/index"
)

// A partition is the Bleve index of one kind and one company. Keeping
// companies apart means a search reads only its company's postings (no
// company term to intersect, no other company's documents to skip), term
// statistics are the company's own, and an idle company costs nothing but
// its files: partitions open on demand, and the least recently used ones
// close when more than the engine's limit are open.
type partition struct {
	key   partitionKey
	idx   bleve.Index // nil until ready is closed, and after a failed or empty open
	build *builder
	elem  *list.Element // in Engine.recent
	users int           // searches and batches holding it open
	dirty int           // batches applied but not yet persisted
	// columns are its segments' sortable numbers, read for sorted pages,
	// and warmer reads those of new segments in the background.
	columns *columns
	warmer  *warmer
	// ready is closed once the open is over: idx is set, or openErr says
	// why not (errAbsent when it does not exist and was not to be made).
	ready   chan struct{}
	openErr error
}

// errAbsent ends the open of a partition that does not exist, asked
// without create.
var errAbsent = errors.New("bleveindex: no such partition")

type partitionKey struct {
	kind    index.Kind
	company int64
}

// DefaultMaxOpen bounds the partitions open at once: each holds a few
// goroutines, file handles and caches.
const DefaultMaxOpen = 256

// partitionDir is where a kind's partitions live; path is one partition.
func (e *Engine) partitionDir(kind index.Kind) string { return filepath.Join(e.dir, string(kind)) }

func (e *Engine) path(k partitionKey) string {
	return filepath.Join(e.partitionDir(k.kind), strconv.FormatInt(k.company, 10)+".bleve")
}

// acquire returns the open partition of k, opening it (and, with create,
// creating it) as needed; nil when it does not exist and create is false.
// The caller must release it. Opening runs without the engine's lock, so a
// slow open (a cold company's first search) holds up only the requests of
// that partition; they wait for the one open under way.
func (e *Engine) acquire(k partitionKey, create bool) (*partition, error) {
	for {
		e.mu.Lock()
		if e.open == nil {
			e.mu.Unlock()
			return nil, errors.New("bleveindex: engine closed")
		}
		if p := e.open[k]; p != nil {
			p.users++
			e.recent.MoveToFront(p.elem)
			e.mu.Unlock()
			<-p.ready
			switch {
			case p.openErr == nil:
				return p, nil
			case errors.Is(p.openErr, errAbsent) && create:
				continue // the opener did not create it: this caller does
			case errors.Is(p.openErr, errAbsent):
				return nil, nil
			default:
				return nil, p.openErr
			}
		}
		p := &partition{key: k, build: e.builders[k.kind], columns: &columns{}, users: 1, ready: make(chan struct{})}
		p.elem = e.recent.PushFront(p)
		e.open[k] = p
		e.mu.Unlock()

		p.idx, p.openErr = e.openPartition(k, create)
		if p.openErr == nil {
			if p.warmer, p.openErr = startWarmer(p.idx, p.columns); p.openErr != nil {
				p.openErr = errors.Join(p.openErr, p.idx.Close())
				p.idx = nil
			}
		}
		e.mu.Lock()
		var victims []*partition
		if p.openErr != nil {
			// Out of the open set before anyone else finds it; waiters
			// hold it and read openErr.
			e.recent.Remove(p.elem)
			delete(e.open, k)
		} else {
			victims = e.evict()
		}
		e.mu.Unlock()
		close(p.ready)
		e.closeAll(victims)
		switch {
		case p.openErr == nil:
			return p, nil
		case errors.Is(p.openErr, errAbsent):
			return nil, nil
		default:
			return nil, p.openErr
		}
	}
}

// openPartition opens the partition of k, creating it when create is set;
// errAbsent when it does not exist and create is not.
func (e *Engine) openPartition(k partitionKey, create bool) (bleve.Index, error) {
	idx, err := bleve.OpenUsing(e.path(k), scorchConfig())
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		if !create {
			return nil, errAbsent
		}
		idx, err = e.create(k)
	}
	if err != nil {
		// Derived data: forget the mapping version, so the next start
		// rebuilds the whole index from storage.
		if rerr := os.Remove(e.versionPath()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		return nil, fmt.Errorf("bleveindex: the %s partition of company %d is unreadable, so the index is rebuilt at the next start (or now, with parley reindex): %w", k.kind, k.company, err)
	}
	return idx, nil
}

// create makes a partition under a temporary name and renames it into
// place, so a crash never leaves a half-made partition where Open would
// find it.
func (e *Engine) create(k partitionKey) (bleve.Index, error) {
	path := e.path(k)
	tmp := path + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// Created without unsafe_batch, so the mapping Bleve stores inside the
	// index is persisted before the close that follows.
	idx, err := bleve.NewUsing(tmp, e.mappings[k.kind], scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	if err := idx.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return bleve.OpenUsing(path, scorchConfig())
}

// release hands a partition back; it may close once no one holds it.
func (e *Engine) release(p *partition) {
	e.mu.Lock()
	p.users--
	victims := e.evict()
	e.mu.Unlock()
	e.closeAll(victims)
}

// evict takes least recently used partitions out of the open set while
// more than maxOpen are open, skipping those in use or holding batches not
// yet persisted (a close would drop their persistence callbacks), and
// returns them for closeAll. Callers hold mu.
func (e *Engine) evict() []*partition {
	var victims []*partition
	for el := e.recent.Back(); el != nil && len(e.open) > e.maxOpen; {
		p := el.Value.(*partition)
		el = el.Prev()
		if p.users > 0 || p.dirty > 0 { // an open under way holds a user
			continue
		}
		e.recent.Remove(p.elem)
		delete(e.open, p.key)
		victims = append(victims, p)
	}
	return victims
}

// closeAll closes partitions taken out of the open set. It runs without
// mu: closing waits for a partition's background work, which may call
// back into the engine.
func (e *Engine) closeAll(parts []*partition) {
	var err error
	for _, p := range parts {
		if p.idx != nil { // nil after a failed open
			p.warmer.stop()
			err = errors.Join(err, p.idx.Close())
		}
	}
	if err != nil {
		e.mu.Lock()
		e.closeErr = errors.Join(e.closeErr, err)
		e.mu.Unlock()
	}
}

// companies lists the companies that have a partition of kind on disk.
func (e *Engine) companies(kind index.Kind) ([]int64, error) {
	entries, err := os.ReadDir(e.partitionDir(kind))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, en := range entries {
		name, ok := strings.CutSuffix(en.Name(), ".bleve")
		if !ok {
			continue
		}
		if id, err := strconv.ParseInt(name, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// OpenPartitions counts the partitions open now, for tests and metrics.
func (e *Engine) OpenPartitions() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.open)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// DropKinds removes every partition of the kinds: what the engine holds
// of kinds it is no longer given (a Router keeps the textless kinds from
// its full engine, index.Kind.Textless) in a directory an older version
// indexed. It fails when a partition of one of them is open.
func (e *Engine) DropKinds(kinds ...index.Kind) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := range e.open {
		if slices.Contains(kinds, k.kind) {
			return fmt.Errorf("bleveindex: drop the %s partitions: company %d's is open", k.kind, k.company)
		}
	}
	for _, kind := range kinds {
		if err := os.RemoveAll(e.partitionDir(kind)); err != nil {
			return fmt.Errorf("bleveindex: drop the %s partitions: %w", kind, err)
		}
	}
	return nil
}
