package indexer

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// DrainBatch bounds how many outbox entries go into one engine batch.
// Larger batches make larger segments, which Bleve then merges less often
// (merging was half of a bulk load's CPU); the price is the memory of the
// documents of one batch (see the commit that set it).
const DrainBatch = 5000

// Source is what the syncer needs of storage: the domain's transactions,
// to build documents and to list every record for a rebuild, each read
// told the last outbox sequence it sees (the priority lane orders reads by
// it: lane.go), and the index outbox, read after a sequence and
// acknowledged once durable. storage.DB is one.
type Source interface {
	Store() parley.Store
	ViewAt(ctx context.Context, fn func(tx parley.Tx, seq uint64) error) error
	Outbox(after uint64, max int) ([]parley.OutboxEntry, error)
	AckOutbox(entries []parley.OutboxEntry) error
	LastOutboxSeq() (uint64, error)
}

// Syncer drains the storage outbox into an engine. Writers call Notify
// (the caller hooks it on storage's commits: storage.DB.OnCommit) and may
// Wait until their write is searchable; concurrent writes share one engine
// batch, and a write waiting behind a backlog takes the priority lane
// (lane.go). An outbox entry is acknowledged (removed) only once the
// engine reports its batch durable, so a crash at any point replays what
// the index may have lost.
type Syncer struct {
	db     Source
	engine index.Engine
	log    *slog.Logger
	wake   chan struct{}
	// readSize is how many outbox entries a drain reads at a time:
	// DrainBatch, unless a test sets it (export_test.go).
	readSize int
	// afterRead, when a test sets it (export_test.go), is told of each
	// chunk a drain has read and built.
	afterRead func()

	mu      sync.Mutex
	applied uint64 // every outbox entry up to this sequence is searchable
	// early are writes (by their last sequence) past applied that the
	// priority lane made searchable.
	early   map[uint64]bool
	changed chan struct{}
	pending sync.WaitGroup // batches applied but not yet acknowledged
	lane    *lane

	onBatch atomic.Pointer[func(kind index.Kind, docs int, took time.Duration)] // metrics, see OnBatch
}

// OnBatch registers the function told the size (upserts plus deletes) and
// duration of each engine batch, for metrics. It may be set while the
// syncer runs.
func (s *Syncer) OnBatch(f func(kind index.Kind, docs int, took time.Duration)) { s.onBatch.Store(&f) }

// NewSyncer returns the syncer from db's outbox to engine. It learns of
// new writes through Notify, which the caller hooks on db's commits; Run
// also looks every second.
func NewSyncer(db Source, engine index.Engine, log *slog.Logger) *Syncer {
	return &Syncer{db: db, engine: engine, log: log, wake: make(chan struct{}, 1), changed: make(chan struct{}),
		readSize: DrainBatch, early: map[uint64]bool{}, lane: newLane()}
}

