package indexer_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// seedAccount stores a company, its owner and a mailbox; it returns the caller.
func seedAccount(t *testing.T, db *storage.DB) parley.Caller {
	var who parley.Caller
	_, err := db.Update(func(tx *storage.Tx) error {
		c := &parley.Company{Name: "Acme", Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true}
		if err := tx.PutCompany(c); err != nil {
			return err
		}
		u := &parley.User{CompanyID: c.ID, FirstName: "Olivia", LastName: "Owner", Email: "olivia@acme.test", Role: parley.RoleOwner, Active: true}
		if err := tx.PutUser(u); err != nil {
			return err
		}
		who = parley.Caller{Company: c, User: u}
		return tx.PutMailbox(&parley.Mailbox{CompanyID: c.ID, Name: "Support"})
	})
	require.NoError(t, err)
	return who
}

func createConversations(t *testing.T, db *storage.DB, who parley.Caller, n int) {
	_, err := db.Update(func(tx *storage.Tx) error {
		for i := 0; i < n; i++ {
			in := &parley.NewConversation{
				Subject: parley.Ptr(fmt.Sprintf("Refund request %d", i)), Type: parley.Ptr("email"), MailboxID: parley.Ptr(int64(1)),
				Status: parley.Ptr("active"), Customer: &parley.CustomerInput{Email: parley.Ptr(fmt.Sprintf("c%d@example.com", i))},
				Threads: []parley.NewThread{{Type: parley.Ptr("customer"), Text: parley.Ptr("Please refund my order")}},
			}
			require.NoError(t, in.Validate())
			if _, err := parley.CreateConversation(tx, who, in, nil, now); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
}

func refunds(t *testing.T, e index.Engine) index.Result {
	res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
		Query: query.Match{Field: "subject", Text: "refund"}, Sort: []index.Sort{{Field: "id"}}, Limit: 100})
	require.NoError(t, err)
	return res
}

// TestOutboxReplayAfterCrash proves that records committed whose index
// entries were never applied (the process stopped between the two) are
// searchable after reopening.
func TestOutboxReplayAfterCrash(t *testing.T) {
	dir := t.TempDir()
	dbPath, idxPath := filepath.Join(dir, "parley.db"), filepath.Join(dir, "index")

	// First life: the index exists, the records commit, and the process
	// "dies" before any syncer runs.
	db, err := storage.Open(dbPath, storage.Options{})
	require.NoError(t, err)
	engine, err := bleveindex.Open(idxPath)
	require.NoError(t, err)
	require.NoError(t, engine.MarkBuilt()) // as serve does after building the (empty) index
	who := seedAccount(t, db)
	createConversations(t, db, who, 3)
	assert.Equal(t, 0, refunds(t, engine).Total, "nothing applied yet")
	depth, err := db.OutboxDepth()
	require.NoError(t, err)
	assert.Greater(t, depth, 0)
	require.NoError(t, engine.Close())
	require.NoError(t, db.Close())

	// Second life: the outbox is replayed on start.
	db, err = storage.Open(dbPath, storage.Options{})
	require.NoError(t, err)
	defer db.Close()
	engine, err = bleveindex.Open(idxPath)
	require.NoError(t, err)
	defer engine.Close()
	assert.False(t, engine.Fresh())
	syncer := indexer.NewSyncer(db, engine, quiet)
	require.NoError(t, syncer.Drain(context.Background()))
	assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, refunds(t, engine))
	syncer.Settle()
	depth, err = db.OutboxDepth()
	require.NoError(t, err)
	assert.Equal(t, 0, depth, "entries leave the outbox once the index holds them durably")
}

// openStore opens storage (without fsync) in a temporary directory,
// closed when the test ends.
func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// openStores opens storage (without fsync) and a Bleve engine in
// temporary directories, closed when the test ends.
func openStores(t *testing.T) (*storage.DB, *bleveindex.Engine) {
	t.Helper()
	db := openStore(t)
	engine, err := bleveindex.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { engine.Close() })
	return db, engine
}

