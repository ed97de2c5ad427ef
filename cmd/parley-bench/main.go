// Command parley-bench measures Parley the way its users load it: it
// generates a deterministic data set of N conversations, loads part of it
// through the HTTP API (32 concurrent importers) and the rest through the
// internal loader, then runs the reference queries over loopback HTTP
// against the Bleve engine and against the scan oracle, restarts, and
// measures the same data and queries on a PostgreSQL server it starts
// (the peer). It prints one table (and JSON) of hits, p50 and p99 on both,
// ingest rates, memory, bytes per conversation and time to ready.
//
// With -browser it also measures the agents' inbox in headless Chromium:
// a search typed in its box until the results are drawn, and the opening
// of a conversation of 20 threads.
//
//	parley-bench [-n 100000] [-http 20000] [-repeat 50] [-scan=true] [-pg=true] [-browser] [-out results.json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/gcpolicy"
	"github.com/parley/parley/internal/pgtest/pgserver"
	"github.com/parley/parley/storage"
)

// Options are the bench's knobs.
type Options struct {
	N            int    // conversations
	HTTP         int    // of which loaded through the HTTP API
	Clients      int    // concurrent HTTP importers
	Chats        int    // chats for the report
	Repeat       int    // runs of each query
	Scan         bool   // also run the queries on the scan oracle
	Out          string // JSON results file ("" for none)
	Dir          string // data directory ("" for a temporary one)
	Companies    int
	QueryProfile string // CPU profile of the Bleve query runs only ("" for none)
	// QueryProfiles is a directory for one CPU profile per query on Bleve
	// (and on Parley on PostgreSQL, in its subdirectory parley-on-postgres)
	// ("" for none).
	QueryProfiles string
	HeapProfile   string // heap profile taken after the Bleve query runs ("" for none)
	PG            bool   // also load the data into PostgreSQL and run the queries there
	// Backend, with PG, also runs Parley on its own PostgreSQL backend.
	Backend bool
	// Reuse runs on the data an earlier run loaded into Dir, skipping the
	// load: a 1M load takes hours, its queries and peer minutes.
	Reuse bool
	// Only, when set, keeps the queries whose names it matches: one short
	// query run thousands of times gives its profile enough samples.
	Only *regexp.Regexp
	// Browser measures the inbox in headless Chromium, each of its
	// measures BrowserRepeat times.
	Browser       bool
	BrowserRepeat int
}

// The generator's seeds: the embedded run and the run on Parley's
// PostgreSQL backend generate the same data from them.
const (
	corpusSeed  = 20261121
	corpusWords = 30_000
	chatSeed    = 99
	// benchSpan is how far back the generated conversations and chats go.
	benchSpan = 2 * 365 * 24 * time.Hour
)