// Notify tells the syncer that a write committed the outbox entries first
// to last.
func (s *Syncer) Notify(first, last uint64) {
	s.lane.remember(first, last)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run drains the outbox whenever notified, and runs the priority lane,
// until ctx ends. A failing batch is retried after a pause: the outbox
// keeps it.
func (s *Syncer) Run(ctx context.Context) {
	lane := make(chan struct{})
	go func() {
		defer close(lane)
		s.runLane(ctx)
	}()
	defer func() { <-lane }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if err := s.Drain(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("index sync failed; will retry", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		}
	}
}

// Drain applies every pending outbox entry to the engine. Entries already
// applied (searchable, awaiting durability) are not read again. It reads
// the outbox DrainBatch entries at a time, in order (see pipeline).
func (s *Syncer) Drain(ctx context.Context) error {
	read := func(after uint64) (chunk, error) {
		last, err := s.db.LastOutboxSeq()
		if err != nil {
			return chunk{}, err
		}
		entries, err := s.db.Outbox(after, s.readSize)
		if err != nil || len(entries) == 0 {
			return chunk{cursor: last}, err
		}
		r, err := s.build(ctx, entries, false)
		if s.afterRead != nil {
			s.afterRead()
		}
		return chunk{entries: entries, read: r, cursor: entries[len(entries)-1].Seq,
			backlog: len(entries) == s.readSize}, err
	}
	applied := func(c chunk) { s.advance(c.cursor) }
	return s.pipeline(ctx, s.engine, s.Applied(), read, s.acknowledge, applied)
}

// A chunk is what one read gives the engine: the documents of up to
// DrainBatch outbox entries (or records, for a rebuild), in batches of
// distinct kinds and companies (see build).
type chunk struct {
	entries []parley.OutboxEntry // none once there is nothing more to read
	read
	// cursor is where the next read starts: the outbox sequence of the
	// last entry read for a drain (the last one committed, once there is
	// nothing more), the number of records read for a rebuild.
	cursor uint64
	// backlog is set when more is surely waiting behind the chunk: a
	// drain's read that filled its size, and every read of a rebuild.
	backlog bool
}

// pipeline applies the chunks read gives, from cursor on, one after the
// other, and tells applied of each once it is searchable (and of the
// last, empty one). Behind a backlog it reads (and builds the documents
// of) the next chunk while the engine indexes the current one, and
// applies a chunk's batches concurrently, so that indexing uses every
// core: built then indexed in turn, batch after batch, a rebuild kept one
// core of two busy (issue 54's profile). Without a backlog, indexing is
// keeping up with the writers, and it leaves them the other cores: it
// reads the next chunk once the current one is indexed (so that chunk
// gathers the writes committed meanwhile) and applies its batches one at a
// time. Reading ahead and indexing on every core there took the CPU the
// writers' requests needed, and halved the rate of imports through the
// API.
//
// Chunks still reach the engine in order, so a later write of a record is
// never overtaken by an earlier one; within a chunk, every batch was built
// in one read transaction, and each record's documents are in one batch
// per kind and company, so the batches of a chunk never disagree. ack
// gives the durability callback of a chunk's batches.
func (s *Syncer) pipeline(ctx context.Context, engine index.Engine, cursor uint64, read func(after uint64) (chunk, error),
	ack func(entries []parley.OutboxEntry) func(batches int) func(error), applied func(chunk)) error {
	type result struct {
		c   chunk
		err error
	}
	c, err := read(cursor)
	for err == nil && len(c.entries) > 0 {
		var ahead chan result
		if c.backlog {
			ahead = make(chan result, 1)
			go func(after uint64) {
				next, err := read(after)
				ahead <- result{next, err}
			}(c.cursor)
		}
		if err := s.applyChunk(ctx, engine, c, ack); err != nil {
			if ahead != nil {
				<-ahead
			}
			return err
		}
		applied(c)
		if ahead == nil {
			c, err = read(c.cursor)
			continue
		}
		r := <-ahead
		c, err = r.c, r.err
	}
	if err != nil {
		return err
	}
	applied(c)
	return nil
}

// applyChunk applies a chunk in the drain's turn, once the priority lane
// holds none of its records, less the records the lane covers (lane.go),
// whose entries it acknowledges once the lane's applies are durable too.
func (s *Syncer) applyChunk(ctx context.Context, engine index.Engine, c chunk,
	ack func(entries []parley.OutboxEntry) func(batches int) func(error)) error {
	held := lastEntries(c.entries, c.seen)
	covered := s.lane.enter(held)
	var waits []*laneApply
	if len(covered) > 0 {
		skip := map[record]bool{}
		for r, a := range covered {
			delete(held, r)
			skip[r] = true
			if !slices.Contains(waits, a) {
				waits = append(waits, a)
			}
		}
		c.batches = without(c.batches, c.from, skip)
	}
	defer s.lane.leave(held, c.seen)
	acknowledge := ack(c.entries)
	return s.applyAll(ctx, engine, c.batches, func(batches int) func(error) {
		durable := acknowledge(batches + len(waits))
		for _, a := range waits {
			go func() {
				<-a.done
				durable(a.err)
			}()
		}
		return durable
	}, c.backlog)
}

// without are batches less the documents that came from the records
// left out.
func without(batches []index.Batch, from origins, out map[record]bool) []index.Batch {
	var rest []index.Batch
	for _, b := range batches {
		kept := index.Batch{Kind: b.Kind, Company: b.Company}
		for _, d := range b.Upserts {
			if !out[from[docRef{b.Kind, d.ID}]] {
				kept.Upserts = append(kept.Upserts, d)
			}
		}
		for _, id := range b.Deletes {
			if !out[from[docRef{b.Kind, id}]] {
				kept.Deletes = append(kept.Deletes, id)
			}
		}
		if len(kept.Upserts) > 0 || len(kept.Deletes) > 0 {
			rest = append(rest, kept)
		}
	}
	return rest
}

// applyAll hands the batches of one chunk to the engine, as many at once
// as there are cores when wide is set, else one at a time, and returns
// once every one is searchable (or one failed). ack is told how many
// batches there are and gives the durability callback of each: every
// batch reports to it once, with the error when it failed or was not
// applied after another failed.
func (s *Syncer) applyAll(ctx context.Context, engine index.Engine, batches []index.Batch, ack func(batches int) func(error), wide bool) error {
	durable := ack(len(batches))
	g, gctx := errgroup.WithContext(ctx)
	limit := 1
	if wide {
		limit = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(limit)
	for _, b := range batches {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				durable(err)
				return err
			}
			return s.applyBatch(gctx, engine, b, once(durable))
		})
	}
	return g.Wait()
}

