package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/gcpolicy"
)

// rebuildProgress reports a rebuild of the search index at start (an
// upgrade that changed index.MappingVersion, or a lost index): a progress
// bar on a terminal, otherwise a log line every tenth of the way, so a
// service manager's journal shows that the server is busy, not stuck.
func rebuildProgress(stderr io.Writer, log *slog.Logger) func(done, total int) {
	if bar := progressBar(stderr, "rebuilding the search index"); bar != nil {
		return bar
	}
	next := 1 // the next tenth to report
	return func(done, total int) {
		if total == 0 || done*10 < next*total {
			return
		}
		log.Info("rebuilding the search index", "done", done, "total", total, "mappingVersion", index.MappingVersion)
		next = done*10/total + 1
	}
}

// reindexPostgres rebuilds the search tables of the PostgreSQL database at
// url: it forgets the version they were built with, then opens the
// database as a starting node does, which rebuilds stale tables under the
// rebuild lock (instance.bringSearchTablesUp). Nodes already serving keep
// serving meanwhile, from tables that fill as the rebuild goes.
func reindexPostgres(ctx context.Context, url string, stderr io.Writer) error {
	at := location{url: url}
	gcpolicy.Apply(os.Getenv, os.DirFS("/")) // a rebuild indexes everything: see the package
	// Refuse an unmigrated database before touching the search tables.
	db, err := openStore(ctx, at)
	if err != nil {
		return err
	}
	db.Close()
	engine, err := pgindex.Open(ctx, url, pgindex.Options{})
	if err != nil {
		return err
	}
	err = engine.MarkStale(ctx)
	engine.Close()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	in, err := open(ctx, at, false, parley.SystemClock, log, rebuildProgress(stderr, log))
	if err != nil {
		return err
	}
	if err := in.close(); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "search tables rebuilt")
	return nil
}
