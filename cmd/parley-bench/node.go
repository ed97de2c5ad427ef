package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
)

// node is a Parley data directory opened and served on a loopback port,
// wired as `parley serve` wires it (cmd/parley/instance.go's open, then
// serve.go): storage, Bleve (rebuilt and marked built when fresh), the
// list engine restored from its snapshot or loaded from storage, the syncer drained of what the outbox
// holds and then running, then the API. cmd/parley is a main package, so
// these few lines are copied rather than shared; left out are the
// workflow engine's commit hook (a setter, free at start) and the
// scheduler, webhook and mail goroutines, which do not gate readiness.
type node struct {
	dir        string
	fast       *lists.Engine
	db         *storage.DB
	full       *bleveindex.Engine
	engine     index.Router
	syncer     *indexer.Syncer
	base       string
	stopServer func()
	stopSync   func()
	closeOnce  sync.Once
	closeErr   error
}

// StartTimes are what opening a node spent on each step, and in all until
// GET /readyz answered 200.
type StartTimes struct {
	Storage    time.Duration `json:"storage"`
	Index      time.Duration `json:"index"`
	ListEngine time.Duration `json:"listEngine"`
	Drain      time.Duration `json:"drain"` // the outbox (or a rebuild of a fresh index)
	Ready      time.Duration `json:"ready"` // from opening storage to /readyz answering 200
}

func openNode(ctx context.Context, dir string, log *slog.Logger) (*node, StartTimes, error) {
	n := &node{stopServer: func() {}, stopSync: func() {}}
	t, err := n.open(ctx, dir, log)
	if err != nil {
		return nil, t, errors.Join(err, n.close())
	}
	return n, t, nil
}

func (n *node) open(ctx context.Context, dir string, log *slog.Logger) (t StartTimes, err error) {
	start := time.Now()
	step := start
	lap := func(d *time.Duration) { now := time.Now(); *d = now.Sub(step); step = now }
	if n.db, err = storage.Open(filepath.Join(dir, "parley.db"), storage.Options{}); err != nil {
		return t, err
	}
	lap(&t.Storage)
	if n.full, err = bleveindex.Open(filepath.Join(dir, "index")); err != nil {
		return t, err
	}
	if err = n.full.DropKinds(index.TextlessKinds()...); err != nil { // as parley serve does
		return t, err
	}
	lap(&t.Index)
	n.dir = dir
	if n.full.Fresh() { // as parley serve does: the rebuild below fills the list engine too
		n.fast = lists.New()
	} else {
		fast, _, damaged, err := lists.Open(n.db, filepath.Join(dir, "parley.db"), filepath.Join(dir, "lists.snapshot"), lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument})
		if err != nil {
			return t, fmt.Errorf("load the list engine: %w", err)
		}
		if damaged != nil { // as parley serve does: a snapshot of another version is read again from storage
			log.Warn("list engine snapshot not used; loaded from storage", "err", damaged)
		}
		n.fast = fast
	}
	lap(&t.ListEngine)
	n.engine = index.Router{Full: n.full, Fast: n.fast}
	n.syncer = indexer.NewSyncer(n.db, n.engine, log)
	n.db.OnCommit(n.syncer.Notify)
	if n.full.Fresh() {
		if err = n.syncer.Rebuild(ctx, nil); err == nil {
			err = n.full.MarkBuilt()
		}
	} else {
		err = n.syncer.Drain(ctx)
	}
	if err != nil {
		return t, fmt.Errorf("bring the index up to date: %w", err)
	}
	lap(&t.Drain)
	syncCtx, stop := context.WithCancel(context.Background())
	synced := make(chan struct{})
	go func() { n.syncer.Run(syncCtx); close(synced) }()
	n.stopSync = func() { stop(); <-synced; n.syncer.Settle() }
	if n.base, n.stopServer, err = serve(n.db, n.engine, n.syncer, log); err != nil {
		return t, err
	}
	if err = waitReady(ctx, n.base); err != nil {
		return t, err
	}
	t.Ready = time.Since(start)
	return t, nil
}

// waitReady polls GET /readyz until it answers 200.
func waitReady(ctx context.Context, base string) error {
	client := &http.Client{Timeout: 10 * time.Second}
	for {
		res, err := client.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for /readyz: %w (last: %v)", ctx.Err(), err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// closeCompacted closes the node as close does, compacting its storage
// file on the way, as parley import ends (cmd/parley/instance.go's
// closeCompacted, copied for the reason above): the list rows are saved
// after the compaction, marked with the new file. It returns the file's
// sizes before and after.
func (n *node) closeCompacted() (before, after int64, err error) {
	n.closeOnce.Do(func() {
		n.stopServer()
		n.stopSync()
		filled := n.fast.WaitReports() == nil
		seq, err := n.db.LastOutboxSeq()
		if err = errors.Join(err, n.full.Close(), n.db.Close()); err != nil {
			n.closeErr = err
			return
		}
		file := filepath.Join(n.dir, "parley.db")
		before, after, err = storage.Compact(file)
		if err == nil && filled {
			err = n.fast.SaveAt(file, seq, filepath.Join(n.dir, "lists.snapshot"))
		}
		n.closeErr = errors.Join(err, n.fast.Close())
	})
	return before, after, n.closeErr
}

// close stops serving and syncing, waits for what the index applied to be
// durable, and closes the index and storage, as parley serve does at
// shutdown. Later calls return the first one's error.
func (n *node) close() error {
	n.closeOnce.Do(func() {
		n.stopServer()
		n.stopSync()
		if n.fast != nil { // saved as parley serve saves it, for the restart
			n.closeErr = n.fast.SaveFor(n.db, filepath.Join(n.dir, "parley.db"), filepath.Join(n.dir, "lists.snapshot"))
		}
		if n.full != nil {
			n.closeErr = errors.Join(n.closeErr, n.full.Close())
		}
		if n.db != nil {
			n.closeErr = errors.Join(n.closeErr, n.db.Close())
		}
	})
	return n.closeErr
}
