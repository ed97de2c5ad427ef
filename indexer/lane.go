package indexer

import (
	"cmp"
	"context"
	"sync"

	parley "github.com/parley/parley"
)

// The priority lane. The drain applies the outbox in order, so a write
// that waits to be searchable (Wait) waits for every entry queued before
// it. Behind a load through the API (imports are answered at commit, and
// queue faster than the index takes them) that was the whole backlog: a
// tag an agent changed became searchable seconds later (3 to 5 s with 32
// clients importing), minutes behind a long import, and the API stopped
// waiting for it after its write timeout. When a write waits with more than
// hurryAfter entries ahead of it, the priority lane builds and applies
// that write's entries at once, ahead of the drain, and Wait returns when
// they are searchable.
//
// The drain still takes those entries in their turn, and acknowledges
// them once the engine holds them durably, as any other. What the lane
// must not do is let the drain then write a record's older reading over
// its newer one. Documents are built from the store as it is when they
// are read, and the drain reads a chunk ahead of applying it, so a chunk
// read before the priority lane applied a record holds that record as it
// was before. The lane keeps two rules between the two ways a record
// reaches the engine:
//   - applies of one record never overlap: each waits until no apply in
//     flight holds any of its records;
//   - the drain leaves out a record the priority lane applied from a read
//     that saw the chunk's last entry of it (covered), and acknowledges
//     its entries once the lane's batches are durable. The lane's reading
//     is then as new as any the chunk holds of it: a chunk read before the
//     lane's read would write an older one over it. (A read the lane made
//     before the chunk's last entry of the record is older than the
//     chunk's read, which came after that entry: the chunk applies the
//     record as usual.) An agent working on one conversation writes it
//     again and again; were covered records applied all the same, each
//     write would be indexed twice, and would wait for the drain's apply
//     of the previous one, seconds behind a load.
//
// The second rule needs a read's place in time: storage's ViewAt gives
// the last outbox sequence a read transaction sees.

// hurryAfter is how many outbox entries may be ahead of a waiting write
// before the priority lane takes it: with fewer, the drain reaches it in
// about the time the lane would take, without indexing it twice.
const hurryAfter = 100

// recentCommits is how many commits' outbox ranges the lane remembers: a
// write waits right after it commits, so its range is among the last.
const recentCommits = 1024

// lane orders the two ways a record reaches the engine (see above).
type lane struct {
	mu      sync.Mutex
	changed *sync.Cond // broadcast when an apply ends
	// inflight are the records an apply is writing.
	inflight map[record]bool
	// newer are the records the priority lane applied, with the apply
	// (its read's last outbox sequence, its durability); forgotten once
	// the drain applies a chunk read after it.
	newer map[record]*laneApply
	// commits are the outbox ranges of the last commits, a ring under
	// its own lock: every commit notes its range, and should not wait for
	// the lane's longer holds of mu.
	commitsMu sync.Mutex
	commits   [recentCommits]commitRange
	next      int
	// urgent are the last sequences of writes waiting for the lane.
	urgent chan uint64
}

type commitRange struct{ first, last uint64 }

// laneApply is one apply of the priority lane: the last outbox sequence
// its read saw, and when its batches are durable (done closed, err set
// before).
type laneApply struct {
	seen uint64
	done chan struct{}
	err  error
}

// settled ends the apply's wait for durability, with the first error.
func (a *laneApply) settled(err error) {
	a.err = err
	close(a.done)
}

// record names a stored record an outbox entry asks to reindex.
type record struct {
	kind parley.OutboxKind
	id   int64
	ref  string
}

func newLane() *lane {
	l := &lane{inflight: map[record]bool{}, newer: map[record]*laneApply{}, urgent: make(chan uint64, 256)}
	l.changed = sync.NewCond(&l.mu)
	return l
}

func recordOf(e parley.OutboxEntry) record { return record{e.Kind, e.ID, e.Ref} }

// lastEntries are the records entries name, each with the sequence of
// its last entry among them (a rebuild's entries, which name records
// without one, count as read at seen).
func lastEntries(entries []parley.OutboxEntry, seen uint64) map[record]uint64 {
	last := make(map[record]uint64, len(entries))
	for _, e := range entries {
		r := recordOf(e)
		last[r] = max(last[r], cmp.Or(e.Seq, seen))
	}
	return last
}

// remember keeps the outbox range of a commit.
func (l *lane) remember(first, last uint64) {
	l.commitsMu.Lock()
	defer l.commitsMu.Unlock()
	l.commits[l.next] = commitRange{first, last}
	l.next = (l.next + 1) % recentCommits
}

