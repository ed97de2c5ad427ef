// Command parley-bench measures Parley the way its users load it: it
// generates a deterministic data set of N conversations, loads part of it
// through the HTTP API (32 concurrent importers) and the rest through the
// internal loader, then runs the twelve reference queries over loopback
// HTTP against the Bleve engine and against the scan oracle, and prints a
// table (and JSON) of hits, p50 and p99.
//
//	parley-bench [-n 100000] [-http 20000] [-repeat 50] [-scan=true] [-out results.json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/index/scan"
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
}

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
	flag.Parse()
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

// Results is what a run measured.
type Results struct {
	N                   int           `json:"n"`
	HTTPLoaded          int           `json:"httpLoaded"`
	HTTPPerSecond       float64       `json:"httpConversationsPerSecond"`
	InternalPerSecond   float64       `json:"internalConversationsPerSecond"`
	IndexBytesPerConv   float64       `json:"indexBytesPerConversation"`
	PeakRSSBytes        int64         `json:"peakRSSBytes"`
	ListLoad            time.Duration `json:"listEngineLoad"` // what loading the list engine adds to a start`
	Queries             []QueryResult `json:"queries"`
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
	const span = 2 * 365 * 24 * time.Hour
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	full, err := bleveindex.Open(filepath.Join(dir, "index"))
	if err != nil {
		return err
	}
	defer full.Close()
	// Wired as parley serve wires it: lists to the list engine, the rest to Bleve.
	engine := index.Router{Full: full, Fast: lists.New()}
	syncer := index.NewSyncer(db, engine, quiet)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go syncer.Run(runCtx)

	w, err := setupWorld(db, o.Companies, max(o.N/5, 50), now)
	if err != nil {
		return err
	}
	// The customers must be searchable before the clock starts: the HTTP
	// writers would otherwise wait behind their indexing.
	if err := waitIndexed(ctx, db, syncer.Applied); err != nil {
		return err
	}
	base, closeServer, err := serve(db, engine, syncer, quiet)
	if err != nil {
		return err
	}
	defer closeServer()
	res := Results{N: o.N, HTTPLoaded: o.HTTP, GoVersion: runtime.Version(), CPUs: fmt.Sprint(runtime.NumCPU()), At: now.Format(time.RFC3339)}
	c := newCorpus(20261121, 30_000)

	fmt.Fprintf(out, "loading %d conversations through HTTP with %d clients...\n", o.HTTP, o.Clients)
	start := time.Now()
	if err := loadHTTP(base, w, c, 0, o.HTTP, o.Clients, now, span); err != nil {
		return err
	}
	if o.HTTP > 0 {
		res.HTTPPerSecond = float64(o.HTTP) / time.Since(start).Seconds()
	}
	fmt.Fprintf(out, "loading %d conversations and %d chats through the internal loader...\n", o.N-o.HTTP, o.Chats)
	start = time.Now()
	if err := loadInternal(db, w, c, o.HTTP, o.N, now, span); err != nil {
		return err
	}
	if err := waitIndexed(ctx, db, syncer.Applied); err != nil {
		return err
	}
	if o.N > o.HTTP {
		res.InternalPerSecond = float64(o.N-o.HTTP) / time.Since(start).Seconds()
	}
	if err := loadChats(db, w, o.Chats, now, span, 99); err != nil {
		return err
	}
	if err := waitIndexed(ctx, db, syncer.Applied); err != nil {
		return err
	}
	res.IndexBytesPerConv = float64(dirSize(filepath.Join(dir, "index"))) / float64(o.N)

	convID, err := firstConversation(base, w.tokens[w.companies[0]])
	if err != nil {
		return err
	}
	queries := append(referenceQueries(w, now, convID), reportQueries(w, now)...)
	fmt.Fprintln(out, "running queries on bleve...")
	stopProfile := func() {}
	if o.QueryProfile != "" {
		if stopProfile, err = profileTo(o.QueryProfile); err != nil {
			return err
		}
	}
	bleveRuns, err := runQueries(base, queries, o.Repeat)
	stopProfile()
	if err != nil {
		return err
	}
	res.PeakRSSBytes = peakRSS()
	start = time.Now() // after the peak is read: a second list engine would raise it
	if err := lists.New().Load(db); err != nil {
		return err
	}
	res.ListLoad = time.Since(start)
	var scanRuns []QueryResult
	if o.Scan {
		fmt.Fprintln(out, "building the scan oracle and running queries on it...")
		oracle := scan.New()
		if err := index.NewSyncer(db, oracle, quiet).Rebuild(ctx, nil); err != nil {
			return err
		}
		scanBase, closeScan, err := serve(db, oracle, nil, quiet)
		if err != nil {
			return err
		}
		defer closeScan()
		if scanRuns, err = runQueries(scanBase, queries, max(o.Repeat/10, 1)); err != nil {
			return err
		}
	}
	for i := range bleveRuns {
		if scanRuns != nil {
			bleveRuns[i].ScanP50 = scanRuns[i].P50
			if bleveRuns[i].Hits != scanRuns[i].Hits {
				return fmt.Errorf("query %q: bleve found %d, the scan oracle %d", bleveRuns[i].Name, bleveRuns[i].Hits, scanRuns[i].Hits)
			}
		}
	}
	res.Queries = bleveRuns
	printTable(out, res)
	if o.Out != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(o.Out, data, 0o644); err != nil {
			return err
		}
	}
	return nil
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
func serve(db *storage.DB, engine index.Engine, syncer *index.Syncer, log *slog.Logger) (string, func(), error) {
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

// peakRSS reads the process's high-water resident set (Linux), which here
// holds the server and the bench's own clients.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range splitLines(string(data)) {
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kb); n == 1 {
			return kb * 1024
		}
	}
	return 0
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