// TestWaitSeesWrite checks that a write waited on is searchable, with the
// syncer running as in the server.
func TestWaitSeesWrite(t *testing.T) {
	db, engine := openStores(t)
	syncer := indexer.NewSyncer(db, engine, quiet)
	db.OnCommit(syncer.Notify) // as cmd/parley wires it
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go syncer.Run(ctx)
	who := seedAccount(t, db)
	for i := 1; i <= 5; i++ {
		seq, err := db.Update(func(tx *storage.Tx) error {
			in := &parley.NewConversation{Subject: parley.Ptr("Refund"), Type: parley.Ptr("email"), MailboxID: parley.Ptr(int64(1)),
				Status: parley.Ptr("active"), Customer: &parley.CustomerInput{Email: parley.Ptr("a@example.com")},
				Threads: []parley.NewThread{{Type: parley.Ptr("customer"), Text: parley.Ptr("x")}}}
			_, err := parley.CreateConversation(tx, who, in, nil, now)
			return err
		})
		require.NoError(t, err)
		require.True(t, syncer.Wait(ctx, seq, 5*time.Second))
		assert.Equal(t, i, refunds(t, engine).Total)
	}
}

// TestRebuildMatchesScan rebuilds both engines from storage and compares.
func TestRebuildMatchesScan(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	who := seedAccount(t, db)
	createConversations(t, db, who, 20)
	bleveEngine, err := bleveindex.Open(t.TempDir())
	require.NoError(t, err)
	defer bleveEngine.Close()
	oracle := scan.New()
	for _, e := range []index.Engine{bleveEngine, oracle} {
		require.NoError(t, indexer.NewSyncer(db, e, quiet).Rebuild(context.Background(), nil))
	}
	assert.Equal(t, refunds(t, oracle), refunds(t, bleveEngine))
	assert.Equal(t, 20, refunds(t, bleveEngine).Total)
}

// failing is an engine whose batches of one kind fail, reporting the
// failure to durable before Apply returns it, as Bleve does for the
// partitions of a batch it did not write.
type failing struct {
	index.Engine
	kind index.Kind
}

func (f failing) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	if b.Kind != f.kind {
		return f.Engine.Apply(ctx, b, durable)
	}
	err := fmt.Errorf("disk full")
	if durable != nil {
		durable(err)
	}
	return err
}

// TestFailedBatchStaysInTheOutbox checks that a batch the engine fails,
// whether or not the engine reported it, leaves the drain's entries in the
// outbox for the next drain, which acknowledges them once it succeeds.
func TestFailedBatchStaysInTheOutbox(t *testing.T) {
	for _, kind := range []index.Kind{index.Conversations, index.Messages} {
		t.Run(string(kind), func(t *testing.T) {
			db, engine := openStores(t)
			createConversations(t, db, seedAccount(t, db), 3)
			depth, err := db.OutboxDepth()
			require.NoError(t, err)

			broken := indexer.NewSyncer(db, failing{engine, kind}, quiet)
			require.ErrorContains(t, broken.Drain(context.Background()), "disk full")
			broken.Settle()
			after, err := db.OutboxDepth()
			require.NoError(t, err)
			assert.Equal(t, depth, after, "nothing is acknowledged")

			healthy := indexer.NewSyncer(db, engine, quiet)
			require.NoError(t, healthy.Drain(context.Background()))
			healthy.Settle()
			after, err = db.OutboxDepth()
			require.NoError(t, err)
			assert.Equal(t, 0, after)
			assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, refunds(t, engine))
		})
	}
}

// counting is an engine that counts the documents it is given, by kind
// (a rebuild applies batches from several goroutines).
type counting struct {
	index.Engine
	mu      *sync.Mutex
	upserts map[index.Kind]int
}

func (c counting) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	c.mu.Lock()
	c.upserts[b.Kind] += len(b.Upserts)
	c.mu.Unlock()
	return c.Engine.Apply(ctx, b, durable)
}