// acknowledge returns the callback that removes entries from the outbox
// once every engine batch made of them is durable.
func (s *Syncer) acknowledge(entries []parley.OutboxEntry) func(batches int) func(error) {
	return func(batches int) func(error) {
		s.pending.Add(1)
		settled := func(err error) {
			defer s.pending.Done()
			if err != nil {
				s.log.Error("index batch not persisted; its outbox entries stay for the next start", "err", err)
				return
			}
			if err := s.db.AckOutbox(entries); err != nil {
				s.log.Error("outbox acknowledgement failed; entries will be replayed", "err", err)
			}
		}
		if batches == 0 {
			go settled(nil)
		}
		return countDown(batches, settled)
	}
}

// countDown is the durability callback of n batches, each of which calls
// it once: after the last call it tells then the first error it heard (nil
// when all were durable). With no batches, callers call then themselves.
func countDown(n int, then func(first error)) func(error) {
	var mu sync.Mutex
	var first error
	return func(err error) {
		mu.Lock()
		first = cmp.Or(first, err)
		n--
		last := n == 0
		mu.Unlock()
		if last {
			then(first)
		}
	}
}

// Settle waits until every applied batch is durable and acknowledged.
func (s *Syncer) Settle() { s.pending.Wait() }

// build reads the documents of the entries in one read transaction (see
// the function build), and the last outbox sequence it saw. A rebuild
// fills an empty engine, so it sends no deletions.
func (s *Syncer) build(ctx context.Context, entries []parley.OutboxEntry, rebuild bool) (read, error) {
	var r read
	err := s.db.ViewAt(ctx, func(tx parley.Tx, seq uint64) error {
		var err error
		r.seen = seq
		r.batches, r.from, err = build(tx, entries, rebuild)
		return err
	})
	if err != nil {
		return read{}, fmt.Errorf("indexer: build documents: %w", err)
	}
	return r, nil
}

// read is the documents of one read of the store: their batches, the
// record each came from, and the last outbox sequence the read saw.
type read struct {
	batches []index.Batch
	from    origins
	seen    uint64
}

