package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// instance is an opened data directory: storage, engines and syncer.
// search routes each request to the list engine or to Bleve.
type instance struct {
	dir    string
	db     *storage.DB
	engine *bleveindex.Engine
	fast   *lists.Engine
	search index.Router
	syncer *indexer.Syncer
}

func dbPath(dir string) string    { return filepath.Join(dir, "parley.db") }
func indexPath(dir string) string { return filepath.Join(dir, "index") }

// listsPath is where the list engine's rows are saved at shutdown, so the
// next start need not decode every stored conversation.
func listsPath(dir string) string { return filepath.Join(dir, "lists.snapshot") }

// open opens a data directory, creating it; with demo set, an empty
// database first receives the demo data. Pending outbox entries (left by a
// crash) are applied before it returns, and a fresh index is rebuilt,
// reporting to progress when it is not nil.
func open(ctx context.Context, dir string, demo bool, clock parley.Clock, log *slog.Logger, progress func(done, total int)) (*instance, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	db, err := storage.Open(dbPath(dir), storage.Options{})
	if err != nil {
		return nil, err
	}
	if moved := db.RenumberedTeams(); len(moved) > 0 {
		log.Warn("teams renumbered: team and user ids now share one id space", "teams", moved)
	}
	if demo {
		if err := loadDemoIfEmpty(db, clock); err != nil {
			db.Close()
			return nil, err
		}
	}
	// Automatic workflows run in every write's transaction from here on
	// (after the demo load, which is recorded as it was generated).
	db.SetBeforeCommit((&workflow.Engine{Clock: clock}).BeforeCommit)
	engine, err := bleveindex.Open(indexPath(dir))
	if err != nil {
		db.Close()
		return nil, err
	}
	fast, restored, damaged, err := lists.Open(db, dbPath(dir), listsPath(dir), indexer.ListFields)
	if err != nil {
		engine.Close()
		db.Close()
		return nil, fmt.Errorf("load the list engine: %w", err)
	}
	if damaged != nil {
		log.Warn("list engine snapshot not used; loaded from storage", "err", damaged)
	}
	log.Debug("list engine ready", "fromSnapshot", restored)
	in := &instance{dir: dir, db: db, engine: engine, fast: fast, search: index.Router{Full: engine, Fast: fast}}
	in.syncer = indexer.NewSyncer(db, in.search, log)
	db.OnCommit(in.syncer.Notify) // a write wakes the syncer
	if engine.Fresh() {
		log.Info("building the search index from storage", "mappingVersion", index.MappingVersion)
		if err = in.syncer.Rebuild(ctx, progress); err == nil {
			err = in.compact(ctx)
		}
		if err == nil {
			err = engine.MarkBuilt()
		}
	} else {
		err = in.syncer.Drain(ctx)
	}
	if err != nil {
		in.close()
		return nil, fmt.Errorf("bring the index up to date: %w", err)
	}
	return in, nil
}

// compact waits until everything applied is durable, then merges the
// index's segments: after a bulk load (a rebuild, an import) queries
// would otherwise run over the many small segments it left.
func (in *instance) compact(ctx context.Context) error {
	in.syncer.Settle()
	if err := in.engine.Compact(ctx); err != nil {
		return fmt.Errorf("compact the search index: %w", err)
	}
	return nil
}

func loadDemoIfEmpty(db *storage.DB, clock parley.Clock) error {
	empty := false
	err := db.View(func(tx *storage.Tx) error {
		companies, err := tx.Companies()
		empty = len(companies) == 0
		return err
	})
	if err != nil || !empty {
		return err
	}
	return fixtures.Load(db.Store(), clock.Now())
}

// settleWait bounds how long closing waits for the index to persist what
// it applied; entries not acknowledged by then are replayed at next start.
const settleWait = 10 * time.Second

func (in *instance) close() error {
	settled := make(chan struct{})
	go func() { in.syncer.Settle(); close(settled) }()
	select {
	case <-settled:
	case <-time.After(settleWait):
	}
	// Callers have stopped the syncer (serve stops it before closing), so
	// the rows hold everything applied and the outbox everything not.
	err := in.fast.SaveFor(in.db, dbPath(in.dir), listsPath(in.dir))
	err = errors.Join(err, in.engine.Close(), in.db.Close())
	return err
}
