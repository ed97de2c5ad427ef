package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// database is what an instance runs on, whichever the backend: the
// domain's store, the signals the workers sleep on, the figures the API
// reports, and the commit hooks. The embedded one also has the index
// outbox its syncer drains (storage.DB).
type database interface {
	api.Database
	parley.LaterSource
	parley.WebhookSource
	parley.MailSource
	SetBeforeCommit(fn parley.BeforeCommit)
	Close() error
}

var (
	_ database = (*storage.DB)(nil)
	_ database = (*pgstore.DB)(nil)
)

// instance is an opened backend: storage, engines and, embedded, the
// syncer. Embedded, search routes each request to the list engine or to
// Bleve, which the syncer feeds from the outbox. On PostgreSQL, search is
// pgindex alone, whose rows each write writes in its own transaction
// (pgsearch.Write): there is no list engine and no syncer, and a node holds
// nothing per company.
type instance struct {
	at     location
	db     database
	full   index.Engine
	fast   *lists.Engine
	search index.Engine
	syncer *indexer.Syncer // nil on PostgreSQL
	// workflows runs automatic workflows in writes and fires their
	// wake-ups (the scheduler).
	workflows *workflow.Engine
	// Embedded only: the bbolt file and the Bleve index, which the list
	// engine's snapshot and the index's compaction and build mark need.
	bolt  *storage.DB
	bleve *bleveindex.Engine
	// PostgreSQL only: the search engine, whose planner statistics a bulk
	// load makes stale.
	pgSearch *pgindex.Engine
	// replicated reads the search tables from a streaming replica
	// (--read-database); nil without one.
	replicated *pgindex.Replicated
}

func dbPath(dir string) string    { return filepath.Join(dir, "parley.db") }
func indexPath(dir string) string { return filepath.Join(dir, "index") }

// listsPath is where the list engine's rows are saved at shutdown, so the
// next start need not decode every stored conversation.
func listsPath(dir string) string { return filepath.Join(dir, "lists.snapshot") }

// openStore opens the records of at without a search engine: the
// embedded database file (creating the directory), whose writes queue
// their index work in its outbox, or the PostgreSQL database, refused
// when its schema is older than this binary, whose writes write their
// search rows (pgsearch.Write), so its search tables are migrated too.
func openStore(ctx context.Context, at location) (database, error) {
	if at.postgres() {
		db, err := pgstore.Open(ctx, at.url, pgstore.Options{Indexer: pgsearch.Write})
		if errors.Is(err, pgstore.ErrSchemaOutdated) {
			return nil, fmt.Errorf("%w; apply it with `parley migrate --database URL`, then start again", err)
		}
		if err != nil {
			return nil, err
		}
		cfg, err := pgx.ParseConfig(at.url)
		if err == nil {
			_, err = pgindex.Migrate(ctx, cfg)
		}
		if err != nil {
			return nil, errors.Join(err, db.Close())
		}
		return db, nil
	}
	if err := os.MkdirAll(at.dir, 0o700); err != nil {
		return nil, err
	}
	return storage.Open(dbPath(at.dir), storage.Options{})
}

// open opens the backend at at; with demo set, an empty database first
// receives the demo data. Embedded, pending outbox entries (left by a
// crash) are applied before it returns; a fresh embedded index, or
// PostgreSQL search tables built with another mapping version, are
// rebuilt, reporting to progress when it is not nil.
func open(ctx context.Context, at location, demo bool, clock parley.Clock, log *slog.Logger, progress func(done, total int)) (*instance, error) {
	db, err := openStore(ctx, at)
	if err != nil {
		return nil, err
	}
	// Only an embedded store can predate the shared id space of users and
	// teams (pgstore had it from its first release).
	if bolt, ok := db.(*storage.DB); ok {
		if moved := bolt.RenumberedTeams(); len(moved) > 0 {
			log.Warn("teams renumbered: team and user ids now share one id space", "teams", moved)
		}
	}
	in := &instance{at: at, db: db, workflows: &workflow.Engine{Clock: clock}}
	if at.postgres() {
		if err := in.openPostgresEngines(ctx); err != nil {
			in.close()
			return nil, err
		}
	}
	if demo {
		if err := loadDemoIfEmpty(db.Store(), clock); err != nil {
			in.close()
			return nil, err
		}
	}
	// Automatic workflows run in every write's transaction from here on
	// (after the demo load, which is recorded as it was generated).
	db.SetBeforeCommit(in.workflows.BeforeCommit)
	if at.postgres() {
		in.search = in.full
		err = in.bringSearchTablesUp(ctx, log, progress)
	} else {
		err = in.openEmbedded(ctx, log, progress)
	}
	if err != nil {
		in.close()
		return nil, fmt.Errorf("bring the index up to date: %w", err)
	}
	return in, nil
}