// TestRebuildAcknowledgesWhatItRead: after a load whose records committed
// but were never indexed (killed halfway, or loaded with no syncer
// running), a rebuild indexes each record once and empties the outbox,
// rather than applying every queued entry again after it.
func TestRebuildAcknowledgesWhatItRead(t *testing.T) {
	db, engine := openStores(t)
	createConversations(t, db, seedAccount(t, db), 3)
	depth, err := db.OutboxDepth()
	require.NoError(t, err)
	require.Greater(t, depth, 0)

	counted := counting{Engine: engine, mu: &sync.Mutex{}, upserts: map[index.Kind]int{}}
	syncer := indexer.NewSyncer(db, counted, quiet)
	require.NoError(t, syncer.Rebuild(context.Background(), nil))
	syncer.Settle()
	assert.Equal(t, 3, counted.upserts[index.Conversations], "each conversation indexed once")
	after, err := db.OutboxDepth()
	require.NoError(t, err)
	assert.Equal(t, 0, after, "the outbox holds nothing the rebuild read")
	last, err := db.LastOutboxSeq()
	require.NoError(t, err)
	assert.Equal(t, last, syncer.Applied())
	assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, refunds(t, engine))
}

// meeting is an engine whose first batch waits (up to patience) for a
// second to be under way, and records whether one was.
type meeting struct {
	index.Engine
	calls atomic.Int32
	both  chan struct{} // closed by the second batch
	met   atomic.Bool
}

// patience is how long meeting's first batch waits: far longer than a
// second goroutine takes to start, even on a loaded machine.
const patience = 20 * time.Second

func (m *meeting) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	switch m.calls.Add(1) {
	case 1:
		select {
		case <-m.both:
			m.met.Store(true)
		case <-time.After(patience):
		}
	case 2:
		close(m.both)
	}
	return m.Engine.Apply(ctx, b, durable)
}

// TestBatchesOfAReadApplyTogether: behind a backlog, the batches built
// from one read of the outbox (or of storage, for a rebuild) are of
// distinct kinds and companies, and the engine is given them together, so
// that indexing uses more than one core; what they index is unchanged.
func TestBatchesOfAReadApplyTogether(t *testing.T) {
	defer runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	for name, run := range map[string]func(*testing.T, *storage.DB, *indexer.Syncer) error{
		"drain": func(t *testing.T, db *storage.DB, s *indexer.Syncer) error {
			// A read that fills its size is a backlog.
			entries, err := db.Outbox(0, 1000)
			require.NoError(t, err)
			s.SetReadSize(len(entries))
			return s.Drain(context.Background())
		},
		"rebuild": func(_ *testing.T, _ *storage.DB, s *indexer.Syncer) error {
			return s.Rebuild(context.Background(), nil)
		},
	} {
		t.Run(name, func(t *testing.T) {
			db, engine := openStores(t)
			createConversations(t, db, seedAccount(t, db), 3) // conversations, customers and messages: three batches
			met := &meeting{Engine: engine, both: make(chan struct{})}
			syncer := indexer.NewSyncer(db, met, quiet)
			require.NoError(t, run(t, db, syncer))
			syncer.Settle()
			assert.True(t, met.met.Load(), "the first batch was alone in the engine")
			assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, refunds(t, engine))
		})
	}
}

// crowd counts the batches in the engine at once, and the most there were.
type crowd struct {
	index.Engine
	mu       sync.Mutex
	in, most int
}

func (c *crowd) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	c.mu.Lock()
	c.in++
	c.most = max(c.most, c.in)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.in--
		c.mu.Unlock()
	}()
	time.Sleep(50 * time.Millisecond) // long enough for a second batch to arrive, were it sent
	return c.Engine.Apply(ctx, b, durable)
}

// TestCaughtUpDrainAppliesOneBatchAtATime: a drain that read all there was
// (no backlog) gives the engine one batch at a time, leaving the other
// cores to the writers' requests; it indexes the same.
func TestCaughtUpDrainAppliesOneBatchAtATime(t *testing.T) {
	defer runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	db, engine := openStores(t)
	createConversations(t, db, seedAccount(t, db), 3) // three batches, as above
	c := &crowd{Engine: engine}
	syncer := indexer.NewSyncer(db, c, quiet)
	require.NoError(t, syncer.Drain(context.Background()))
	syncer.Settle()
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Equal(t, 1, c.most, "batches in the engine at once")
	assert.Equal(t, index.Result{IDs: []string{"1", "2", "3"}, Total: 3}, refunds(t, engine))
}
