package indexer_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
)

// gated is an engine that holds back, until opened, every conversation
// batch holding a conversation past held, and that logs the tags of
// conversation watched each time a batch writes it.
type gated struct {
	index.Engine
	held    int64
	watched string
	open    chan struct{}
	blocked chan struct{} // told each time a batch is held back

	mu   sync.Mutex
	tags []string // the watched conversation's tags, batch after batch
}

func newGated(held int64, watched string) *gated {
	return &gated{Engine: scan.New(), held: held, watched: watched, open: make(chan struct{}), blocked: make(chan struct{}, 100)}
}

func (g *gated) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	if b.Kind == index.Conversations && slices.ContainsFunc(b.Upserts, func(d index.Document) bool {
		id, err := strconv.ParseInt(d.ID, 10, 64)
		return err == nil && id > g.held
	}) {
		g.blocked <- struct{}{}
		<-g.open
	}
	g.mu.Lock()
	for _, d := range b.Upserts {
		if b.Kind == index.Conversations && d.ID == g.watched {
			g.tags = append(g.tags, strings.Join(d.Keywords["tag"], ","))
		}
	}
	g.mu.Unlock()
	return g.Engine.Apply(ctx, b, durable)
}

func (g *gated) watchedTags() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.tags)
}

// tagged are the conversations of company 1 the engine finds with tag.
func tagged(t *testing.T, e index.Engine, tag string) []string {
	res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
		Query: query.Keyword{Field: "tag", Value: tag}, Limit: 10})
	require.NoError(t, err)
	return res.IDs
}

func replaceTags(t *testing.T, db *storage.DB, who parley.Caller, id int64, tags ...string) uint64 {
	seq, err := db.Update(func(tx *storage.Tx) error { return parley.ReplaceTags(tx, who, id, tags, now) })
	require.NoError(t, err)
	return seq
}

// drained opens a store whose conversation 1 engine holds (drained
// before any test's backlog), with a syncer wired to its commits as the
// server wires it, not yet running; prepare, when set, runs on the syncer
// before that first drain.
func drained(t *testing.T, engine index.Engine, prepare func(*indexer.Syncer)) (*storage.DB, parley.Caller, *indexer.Syncer) {
	t.Helper()
	db := openStore(t)
	who := seedAccount(t, db)
	createConversations(t, db, who, 1)
	syncer := indexer.NewSyncer(db, engine, quiet)
	if prepare != nil {
		prepare(syncer)
	}
	require.NoError(t, syncer.Drain(context.Background()))
	syncer.Settle()
	db.OnCommit(syncer.Notify)
	return db, who, syncer
}

// run runs the syncer as the server does until the test ends, and gives
// the context it runs in.
func run(t *testing.T, syncer *indexer.Syncer) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go syncer.Run(ctx)
	return ctx
}

// TestWaitingWriteTakesThePriorityLane: a write waiting behind a backlog
// the drain is stuck in is searchable at once; the backlog is drained
// and acknowledged after, as before.
func TestWaitingWriteTakesThePriorityLane(t *testing.T) {
	engine := newGated(1, "1")
	db, who, syncer := drained(t, engine, nil)
	ctx := run(t, syncer)

	createConversations(t, db, who, 150) // two entries each: the backlog
	<-engine.blocked                     // the drain is stuck in it
	seq := replaceTags(t, db, who, 1, "urgent")
	require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
	assert.Equal(t, []string{"1"}, tagged(t, engine, "urgent"))
	assert.Less(t, syncer.Applied(), seq, "the drain has not reached the write")

	close(engine.open)
	require.Eventually(t, func() bool { return syncer.Applied() >= seq }, 5*time.Second, time.Millisecond)
	syncer.Settle()
	depth, err := db.OutboxDepth()
	require.NoError(t, err)
	assert.Equal(t, 0, depth, "every entry acknowledged, the write's with the drain")
	assert.Equal(t, 151, refunds(t, engine).Total)
	assert.Equal(t, []string{"1"}, tagged(t, engine, "urgent"))
}