// applyBatch hands one batch to the engine. done is the batch's
// durability callback, called once (see once): with the error when Apply
// fails.
func (s *Syncer) applyBatch(ctx context.Context, engine index.Engine, b index.Batch, done func(error)) error {
	start := time.Now()
	if err := engine.Apply(ctx, b, done); err != nil {
		done(err) // the engine may have reported it already: once keeps one
		return fmt.Errorf("indexer: apply %s batch: %w", b.Kind, err)
	}
	if f := s.onBatch.Load(); f != nil {
		(*f)(b.Kind, len(b.Upserts)+len(b.Deletes), time.Since(start))
	}
	return nil
}

// Batches builds, reading through tx, what the records the entries name
// change in the index: their documents, or their deletion when a record
// is gone or not searchable, one batch per kind and company (see
// collect), in kind order then by company. A store that keeps its search
// rows in its own database calls it in the write that touched the
// records, before it commits (cmd/parley wires pgstore and pgindex so).
func Batches(tx parley.Tx, entries []parley.OutboxEntry) ([]index.Batch, error) {
	batches, _, err := build(tx, entries, false)
	return batches, err
}

// build is Batches, without deletions for a rebuild (which fills an empty
// engine), with the record each document came from.
func build(tx parley.Tx, entries []parley.OutboxEntry, rebuild bool) ([]index.Batch, origins, error) {
	seen := map[parley.OutboxEntry]bool{}
	bs := &batches{byKey: map[batchKey]*index.Batch{}, from: origins{}}
	for _, e := range entries {
		e.Seq = 0
		if seen[e] {
			continue
		}
		seen[e] = true
		bs.at = recordOf(e)
		if err := bs.collect(tx, e); err != nil {
			return nil, nil, err
		}
	}
	return bs.inOrder(rebuild), bs.from, nil
}

// once wraps a batch's durability callback so that only its first call
// counts: an engine may report a failed batch itself before Apply returns
// the error (Bleve does, for the partitions it did not write). It returns
// nil for nil.
func once(durable func(error)) func(error) {
	if durable == nil {
		return nil
	}
	var o sync.Once
	return func(err error) { o.Do(func() { durable(err) }) }
}

// batchKey names the engine batch of one kind and company.
type batchKey struct {
	kind    index.Kind
	company int64
}

// batches gathers what outbox entries change, batch by batch, and the
// record each document came from.
type batches struct {
	byKey map[batchKey]*index.Batch
	from  origins
	at    record // the record being collected
}

// origins name the record each document (upserted or deleted) of a read
// came from.
type origins map[docRef]record

// docRef names a document of a read.
type docRef struct {
	kind index.Kind
	id   string
}

func (bs *batches) of(kind index.Kind, company int64) *index.Batch {
	k := batchKey{kind, company}
	b := bs.byKey[k]
	if b == nil {
		b = &index.Batch{Kind: kind, Company: company}
		bs.byKey[k] = b
	}
	return b
}

func (bs *batches) upsert(kind index.Kind, docs ...index.Document) {
	for _, d := range docs {
		b := bs.of(kind, d.Company)
		b.Upserts = append(b.Upserts, d)
		bs.from[docRef{kind, d.ID}] = bs.at
	}
}

func (bs *batches) delete(kind index.Kind, company int64, ids ...string) {
	if len(ids) > 0 {
		b := bs.of(kind, company)
		b.Deletes = append(b.Deletes, ids...)
		for _, id := range ids {
			bs.from[docRef{kind, id}] = bs.at
		}
	}
}

// inOrder lists the batches in kind order (Kinds), then by company, so
// engines see one order on every run; without deletions for a rebuild.
func (bs *batches) inOrder(rebuild bool) []index.Batch {
	var out []index.Batch
	for _, b := range bs.byKey {
		if rebuild {
			b.Deletes = nil
		}
		if len(b.Upserts) > 0 || len(b.Deletes) > 0 {
			out = append(out, *b)
		}
	}
	rank := map[index.Kind]int{}
	for i, k := range index.Kinds {
		rank[k] = i
	}
	slices.SortFunc(out, func(a, b index.Batch) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(a.Company, b.Company))
	})
	return out
}

