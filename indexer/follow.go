package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// Several nodes on one database (PostgreSQL) share one outbox and one set
// of search tables, but each keeps its own list engine in memory. The
// search tables take each entry once, from the node holding the indexing
// role; every node's list engine follows every entry by sequence. A write
// waits until both hold it; a read first catches its node up to the last
// committed entry (CatchUp), so what another node acknowledged is found.

// Shared is the outbox as several nodes share it (pgstore.DB is one).
type Shared interface {
	// HoldIndexing reports whether this node holds the indexing role,
	// taking it when no node does.
	HoldIndexing(ctx context.Context) (bool, error)
	// OutboxCursors returns the shared cursors: every entry up to applied
	// is in the search tables, and entries up to pruned may be gone.
	OutboxCursors(ctx context.Context) (applied, pruned uint64, err error)
	// SetOutboxApplied moves the applied cursor forward.
	SetOutboxApplied(ctx context.Context, seq uint64) error
	// FollowOutbox returns up to max entries after sequence after,
	// whether the search tables hold them or not.
	FollowOutbox(after uint64, max int) ([]parley.OutboxEntry, error)
	// PruneOutbox removes the entries up to applied older than retention.
	PruneOutbox(ctx context.Context, applied uint64, retention time.Duration) error
}

// Follow is what a syncer that follows a shared outbox needs.
type Follow struct {
	Shared Shared
	// Search is the engine of the search tables, written by the holder of
	// the indexing role only.
	Search index.Engine
	// Reload fills the node's own engine from the store afresh: at start,
	// and when the entries it had yet to follow were pruned.
	Reload func() error
	// Indexed, when not nil, is told (before the writers waiting on them
	// are) that the search tables took entries another node applied: a
	// search engine reading from a replica marks the primary's position
	// then, so this node's reads wait for those writes too.
	Indexed func(ctx context.Context) error
	// Retention is how long applied entries stay for nodes to follow;
	// DefaultRetention when 0.
	Retention time.Duration
}

// DefaultRetention keeps applied entries ten minutes: a node further
// behind than that reloads its list engine.
const DefaultRetention = 10 * time.Minute

// followPoll is how often a following syncer looks at the outbox when no
// announcement wakes it (a missed NOTIFY costs at most this much).
const followPoll = 250 * time.Millisecond

// pruneEvery spaces the role holder's prunes.
const pruneEvery = time.Minute

// NewFollower returns the syncer of one node of several: own is the
// node's list engine (it follows every entry), f the shared outbox and
// search tables. Its first Drain loads own from the store.
func NewFollower(db Source, own index.Engine, f Follow, log *slog.Logger) *Syncer {
	if f.Retention == 0 {
		f.Retention = DefaultRetention
	}
	s := NewSyncer(db, own, log)
	s.follow = &f
	return s
}

// drainShared brings the search tables up to date when this node holds
// the indexing role, then its own engine, whichever node indexed.
func (s *Syncer) drainShared(ctx context.Context) error {
	last, err := s.db.LastOutboxSeq()
	if err != nil {
		return err
	}
	held, err := s.follow.Shared.HoldIndexing(ctx)
	if err != nil {
		return err
	}
	if held {
		if err := s.index(ctx, last); err != nil {
			return err
		}
	}
	applied, _, err := s.follow.Shared.OutboxCursors(ctx)
	if err != nil {
		return err
	}
	if s.follow.Indexed != nil && applied > s.searchedSeq() {
		if err := s.follow.Indexed(ctx); err != nil {
			return err
		}
	}
	s.advanceSearched(applied)
	return s.followOutbox(ctx, last)
}

// index applies the entries the search tables lack, moving the shared
// cursor batch by batch, and prunes now and then. last is the highest
// committed sequence, read before: once no entry is left, the cursor
// takes it.
func (s *Syncer) index(ctx context.Context, last uint64) error {
	applied, _, err := s.follow.Shared.OutboxCursors(ctx)
	if err != nil {
		return err
	}
	applied, err = s.applySearch(ctx, applied, s.db.Outbox, func(seq uint64) error {
		if err := s.follow.Shared.SetOutboxApplied(ctx, seq); err != nil {
			return err
		}
		s.advanceSearched(seq)
		return nil
	})
	if err != nil {
		return err
	}
	if last > applied {
		if err := s.follow.Shared.SetOutboxApplied(ctx, last); err != nil {
			return err
		}
		applied = last
	}
	s.advanceSearched(applied)
	if time.Since(s.pruned) >= pruneEvery {
		if err := s.follow.Shared.PruneOutbox(ctx, applied, s.follow.Retention); err != nil {
			return err
		}
		s.pruned = time.Now()
	}
	return nil
}