// TestDrainNeverWritesAnOlderReading: the drain reads a chunk ahead while
// it applies one; a record the priority lane applied meanwhile, from a
// newer reading, is not written over by the older one that chunk holds.
func TestDrainNeverWritesAnOlderReading(t *testing.T) {
	engine := newGated(1, "1")
	db, who, syncer := drained(t, engine, func(s *indexer.Syncer) { s.SetReadSize(100) })

	// Before the drain runs: a first chunk of backlog, then conversation
	// 1 tagged "old" in the second chunk, which the drain reads while the
	// first is held back.
	createConversations(t, db, who, 50)
	replaceTags(t, db, who, 1, "old")
	createConversations(t, db, who, 100)
	read := make(chan struct{}, 10)
	syncer.SetAfterRead(func() {
		select {
		case read <- struct{}{}:
		default:
		}
	})
	ctx := run(t, syncer)
	<-engine.blocked
	<-read
	<-read // the second chunk, "old" in it, is read while the first is held back

	seq := replaceTags(t, db, who, 1, "new")
	require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
	assert.Equal(t, []string{"1"}, tagged(t, engine, "new"))

	close(engine.open)
	require.Eventually(t, func() bool { return syncer.Applied() >= seq }, 5*time.Second, time.Millisecond)
	syncer.Settle()
	tags := engine.watchedTags()
	require.Equal(t, "new", tags[len(tags)-1])
	assert.NotContains(t, tags[slices.Index(tags, "new"):], "old", "written in this order: %q", tags)
	assert.Equal(t, []string{"1"}, tagged(t, engine, "new"))
	assert.Empty(t, tagged(t, engine, "old"))
}

// TestCaughtUpWriteWaitsForTheDrain: with the drain keeping up, a write
// waits for it and is indexed once.
func TestCaughtUpWriteWaitsForTheDrain(t *testing.T) {
	engine := newGated(1, "1")
	db, who, syncer := drained(t, engine, nil)
	ctx := run(t, syncer)

	seq := replaceTags(t, db, who, 1, "once")
	require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
	assert.Equal(t, []string{"", "once"}, engine.watchedTags())
}

// TestPriorityLaneWaitsForTheRecordsInFlight: while the drain applies a
// chunk holding a record, the priority lane does not apply that record
// beside it (whose batch would land last is anyone's guess); the write
// is searchable after the chunk.
func TestPriorityLaneWaitsForTheRecordsInFlight(t *testing.T) {
	engine := newGated(1, "1")
	db, who, syncer := drained(t, engine, nil)
	replaceTags(t, db, who, 1, "old")
	createConversations(t, db, who, 150) // in the chunk with "old", which is held back
	ctx := run(t, syncer)
	<-engine.blocked

	seq := replaceTags(t, db, who, 1, "new")
	assert.False(t, syncer.Wait(ctx, seq, 200*time.Millisecond), "searchable while its older reading is in flight")
	close(engine.open)
	require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
	syncer.Settle()
	assert.Equal(t, []string{"", "old", "new"}, engine.watchedTags()[:3])
	assert.Equal(t, []string{"1"}, tagged(t, engine, "new"))
}

// lossy reports, once armed, every batch writing conversation 1 lost:
// searchable, never durable.
type lossy struct {
	index.Engine
	armed atomic.Bool
}

func (l *lossy) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	if !l.armed.Load() || b.Kind != index.Conversations ||
		!slices.ContainsFunc(b.Upserts, func(d index.Document) bool { return d.ID == "1" }) {
		return l.Engine.Apply(ctx, b, durable)
	}
	if err := l.Engine.Apply(ctx, b, nil); err != nil {
		return err
	}
	durable(errors.New("lost"))
	return nil
}

// TestCoveredEntriesWaitForTheLanesDurability: the drain leaves out a
// record the priority lane applied from a newer read, and acknowledges
// its entries only once the lane's batch is durable: never, here, so the
// entry stays for the next start to replay.
func TestCoveredEntriesWaitForTheLanesDurability(t *testing.T) {
	gate := newGated(1, "1")
	engine := &lossy{Engine: gate}
	db, who, syncer := drained(t, engine, nil)
	engine.armed.Store(true)
	ctx := run(t, syncer)

	createConversations(t, db, who, 150)
	<-gate.blocked
	seq := replaceTags(t, db, who, 1, "urgent")
	require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
	close(gate.open)
	require.Eventually(t, func() bool { return syncer.Applied() >= seq }, 5*time.Second, time.Millisecond)
	syncer.Settle()
	assert.Equal(t, []string{"", "urgent"}, gate.watchedTags(), "the drain left the covered record out")
	pending, err := db.Outbox(0, 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, seq, pending[0].Seq)
}