// collect adds what the outbox entry e changes in the index: its record's
// document, or the document's deletion when the record is gone or not
// searchable; a conversation also writes the call documents of its phone
// threads and the message documents of its replies and customer messages.
// A deletion goes to the entry's company (0 when the entry is older than
// entries that name it: engines then look in every company).
func (bs *batches) collect(tx parley.Tx, e parley.OutboxEntry) error {
	var (
		kind index.Kind
		doc  index.Document
		ok   bool
		err  error
	)
	switch e.Kind {
	case parley.OutboxConversation:
		// The conversation and its threads are read once for the three
		// kinds (ConversationDocument, CallDocuments and MessageDocuments
		// each read them).
		kind = index.Conversations
		c, threads, tags, err := threadsOf(tx, e.Company, e.ID)
		if err != nil {
			return err
		}
		if c == nil {
			break // gone: its document is deleted below
		}
		if c.State != parley.StateDeleted {
			doc, ok = conversationDocument(tx, c, threads)
		}
		calls, gone := callDocuments(c, threads, tags)
		bs.upsert(index.Calls, calls...)
		bs.delete(index.Calls, c.CompanyID, gone...)
		messages, gone, err := messageDocuments(tx, c, threads, tags)
		if err != nil {
			return err
		}
		bs.upsert(index.Messages, messages...)
		bs.delete(index.Messages, c.CompanyID, gone...)
	case parley.OutboxCustomer:
		kind = index.Customers
		doc, ok, err = CustomerDocument(tx, e.Company, e.ID)
	case parley.OutboxChat:
		kind = index.Chats
		doc, ok, err = ChatDocument(tx, e.Company, e.Ref)
	default:
		return fmt.Errorf("indexer: unknown outbox kind %q", e.Kind)
	}
	if err != nil {
		return err
	}
	if ok {
		bs.upsert(kind, doc)
	} else {
		bs.delete(kind, e.Company, docID(e))
	}
	return nil
}

// docID is the document id an outbox entry refers to.
func docID(e parley.OutboxEntry) string {
	if e.Ref != "" {
		return e.Ref
	}
	return index.FormatID(e.ID)
}

// advance moves applied forward to seq, and forgets the writes the
// priority lane made searchable up to it.
func (s *Syncer) advance(seq uint64) {
	s.raise(&s.applied, seq)
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.early {
		if w <= s.applied {
			delete(s.early, w)
		}
	}
}

// raise moves a cursor of the syncer forward to seq, never back, and
// tells the waiters.
func (s *Syncer) raise(cursor *uint64, seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq > *cursor {
		*cursor = seq
		s.wakeWaiters()
	}
}

// wakeWaiters tells every Wait that a cursor moved; s.mu is held.
func (s *Syncer) wakeWaiters() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Wait blocks until the write whose last outbox entry is seq is
// searchable, ctx ends, or timeout passes; with more than hurryAfter
// entries ahead of it, it hands the write to the priority lane (lane.go).
// It reports whether the write became searchable in time; a write that did
// not is committed all the same and will be indexed.
func (s *Syncer) Wait(ctx context.Context, seq uint64, timeout time.Duration) bool {
	if seq == 0 {
		return true
	}
	s.mu.Lock()
	behind := seq > s.applied+hurryAfter
	s.mu.Unlock()
	if behind {
		select {
		case s.lane.urgent <- seq:
		default: // the lane is not running, or is flooded: the write waits its turn
		}
	}
	return s.waitUntil(ctx, timeout, func() bool { return s.applied >= seq || s.early[seq] })
}