// openEmbedded opens the embedded engines and the syncer between them and
// storage, then applies what the outbox holds, or builds a fresh Bleve
// index from storage.
func (in *instance) openEmbedded(ctx context.Context, log *slog.Logger, progress func(done, total int)) error {
	fresh, err := in.openEmbeddedEngines(log)
	if err != nil {
		return err
	}
	router := index.Router{Full: in.full, Fast: in.fast}
	in.search, in.syncer = router, indexer.NewSyncer(in.bolt, router, log)
	in.bolt.OnCommit(in.syncer.Notify) // a write wakes the syncer
	if !fresh {
		return in.syncer.Drain(ctx)
	}
	log.Info("building the search index from storage", "mappingVersion", index.MappingVersion)
	if err := in.syncer.Rebuild(ctx, progress); err != nil {
		return err
	}
	if err := in.compact(ctx); err != nil {
		return err
	}
	return in.bleve.MarkBuilt()
}

// bringSearchTablesUp rebuilds the search tables from the store when they
// were built with another mapping version (an upgrade changed what
// documents hold); otherwise they hold every committed write already.
// Several nodes may start together on one database: the rebuild lock lets
// one check and rebuild while the others wait, and find the tables
// current after it. The tables are marked built last, so a node that dies
// mid-rebuild leaves them stale for the next one to rebuild.
func (in *instance) bringSearchTablesUp(ctx context.Context, log *slog.Logger, progress func(done, total int)) error {
	unlock, err := in.pgSearch.LockRebuild(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	stale, err := in.pgSearch.Stale(ctx)
	if err != nil || !stale {
		return err
	}
	log.Info("rebuilding the search tables from the store", "mappingVersion", index.MappingVersion)
	if err := in.pgSearch.Truncate(ctx); err != nil {
		return err
	}
	if err := rebuildSearchTables(ctx, in.db.(*pgstore.DB), progress); err != nil {
		return err
	}
	if err := in.compact(ctx); err != nil {
		return err
	}
	return in.pgSearch.MarkBuilt(ctx)
}

// reindexBatch is how many records one write of a rebuild of the search
// tables reindexes: enough to amortise a transaction, few enough that a
// write of the same records committing meanwhile (which makes the batch
// run again) costs little.
const reindexBatch = 500

// rebuildSearchTables writes the search rows of every record of the
// store, reindexBatch records per write (pgstore.DB.Reindex), reporting
// progress. Writes committing meanwhile write their own rows; a batch
// that read a record before such a write conflicts with it and runs
// again, so no row is left older than its record.
func rebuildSearchTables(ctx context.Context, pg *pgstore.DB, progress func(done, total int)) error {
	var refs []parley.OutboxEntry
	err := pg.Store().View(ctx, func(tx parley.Tx) error {
		var err error
		refs, err = indexer.Records(tx)
		return err
	})
	if err != nil {
		return err
	}
	for start := 0; start < len(refs); start += reindexBatch {
		end := min(start+reindexBatch, len(refs))
		if err := pg.Reindex(ctx, refs[start:end]); err != nil {
			return fmt.Errorf("reindex records %d to %d of %d: %w", start+1, end, len(refs), err)
		}
		if progress != nil {
			progress(end, len(refs))
		}
	}
	return nil
}

// listProjection fills the list engine with the documents the syncer
// builds.
var listProjection = lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument}

// openEmbeddedEngines opens the Bleve index of the data directory and the
// list engine (from its snapshot, else from storage); fresh means the
// Bleve index is new and must be built from storage. With a fresh index
// the list engine starts empty: the rebuild hands every document to both
// engines through the router, so loading the list engine from storage too
// would read and decode every conversation and its threads a second time
// for rows the rebuild replaces.
func (in *instance) openEmbeddedEngines(log *slog.Logger) (fresh bool, err error) {
	in.bolt = in.db.(*storage.DB)
	if in.bleve, err = bleveindex.Open(indexPath(in.at.dir)); err != nil {
		return false, err
	}
	in.full = in.bleve
	if err := in.bleve.DropKinds(index.TextlessKinds()...); err != nil { // the router gives them to the list engine alone
		return false, err
	}
	if in.bleve.Fresh() {
		in.fast = lists.New()
		return true, nil
	}
	fast, restored, damaged, err := lists.Open(in.bolt, dbPath(in.at.dir), listsPath(in.at.dir), listProjection)
	if err != nil {
		return false, fmt.Errorf("load the list engine: %w", err)
	}
	if damaged != nil {
		log.Warn("list engine snapshot not used; loaded from storage", "err", damaged)
	}
	log.Debug("list engine ready", "fromSnapshot", restored)
	go func() { // the report rows fill after the start (a damaged snapshot's too)
		err := fast.WaitReports()
		if err == nil {
			return
		}
		log.Warn("list engine's rows not filled; filling them from storage", "err", err)
		fast.Refill(in.bolt.Store(), listProjection)
		if err := fast.WaitReports(); err != nil {
			log.Error("list engine's rows not filled from storage; lists go to the full engine, and reports on messages, calls and chats fail, until a restart", "err", err)
		}
	}()
	in.fast = fast
	return false, nil
}