// followOutbox applies to the node's own engine every entry after the
// last it applied; last is the highest committed sequence, read before.
// Entries pruned before it read them make it reload from the store; the
// first call loads.
func (s *Syncer) followOutbox(ctx context.Context, last uint64) error {
	if !s.loaded {
		if err := s.reload(); err != nil {
			return err
		}
	}
	for {
		entries, err := s.follow.Shared.FollowOutbox(s.Applied(), DrainBatch)
		if err != nil {
			return err
		}
		// Pruning runs in sequence order, so checking after the read
		// covers entries pruned before it.
		_, pruned, err := s.follow.Shared.OutboxCursors(ctx)
		if err != nil {
			return err
		}
		if pruned > s.Applied() {
			s.log.Warn("outbox entries this node had yet to follow were pruned; reloading the list engine", "followed", s.Applied(), "pruned", pruned)
			if err := s.reload(); err != nil {
				return err
			}
			continue
		}
		if len(entries) == 0 {
			s.advance(last)
			return nil
		}
		if err := s.apply(ctx, s.engine, entries, false, nil); err != nil {
			return err
		}
		s.advance(entries[len(entries)-1].Seq)
	}
}

// reload fills the node's engine from the store. The last committed
// sequence is read first, so the load holds every entry up to it.
func (s *Syncer) reload() error {
	last, err := s.db.LastOutboxSeq()
	if err != nil {
		return err
	}
	if err := s.follow.Reload(); err != nil {
		return fmt.Errorf("indexer: load the list engine: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = true
	s.applied = last
	s.wakeWaiters()
	return nil
}

func (s *Syncer) advanceSearched(seq uint64) { s.raise(&s.searched, seq) }

func (s *Syncer) searchedSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.searched
}

// CatchUp waits (at most timeout) until this node's engine holds every
// entry committed before the call, by any node: a read calls it first, so
// a write another node acknowledged is found. It reports whether it caught
// up; without a shared outbox there is nothing to catch up with.
func (s *Syncer) CatchUp(ctx context.Context, timeout time.Duration) bool {
	if s.follow == nil {
		return true
	}
	last, err := s.db.LastOutboxSeq()
	if err != nil {
		s.log.Error("catching up with the outbox failed; answering from what this node holds", "err", err)
		return false
	}
	s.Notify(last)
	return s.waitUntil(ctx, timeout, func() bool { return s.applied >= last })
}

// Following is the search engine of a node that follows a shared outbox:
// each read first catches the node up (Syncer.CatchUp), waiting at most
// Wait, then answers as the router does.
type Following struct {
	index.Router
	Syncer *Syncer
	Wait   time.Duration
}

// Search catches up, then searches.
func (f Following) Search(ctx context.Context, r index.Request) (index.Result, error) {
	f.Syncer.CatchUp(ctx, f.Wait)
	return f.Router.Search(ctx, r)
}

// Facets catches up, then counts.
func (f Following) Facets(ctx context.Context, r index.FacetRequest) (index.FacetResult, error) {
	f.Syncer.CatchUp(ctx, f.Wait)
	return f.Router.Facets(ctx, r)
}

// Aggregate catches up, then aggregates.
func (f Following) Aggregate(ctx context.Context, r index.AggregateRequest) (index.AggregateResult, error) {
	f.Syncer.CatchUp(ctx, f.Wait)
	return f.Router.Aggregate(ctx, r)
}

// rebuildShared fills the emptied search tables from the store, then
// applies again every outbox entry committed since the rebuild began and
// moves the shared cursor past them. Those entries' documents may have
// been built by the rebuild before their write committed, or written by
// another node before the rebuild's older copy of the same document, so
// applying them last is what leaves every one current. The caller keeps
// other nodes of this version from rebuilding at once (a lock).
func (s *Syncer) rebuildShared(ctx context.Context, progress func(done, total int)) error {
	began, err := s.db.LastOutboxSeq()
	if err != nil {
		return err
	}
	if err := s.rebuildInto(ctx, s.follow.Search, progress); err != nil {
		return err
	}
	last, err := s.db.LastOutboxSeq()
	if err != nil {
		return err
	}
	// FollowOutbox, as the shared cursor may already be past them.
	reached, err := s.applySearch(ctx, began, s.follow.Shared.FollowOutbox, nil)
	if err != nil {
		return err
	}
	last = max(last, reached)
	if err := s.follow.Shared.SetOutboxApplied(ctx, last); err != nil {
		return err
	}
	s.advanceSearched(last)
	return nil
}

// applySearch applies to the search tables, batch by batch, the entries
// read returns after from, until it returns none, and returns the last
// sequence applied (from when none). moved, when not nil, is told that
// sequence after each batch.
func (s *Syncer) applySearch(ctx context.Context, from uint64, read func(after uint64, max int) ([]parley.OutboxEntry, error), moved func(seq uint64) error) (uint64, error) {
	reached := from
	for {
		entries, err := read(reached, DrainBatch)
		if err != nil || len(entries) == 0 {
			return reached, err
		}
		if err := s.apply(ctx, s.follow.Search, entries, false, nil); err != nil {
			return reached, err
		}
		reached = entries[len(entries)-1].Seq
		if moved != nil {
			if err := moved(reached); err != nil {
				return reached, err
			}
		}
	}
}
