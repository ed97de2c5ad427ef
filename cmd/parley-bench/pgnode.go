package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
)

// pgNode is Parley on its PostgreSQL backend, wired as `parley serve
// --database` wires it (cmd/parley/instance.go's open): the records in
// pgstore, each write writing its search rows (pgindex, in the same
// database) in its own transaction, every search answered by pgindex,
// and the API on a loopback port. It holds no list engine and no syncer.
type pgNode struct {
	db     *pgstore.DB
	search *pgindex.Engine
	base   string
	stop   func()
}

// openPGNode migrates the empty database at url and serves it.
func openPGNode(ctx context.Context, url string, log *slog.Logger) (*pgNode, error) {
	if _, err := pgstore.Migrate(ctx, url); err != nil {
		return nil, err
	}
	db, err := pgstore.Open(ctx, url, pgstore.Options{Indexer: pgsearch.Write})
	if err != nil {
		return nil, err
	}
	n := &pgNode{db: db, stop: func() {}}
	if n.search, err = pgindex.Open(ctx, url, pgindex.Options{}); err != nil {
		return nil, errors.Join(err, n.close())
	}
	// Every write indexes itself, so the tables are current from the
	// first: recorded so, as parley serve records a new database's, a
	// node later started on the bench's kept database serves it at once
	// instead of rebuilding it.
	if err := n.search.MarkBuilt(ctx); err != nil {
		return nil, errors.Join(err, n.close())
	}
	if n.base, n.stop, err = serve(db, n.search, nil, log); err != nil {
		return nil, errors.Join(err, n.close())
	}
	return n, nil
}

func (n *pgNode) close() error {
	n.stop()
	var err error
	if n.search != nil {
		err = n.search.Close()
	}
	return errors.Join(err, n.db.Close())
}

// BackendLoad is what loading the bench's data into Parley on PostgreSQL
// measured.
type BackendLoad struct {
	HTTPPerSecond     float64 `json:"httpConversationsPerSecond"`
	InternalPerSecond float64 `json:"internalConversationsPerSecond"`
	// SearchBytesPerConversation is the size of the search tables
	// (pgindex.Tables, with their indexes and TOAST) over the
	// conversations loaded.
	SearchBytesPerConversation float64 `json:"searchBytesPerConversation"`
	// LoadedBy, as PeerLoad's: the figures are an earlier run's load.
	LoadedBy string `json:"loadedBy,omitempty"`
}

// BackendResult is a query's answer on Parley's PostgreSQL backend.
type BackendResult struct {
	Hits int           `json:"hits"`
	P50  time.Duration `json:"p50"`
	P99  time.Duration `json:"p99"`
}

// runOnPostgresBackend loads the same generated data (same seeds, same
// clock) into Parley on PostgreSQL in a new database of the bench's
// server, and runs the same queries through the same HTTP API, recording
// each beside the embedded result. Conversations loaded through HTTP
// arrive in the clients' order, so ids differ from the embedded run's;
// the queries are built again from this backend's world.
func runOnPostgresBackend(ctx context.Context, pg *peer, o Options, results []QueryResult, now time.Time, out io.Writer) (*BackendLoad, error) {
	var url string
	var err error
	var kept *keptLoad
	if pg.kept == nil {
		url, err = pg.server.NewDatabase(ctx)
	} else {
		url, _, err = pg.server.Database(ctx, backendDatabase)
		kept = &keptLoad{server: pg.server, name: backendDatabase}
	}
	if err != nil {
		return nil, err
	}
	run := now.Format(time.RFC3339)
	load := &BackendLoad{}
	reused := false
	if kept != nil && o.Reuse {
		if reused, err = kept.loadedBy(ctx, run, o.N, load); err != nil {
			return nil, err
		}
	}
	if kept != nil && !reused {
		if err := kept.reset(ctx, url); err != nil {
			return nil, err
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := openPGNode(ctx, url, quiet)
	if err != nil {
		return nil, fmt.Errorf("Parley on PostgreSQL: %w", err)
	}
	defer n.close()
	var w *world
	if reused {
		fmt.Fprintf(out, "reusing Parley on PostgreSQL that the run of %s loaded\n", run)
		load.LoadedBy = run
		if w, _, err = openWorld(n.db.Store(), o.N); err != nil {
			return nil, err
		}
	} else if w, err = loadBackend(ctx, n, url, o, now, load, out); err != nil {
		return nil, err
	}
	if kept != nil && !reused {
		if err := kept.loaded(ctx, run, o.N, load); err != nil {
			return nil, err
		}
	}
	convID, err := firstConversation(n.base, w.tokens[w.companies[0]])
	if err != nil {
		return nil, err
	}
	queries := o.selected(append(referenceQueries(w, now, convID), reportQueries(w, now)...))
	fmt.Fprintln(out, "running queries on Parley on PostgreSQL...")
	profiles := ""
	if o.QueryProfiles != "" {
		profiles = filepath.Join(o.QueryProfiles, "parley-on-postgres")
		if err := os.MkdirAll(profiles, 0o755); err != nil {
			return nil, err
		}
	}
	runs, err := runQueries(n.base, queries, o.Repeat, profiles)
	if err != nil {
		return nil, err
	}
	for i := range results {
		for _, r := range runs {
			if r.Name != results[i].Name {
				continue
			}
			if r.Hits != results[i].Hits {
				// On data one run loaded, the engines must agree. With
				// -reuse the embedded data and this database may come from
				// runs with other options (-http: which conversations
				// carry the load's date), and the table says so.
				if !o.Reuse {
					return nil, fmt.Errorf("query %q: Parley found %d embedded, %d on PostgreSQL", r.Name, results[i].Hits, r.Hits)
				}
				fmt.Fprintf(out, "warning: query %q: Parley found %d embedded, %d on PostgreSQL: the reused loads differ\n", r.Name, results[i].Hits, r.Hits)
			}
			results[i].Backend = &BackendResult{Hits: r.Hits, P50: r.P50, P99: r.P99}
		}
	}
	return load, nil
}

// loadBackend loads the generated data into the node and measures the
// load into load.
func loadBackend(ctx context.Context, n *pgNode, url string, o Options, now time.Time, load *BackendLoad, out io.Writer) (*world, error) {
	w, rates, err := loadGenerated(ctx, n.db, indexedInWrite, n.base, o, now, " into Parley on PostgreSQL", out)
	if err != nil {
		return nil, err
	}
	load.HTTPPerSecond, load.InternalPerSecond = rates.http, rates.internal
	if err := n.search.Settle(ctx); err != nil { // as parley import does after a bulk load
		return nil, err
	}
	if load.SearchBytesPerConversation, err = searchBytes(ctx, url, o.N); err != nil {
		return nil, err
	}
	return w, nil
}

// indexedInWrite is the position of a node whose writes index themselves:
// it holds every committed write, so no outbox entry waits for it (its
// outbox stays empty, LastOutboxSeq 0).
func indexedInWrite() uint64 { return 0 }

// searchBytes is the size of the search tables (pgindex.Tables, with
// their indexes and TOAST) in the database at url, per conversation.
func searchBytes(ctx context.Context, url string, conversations int) (float64, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var size int64
	if err := conn.QueryRow(ctx, `SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest($1::text[]) t`, pgindex.Tables).Scan(&size); err != nil {
		return 0, fmt.Errorf("search tables' size: %w", err)
	}
	return float64(size) / float64(max(conversations, 1)), nil
}