// waitUntil blocks until done (called with s.mu held) holds, ctx ends, or
// timeout passes, and reports whether done held.
func (s *Syncer) waitUntil(ctx context.Context, timeout time.Duration, done func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, changed := done(), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		}
	}
}

// Rebuild indexes every searchable record of storage into an empty engine,
// reporting progress, and returns once the engine holds it durably. The
// outbox entries queued before it started are acknowledged without being
// applied, since the records it read are as those entries left them (after
// a bulk load killed halfway, the outbox holds the whole load); the others
// are drained after.
func (s *Syncer) Rebuild(ctx context.Context, progress func(done, total int)) error {
	covered, err := s.db.LastOutboxSeq()
	if err != nil {
		return err
	}
	if err := s.rebuildInto(ctx, s.engine, progress); err != nil {
		return err
	}
	if err := s.acknowledgeThrough(covered); err != nil {
		return err
	}
	s.advance(covered)
	return s.Drain(ctx)
}

// acknowledgeThrough removes the outbox entries up to seq.
func (s *Syncer) acknowledgeThrough(seq uint64) error {
	for {
		entries, err := s.db.Outbox(0, DrainBatch)
		if err != nil {
			return err
		}
		n := 0
		for n < len(entries) && entries[n].Seq <= seq {
			n++
		}
		if n == 0 {
			return nil
		}
		if err := s.db.AckOutbox(entries[:n]); err != nil {
			return err
		}
	}
}

// rebuildInto indexes every searchable record of storage into engine,
// empty, and returns once it holds them durably. It reads the records
// DrainBatch at a time (see pipeline).
func (s *Syncer) rebuildInto(ctx context.Context, engine index.Engine, progress func(done, total int)) error {
	var refs []parley.OutboxEntry
	err := s.db.Store().View(ctx, func(tx parley.Tx) error {
		var err error
		refs, err = Records(tx)
		return err
	})
	if err != nil {
		return err
	}
	read := func(after uint64) (chunk, error) {
		start := int(after)
		if start == len(refs) {
			return chunk{cursor: after}, nil
		}
		end := min(start+DrainBatch, len(refs))
		r, err := s.build(ctx, refs[start:end], true)
		return chunk{entries: refs[start:end], read: r, cursor: uint64(end), backlog: true}, err
	}
	var persisted sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	track := func([]parley.OutboxEntry) func(batches int) func(error) {
		return func(batches int) func(error) {
			persisted.Add(batches)
			return func(err error) {
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
				}
				persisted.Done()
			}
		}
	}
	applied := func(c chunk) {
		if progress != nil && len(c.entries) > 0 {
			progress(int(c.cursor), len(refs))
		}
	}
	if err := s.pipeline(ctx, engine, 0, read, track, applied); err != nil {
		return err
	}
	persisted.Wait()
	if firstErr != nil {
		return fmt.Errorf("indexer: rebuild not persisted: %w", firstErr)
	}
	return nil
}

// Records names every record that may have documents (conversations,
// customers, chats), with their companies, as entries a rebuild hands to
// Batches.
func Records(tx parley.Tx) ([]parley.OutboxEntry, error) {
	var refs []parley.OutboxEntry
	if err := tx.EachConversationID(func(company, id int64) {
		refs = append(refs, parley.OutboxEntry{Kind: parley.OutboxConversation, Company: company, ID: id})
	}); err != nil {
		return nil, err
	}
	if err := tx.EachCustomerID(func(company, id int64) {
		refs = append(refs, parley.OutboxEntry{Kind: parley.OutboxCustomer, Company: company, ID: id})
	}); err != nil {
		return nil, err
	}
	err := tx.EachChatID(func(company int64, id string) {
		refs = append(refs, parley.OutboxEntry{Kind: parley.OutboxChat, Company: company, Ref: id})
	})
	return refs, err
}

// Applied is the highest outbox sequence in the engine, for readiness checks.
func (s *Syncer) Applied() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}