func main() {
	var o Options
	flag.IntVar(&o.N, "n", 100_000, "conversations to generate (10000 quick, 100000 default, 1000000 full)")
	flag.IntVar(&o.HTTP, "http", 20_000, "of which loaded through the HTTP API")
	flag.IntVar(&o.Clients, "clients", 32, "concurrent HTTP importers")
	flag.IntVar(&o.Chats, "chats", 0, "chats to generate for the report (default n/10)")
	flag.IntVar(&o.Repeat, "repeat", 50, "runs of each query")
	flag.BoolVar(&o.Scan, "scan", true, "also time the queries on the scan oracle engine")
	flag.StringVar(&o.Out, "out", "bench-results.json", "JSON results file (empty for none)")
	flag.StringVar(&o.Dir, "dir", "", "data directory (default: a temporary directory, removed at the end)")
	flag.IntVar(&o.Companies, "companies", 3, "companies")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.StringVar(&o.QueryProfile, "queryprofile", "", "write a CPU profile of the queries on Bleve to this file")
	flag.StringVar(&o.QueryProfiles, "queryprofiles", "", "write one CPU profile per query into this directory (Parley on PostgreSQL's in its subdirectory parley-on-postgres)")
	flag.StringVar(&o.HeapProfile, "heapprofile", "", "write a heap profile, taken after the queries on Bleve, to this file")
	flag.BoolVar(&o.PG, "pg", true, "also load the same data into a PostgreSQL server started for the run, and run the queries there")
	flag.BoolVar(&o.Backend, "pgbackend", true, "with -pg, also run Parley itself on its PostgreSQL backend, loaded with the same data, through the same HTTP API")
	flag.BoolVar(&o.Reuse, "reuse", false, "with -dir, run on the data an earlier run (same -n) loaded there: no load, so no ingest figures")
	flag.BoolVar(&o.Browser, "browser", false, "also measure the agents' inbox in headless Chromium: searches typed in its box, and opening a conversation of 20 threads")
	flag.IntVar(&o.BrowserRepeat, "browserrepeat", 20, "with -browser, runs of each browser measure")
	only := flag.String("only", "", "run only the queries whose names match this regular expression (to profile one with a large -repeat)")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley-bench: -only:", err)
			os.Exit(2)
		}
		o.Only = re
	}
	if o.Reuse && o.Dir == "" {
		fmt.Fprintln(os.Stderr, "parley-bench: -reuse needs -dir, the data directory of an earlier run")
		os.Exit(2)
	}
	// Go runs one CPU profile at a time: the query profile would fail
	// only after the load, hours into a 1M run.
	if profiles := boolCount(*cpuProfile != "", o.QueryProfile != "", o.QueryProfiles != ""); profiles > 1 {
		fmt.Fprintln(os.Stderr, "parley-bench: use only one of -cpuprofile, -queryprofile and -queryprofiles (Go runs one CPU profile at a time)")
		os.Exit(2)
	}
	// The node in this process runs with serve's garbage collector policy.
	fmt.Println("garbage collector:", gcpolicy.Apply(os.Getenv, os.DirFS("/")).Reason)
	if *cpuProfile != "" {
		stop, err := profileTo(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley-bench:", err)
			os.Exit(1)
		}
		defer stop()
	}
	if err := Run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "parley-bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// selected are the queries -only keeps.
func (o Options) selected(queries []Query) []Query {
	if o.Only == nil {
		return queries
	}
	return slices.DeleteFunc(queries, func(q Query) bool { return !o.Only.MatchString(q.Name) })
}

// boolCount is how many of bs are true.
func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Results is what a run measured.
type Results struct {
	N                 int     `json:"n"`
	HTTPLoaded        int     `json:"httpLoaded"`
	HTTPPerSecond     float64 `json:"httpConversationsPerSecond"`
	InternalPerSecond float64 `json:"internalConversationsPerSecond"`
	// HTTPSearchablePerSecond counts the HTTP load until its last
	// conversation was searchable (imports are answered at commit).
	HTTPSearchablePerSecond float64 `json:"httpSearchableConversationsPerSecond"`
	// Compact is how long merging the index into one segment per
	// partition took after the load, as parley import does.
	Compact time.Duration `json:"compactNanoseconds"`
	// StorageCompact is how long compacting the storage file took after
	// that, as parley import ends (with closing and reopening the node);
	// LoadedStoredBytesPerConv is the file's size before it.
	StorageCompact           time.Duration `json:"storageCompactNanoseconds"`
	LoadedStoredBytesPerConv float64       `json:"loadedStoredBytesPerConversation"`
	// StoredBytesPerConv is the bbolt file's size, IndexBytesPerConv the
	// index directory's, per conversation; BytesPerConv is their sum.
	StoredBytesPerConv float64 `json:"storedBytesPerConversation"`
	IndexBytesPerConv  float64 `json:"indexBytesPerConversation"`
	BytesPerConv       float64 `json:"bytesPerConversation"`
	PeakRSSBytes       int64   `json:"peakRSSBytes"` // VmHWM after the queries on Bleve
	// Memory are the sampled peaks while loading and querying Parley;
	// MemoryWholeRun adds the scan oracle, the restart and the export to
	// the peer.
	Memory         MemoryPeaks `json:"memory"`
	MemoryWholeRun MemoryPeaks `json:"memoryWholeRun"`
	// Restart is the reopening of storage and index after a clean close,
	// until /readyz answered; ListLoad is its list engine step.
	Restart  StartTimes    `json:"restart"`
	ListLoad time.Duration `json:"listEngineLoad"`
	// Postgres is the peer's bulk load; nil when it did not run, and then
	// PostgresSkipped says why.
	Postgres        *PeerLoad     `json:"postgres"`
	PostgresSkipped string        `json:"postgresSkipped,omitempty"`
	Queries         []QueryResult `json:"queries"`
	Writes          []WriteResult `json:"writes"`
	// WritesDuringImport times an agent's writes while the HTTP load runs
	// (nil when it ended before the first).
	WritesDuringImport *WriteResult `json:"writesDuringImport,omitempty"`
	// Browser are the inbox's measures in headless Chromium (-browser).
	Browser []BrowserResult `json:"browser,omitempty"`
	// PostgresBackend is Parley itself on PostgreSQL (pgstore and pgindex)
	// loaded with the same data; nil when it did not run.
	PostgresBackend *BackendLoad `json:"postgresBackend,omitempty"`
	// ReusedFrom, with -reuse, is the clock of the run that loaded the
	// data; the ingest and compaction figures are then absent.
	ReusedFrom          string `json:"reusedFrom,omitempty"`
	GoVersion, CPUs, At string
}