// openPostgresEngines opens pgindex on the store's database (migrating
// its tables), and its replicated reads with --read-database.
func (in *instance) openPostgresEngines(ctx context.Context) error {
	engine, err := pgindex.Open(ctx, in.at.url, pgindex.Options{})
	if err != nil {
		return err
	}
	in.pgSearch, in.full = engine, engine
	if in.at.readURL != "" {
		replicated, err := pgindex.OpenReplicated(ctx, engine, in.at.readURL)
		if err != nil {
			return err
		}
		in.full, in.replicated = replicated, replicated
	}
	return nil
}

// compact waits until everything applied is durable, then readies the
// full engine for queries after a bulk load (a rebuild, an import): Bleve
// merges the many small segments it left, PostgreSQL refreshes the
// planner's statistics of the search tables.
func (in *instance) compact(ctx context.Context) error {
	if in.syncer != nil {
		in.syncer.Settle()
	}
	var err error
	if in.bleve != nil {
		err = in.bleve.Compact(ctx)
	} else {
		err = in.pgSearch.Settle(ctx)
	}
	if err != nil {
		return fmt.Errorf("compact the search index: %w", err)
	}
	return nil
}

// drain applies what the outbox holds (embedded); on PostgreSQL every
// write indexed itself.
func (in *instance) drain(ctx context.Context) error {
	if in.syncer == nil {
		return nil
	}
	return in.syncer.Drain(ctx)
}

// runSyncer runs the syncer until ctx ends (embedded); on PostgreSQL
// there is none, and it returns at once.
func (in *instance) runSyncer(ctx context.Context) {
	if in.syncer != nil {
		in.syncer.Run(ctx)
	}
}

func loadDemoIfEmpty(store parley.Store, clock parley.Clock) error {
	empty := false
	err := store.View(context.Background(), func(tx parley.Tx) error {
		companies, err := tx.Companies()
		empty = len(companies) == 0
		return err
	})
	if err != nil || !empty {
		return err
	}
	return fixtures.Load(store, clock.Now())
}

// closeCompacted closes an embedded instance as close does, compacting
// its storage file on the way (storage.Compact), for the end of a bulk
// load. The list snapshot is saved after the compaction, marked with the
// new file, so the next start restores it rather than loading every
// conversation from storage. It returns the file's sizes before and after.
func (in *instance) closeCompacted() (before, after int64, err error) {
	if in.bolt == nil || in.fast == nil || in.bleve == nil {
		return 0, 0, errors.Join(errors.New("only an embedded data directory compacts"), in.close())
	}
	in.syncer.Settle()
	// The rows must be whole to be saved; when their fill failed, no
	// snapshot is saved (as close does) and the next start loads them.
	filled := in.fast.WaitReports() == nil
	// The compacted file carries the same outbox, so the rows' position
	// in it stays.
	seq, err := in.bolt.LastOutboxSeq()
	err = errors.Join(err, in.full.Close(), in.db.Close())
	if err != nil {
		return 0, 0, errors.Join(err, in.fast.Close())
	}
	before, after, err = storage.Compact(dbPath(in.at.dir))
	if err == nil && filled {
		err = in.fast.SaveAt(dbPath(in.at.dir), seq, listsPath(in.at.dir))
	}
	return before, after, errors.Join(err, in.fast.Close())
}

// settleWait bounds how long closing waits for the index to persist what
// it applied; entries not acknowledged by then are replayed at next start.
const settleWait = 10 * time.Second

// close releases what open opened, also when it failed half-way.
func (in *instance) close() error {
	if in.syncer != nil {
		settled := make(chan struct{})
		go func() { in.syncer.Settle(); close(settled) }()
		select {
		case <-settled:
		case <-time.After(settleWait):
		}
	}
	var err error
	// Callers have stopped the syncer (serve stops it before closing), so
	// the rows hold everything applied and the outbox everything not.
	if in.fast != nil && in.bolt != nil {
		err = in.fast.SaveFor(in.bolt, dbPath(in.at.dir), listsPath(in.at.dir))
	}
	if in.fast != nil {
		// Stops a fill of the report rows still reading the store, which
		// would hold a connection the store's close waits for.
		err = errors.Join(err, in.fast.Close())
	}
	if in.full != nil {
		err = errors.Join(err, in.full.Close())
	} else if in.pgSearch != nil {
		err = errors.Join(err, in.pgSearch.Close())
	}
	return errors.Join(err, in.db.Close())
}