// firstOf is the first outbox sequence of the commit whose last is last,
// if the lane still remembers it.
func (l *lane) firstOf(last uint64) (uint64, bool) {
	l.commitsMu.Lock()
	defer l.commitsMu.Unlock()
	for _, c := range l.commits {
		if c.last == last && c.first != 0 {
			return c.first, true
		}
	}
	return 0, false
}

// busy reports whether an apply in flight holds any of records; callers
// hold mu.
func (l *lane) busy(records map[record]uint64) bool {
	for r := range records {
		if l.inflight[r] {
			return true
		}
	}
	return false
}

// enter is the drain's step before applying a chunk whose last entry of
// each record is last: it waits until no apply in flight holds any of
// them, then marks in flight those the priority lane does not cover, and
// returns the covered ones with the lane's applies that cover them.
func (l *lane) enter(last map[record]uint64) (covered map[record]*laneApply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.busy(last) {
		l.changed.Wait()
	}
	covered = map[record]*laneApply{}
	for r, seq := range last {
		if a := l.newer[r]; a != nil && a.seen >= seq {
			covered[r] = a
		} else {
			l.inflight[r] = true
		}
	}
	return covered
}

// hold is the priority lane's step before applying records: it waits
// until no apply in flight holds any of them, then reads their documents
// (read, which returns the sequence its read saw) and marks them in
// flight, all in one holding of the lane, so no apply of theirs begins
// between the read and the mark.
func (l *lane) hold(records map[record]uint64, read func() (seq uint64, err error)) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.busy(records) {
		l.changed.Wait()
	}
	seq, err := read()
	if err != nil {
		return 0, err
	}
	for r := range records {
		l.inflight[r] = true
	}
	return seq, nil
}

// release ends the priority lane's apply of records, noting it (when it
// is searchable, a not nil) as their newest.
func (l *lane) release(records map[record]uint64, a *laneApply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for r := range records {
		delete(l.inflight, r)
		if a != nil {
			l.newer[r] = a
		}
	}
	l.changed.Broadcast()
}

// leave ends the drain's apply of records from a chunk read at seq: the
// priority lane's applies read up to seq are forgotten, since every later
// chunk is read after it.
func (l *lane) leave(records map[record]uint64, seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for r := range records {
		delete(l.inflight, r)
	}
	for r, a := range l.newer {
		if a.seen <= seq {
			delete(l.newer, r)
		}
	}
	l.changed.Broadcast()
}

// runLane takes the writes Wait hands it until ctx ends, every write
// waiting at once.
func (s *Syncer) runLane(ctx context.Context) {
	for {
		var seqs []uint64
		select {
		case <-ctx.Done():
			return
		case seq := <-s.lane.urgent:
			seqs = append(seqs, seq)
		}
		for more := true; more; {
			select {
			case seq := <-s.lane.urgent:
				seqs = append(seqs, seq)
			default:
				more = false
			}
		}
		if err := s.hurry(ctx, seqs); err != nil && ctx.Err() == nil {
			s.log.Warn("priority indexing failed; the writes wait for the drain", "err", err)
		}
	}
}

// hurry applies the outbox entries of the writes whose last sequences are
// seqs ahead of the drain, and tells their waiters they are searchable.
func (s *Syncer) hurry(ctx context.Context, seqs []uint64) error {
	var entries []parley.OutboxEntry
	var writes []uint64
	for _, last := range seqs {
		first, ok := s.lane.firstOf(last)
		if !ok || s.Applied() >= last {
			continue // forgotten (it waits for the drain), or drained already
		}
		pending, err := s.db.Outbox(first-1, int(last-first+1))
		if err != nil {
			return err
		}
		for _, e := range pending {
			if e.Seq <= last { // the others are later writes' (some of the range was acknowledged)
				entries = append(entries, e)
			}
		}
		writes = append(writes, last)
	}
	if len(entries) == 0 {
		return nil
	}
	records := lastEntries(entries, 0)
	var r read
	seen, err := s.lane.hold(records, func() (seq uint64, err error) {
		r, err = s.build(ctx, entries, false)
		return r.seen, err
	})
	if err != nil {
		return err
	}
	// Not acknowledged here: the drain takes these entries in their turn,
	// and acknowledges them once this apply is durable (see lane.enter).
	a := &laneApply{seen: seen, done: make(chan struct{})}
	if len(r.batches) == 0 {
		a.settled(nil)
	}
	durable := countDown(len(r.batches), a.settled)
	for i, b := range r.batches {
		if err := s.applyBatch(ctx, s.engine, b, once(durable)); err != nil {
			for range r.batches[i+1:] {
				durable(err)
			}
			s.lane.release(records, nil) // not searchable: the drain applies them itself
			return err
		}
	}
	s.lane.release(records, a)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, seq := range writes {
		if seq > s.applied {
			s.early[seq] = true
		}
	}
	s.wakeWaiters()
	return nil
}