// Run performs a whole bench run, writing the table to out.
func Run(ctx context.Context, o Options, out io.Writer) error {
	if o.Chats == 0 {
		o.Chats = max(o.N/10, 10)
	}
	o.HTTP = min(o.HTTP, o.N)
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "parley-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	now := time.Now().UTC().Truncate(time.Second)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	mem := sampleMemory(200 * time.Millisecond)
	defer mem.Stop()
	res := Results{N: o.N, HTTPLoaded: o.HTTP, GoVersion: runtime.Version(), CPUs: fmt.Sprint(runtime.NumCPU()), At: now.Format(time.RFC3339)}

	// The peer starts first, so a broken PostgreSQL fails the run before
	// the long part.
	var pg *peer
	if o.PG {
		var err error
		pg, err = startPeer(ctx, o.Dir)
		switch {
		case errors.Is(err, pgserver.ErrNotInstalled) && !pgserver.Required():
			res.PostgresSkipped = err.Error()
			fmt.Fprintf(out, "%v: running without the PostgreSQL peer\n", err)
		case err != nil:
			return fmt.Errorf("start the PostgreSQL peer: %w", err)
		default:
			defer pg.close()
		}
	} else {
		res.PostgresSkipped = "-pg=false"
	}

	n, _, err := openNode(ctx, dir, quiet)
	if err != nil {
		return err
	}
	defer func() { n.close() }() // the node of the moment: the first, or the one reopened
	var w *world
	if o.Reuse {
		if w, now, err = openWorld(n.db.Store(), o.N); err != nil {
			return err
		}
		// Opened from the snapshot, the list engine reads its report
		// rows in the background: the queries are timed once it has
		// them, as after a load, not while they fill.
		if err := n.fast.WaitReports(); err != nil {
			return err
		}
		res.ReusedFrom = now.Format(time.RFC3339)
		fmt.Fprintf(out, "reusing the data loaded in %s by the run of %s: ingest and compaction are not measured\n", dir, res.ReusedFrom)
	} else {
		if w, err = loadAll(ctx, n, o, &res, now, out); err != nil {
			return err
		}
		if n, err = compactStorage(ctx, n, dir, o, &res, quiet); err != nil {
			return err
		}
	}
	stored, err := os.Stat(filepath.Join(dir, "parley.db"))
	if err != nil {
		return err
	}
	res.StoredBytesPerConv = float64(stored.Size()) / float64(o.N)
	res.IndexBytesPerConv = float64(settledDirSize(filepath.Join(dir, "index"))) / float64(o.N)
	res.BytesPerConv = res.StoredBytesPerConv + res.IndexBytesPerConv

	convID, err := firstConversation(n.base, w.tokens[w.companies[0]])
	if err != nil {
		return err
	}
	queries := o.selected(append(referenceQueries(w, now, convID), reportQueries(w, now)...))
	// The load's or the restore's garbage is collected before the queries
	// are timed: a collection of a 1M heap (over a second of CPU) landing
	// in a sub-millisecond query's runs moved its p50 by a factor of two
	// between runs of one build. A server is timed as it runs for days.
	runtime.GC()
	fmt.Fprintln(out, "running queries on bleve...")
	stopProfile := func() {}
	if o.QueryProfile != "" {
		if stopProfile, err = profileTo(o.QueryProfile); err != nil {
			return err
		}
	}
	bleveRuns, err := runQueries(n.base, queries, o.Repeat, o.QueryProfiles)
	stopProfile()
	if err != nil {
		return err
	}
	res.PeakRSSBytes = peakRSS()
	res.Memory = mem.Peaks()
	if o.HeapProfile != "" {
		if err := heapProfileTo(o.HeapProfile); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "timing writes with and without automatic workflows...")
	if res.Writes, err = measureWrites(n, w, o.Repeat, now); err != nil {
		return err
	}
	if o.Browser {
		fmt.Fprintln(out, "measuring the inbox in headless Chromium...")
		if res.Browser, err = runBrowser(ctx, n, w, o.BrowserRepeat, now, out); err != nil {
			return err
		}
	}
	if o.Scan {
		if err := compareWithScan(ctx, n.db, bleveRuns, queries, max(o.Repeat/10, 1), quiet, out); err != nil {
			return err
		}
	}
	res.Queries = bleveRuns

	fmt.Fprintln(out, "restarting: closing storage and index, reopening them as parley serve does...")
	if err := n.close(); err != nil {
		return err
	}
	reopened, restart, err := openNode(ctx, dir, quiet)
	if err != nil {
		return err
	}
	n, res.Restart = reopened, restart
	res.ListLoad = res.Restart.ListEngine

	if pg != nil {
		if res.Postgres, err = runPeer(ctx, pg, n, dir, o, res.Queries, w, now, convID, out); err != nil {
			return err
		}
	}
	if pg != nil && o.Backend {
		// Parley on PostgreSQL is a node that holds nothing per company,
		// as it runs in production: the embedded node, whose list engine
		// holds every conversation in this process's heap, is closed
		// first, so that the garbage collector's work on that heap is not
		// counted in the backend's figures.
		if err := n.close(); err != nil {
			return err
		}
		runtime.GC()
		if res.PostgresBackend, err = runOnPostgresBackend(ctx, pg, o, res.Queries, now, out); err != nil {
			return err
		}
	}
	res.MemoryWholeRun = mem.Stop()
	printTable(out, res)
	if o.Out != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(o.Out, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compactStorage ends the load as parley import ends: the node closes,
// compacting its storage file, and reopens as parley serve would, its
// report rows filled before the queries are timed. The node it returns
// is the reopened one, or n (closed) when it fails.
func compactStorage(ctx context.Context, n *node, dir string, o Options, res *Results, log *slog.Logger) (*node, error) {
	start := time.Now()
	before, _, err := n.closeCompacted()
	if err != nil {
		return n, fmt.Errorf("compact the storage file: %w", err)
	}
	res.StorageCompact = time.Since(start)
	res.LoadedStoredBytesPerConv = float64(before) / float64(o.N)
	reopened, _, err := openNode(ctx, dir, log)
	if err != nil {
		return n, err
	}
	return reopened, reopened.fast.WaitReports()
}

// loadAll stores the bench's world, loads the conversations (part through
// HTTP, the rest through the internal loader) and the chats, waits for all
// of it to be searchable and compacts the index, recording the rates in res.
func loadAll(ctx context.Context, n *node, o Options, res *Results, now time.Time, out io.Writer) (*world, error) {
	w, rates, err := loadGenerated(ctx, n.db, n.syncer.Applied, n.base, o, now, "", out)
	if err != nil {
		return nil, err
	}
	res.HTTPPerSecond, res.HTTPSearchablePerSecond, res.InternalPerSecond = rates.http, rates.httpSearchable, rates.internal
	if times := rates.writesDuring; len(times) > 0 {
		res.WritesDuringImport = &WriteResult{Name: "w3 replace tags during the HTTP import", N: len(times),
			P50: percentile(times, 50), P99: percentile(times, 99)}
	}
	n.syncer.Settle() // what was applied is on disk, so the index's size is final
	start := time.Now()
	if err := n.full.Compact(ctx); err != nil {
		return nil, err
	}
	res.Compact = time.Since(start)
	return w, nil
}

// compareWithScan runs the queries on the scan oracle, which must find
// what Bleve found, and records its p50 beside Bleve's.
func compareWithScan(ctx context.Context, db *storage.DB, bleveRuns []QueryResult, queries []Query, repeat int, log *slog.Logger, out io.Writer) error {
	fmt.Fprintln(out, "building the scan oracle and running queries on it...")
	oracle := scan.New()
	if err := indexer.NewSyncer(db, oracle, log).Rebuild(ctx, nil); err != nil {
		return err
	}
	scanBase, closeScan, err := serve(db, oracle, nil, log)
	if err != nil {
		return err
	}
	defer closeScan()
	scanRuns, err := runQueries(scanBase, queries, repeat, "")
	if err != nil {
		return err
	}
	for i := range bleveRuns {
		bleveRuns[i].ScanP50 = scanRuns[i].P50
		if bleveRuns[i].Hits != scanRuns[i].Hits {
			return fmt.Errorf("query %q: bleve found %d, the scan oracle %d", bleveRuns[i].Name, bleveRuns[i].Hits, scanRuns[i].Hits)
		}
	}
	return nil
}

// runPeer exports Parley's data from n, closes n, loads the data into the
// PostgreSQL peer and runs the reference queries' SQL forms there.
func runPeer(ctx context.Context, pg *peer, n *node, dir string, o Options, results []QueryResult, w *world, now time.Time, convID int64, out io.Writer) (*PeerLoad, error) {
	load, err := loadPeer(ctx, pg, n, dir, o, now, out)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(out, "running queries on PostgreSQL...")
	forms := peerQueries(w, now, convID)
	if err := runPeerQueries(ctx, pg.conn, results, forms, o.Repeat); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, "running queries on PostgreSQL behind a minimal HTTP service...")
	service, err := startPeerService(ctx, pg.url, forms)
	if err != nil {
		return nil, err
	}
	err = runPeerServiceQueries(service, results, forms, o.Repeat)
	if err := errors.Join(err, service.close()); err != nil {
		return nil, err
	}
	return load, nil
}

// loadPeer exports Parley's data from n, closes n and loads the data into
// the PostgreSQL peer; with -reuse, a kept peer that the run of now
// loaded with as many conversations is measured as it is.
func loadPeer(ctx context.Context, pg *peer, n *node, dir string, o Options, now time.Time, out io.Writer) (*PeerLoad, error) {
	run := now.Format(time.RFC3339)
	if pg.kept != nil && o.Reuse {
		var load PeerLoad
		found, err := pg.kept.loadedBy(ctx, run, o.N, &load)
		if err != nil {
			return nil, err
		}
		if found {
			fmt.Fprintf(out, "reusing the PostgreSQL peer that the run of %s loaded\n", run)
			load.LoadedBy = run
			return &load, n.close()
		}
	}
	if pg.kept != nil {
		if err := pg.kept.reset(ctx, pg.url); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(out, "exporting Parley's data for the PostgreSQL peer...")
	tables, err := exportTables(n.db, dir)
	defer removeTables(tables)
	if err := errors.Join(err, n.close()); err != nil {
		return nil, err
	}
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Fprintln(out, "loading the PostgreSQL peer (COPY, tsvectors, indexes, ANALYZE)...")
	load, err := pg.load(ctx, tables, o.N)
	if err != nil {
		return nil, err
	}
	if pg.kept != nil {
		if err := pg.kept.loaded(ctx, run, o.N, load); err != nil {
			return nil, err
		}
	}
	return load, nil
}

// profileTo starts a CPU profile written to path; stop ends it.
func profileTo(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// serve runs the API on a loopback port; it returns the base URL.
func serve(db api.Database, engine index.Engine, syncer *indexer.Syncer, log *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	limits := map[parley.Plan]int{parley.PlanPro: 1 << 30, parley.PlanPlus: 1 << 30, parley.PlanStandard: 1 << 30}
	h := api.New(api.Config{DB: db, Engine: engine, Syncer: syncer, Log: log, RateLimits: limits, WriteWait: benchWriteWait})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// settledDirSize is dirSize once it stops changing: scorch removes the
// files a merge made obsolete in the background, a little after the merge,
// and measuring before that counted them (runs of the same build differed
// by a quarter). It gives up waiting after a minute.
func settledDirSize(dir string) int64 {
	size := dirSize(dir)
	for range 60 {
		time.Sleep(time.Second)
		next := dirSize(dir)
		if next == size {
			break
		}
		size = next
	}
	return size
}

// heapProfileTo writes the live heap (after a collection) to path: what
// the process holds once loaded and queried.
func heapProfileTo(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	return errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// benchWriteWait is how long a bench write waits to be searchable; the
// PARLEY_BENCH_WRITE_WAIT variable overrides it for experiments. It stays
// under the request timeout (60 s), so a slow index answers 201 (committed,
// searchable soon) rather than 504.
var benchWriteWait = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PARLEY_BENCH_WRITE_WAIT")); err == nil {
		return d
	}
	return 30 * time.Second
}()
