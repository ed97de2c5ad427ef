package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/parley/parley/internal/gcpolicy"
	"github.com/parley/parley/storage"
)

// BenchmarkInternalLoad measures loading generated conversations through
// the internal loader until they are searchable, without the HTTP load,
// queries and restarts around it, so that a CPU profile of it shows the
// load alone:
//
//   - live: into a node opened as parley serve opens it, its syncer
//     indexing the outbox as the writes commit (the bench's "Parley
//     internal N conv/s");
//   - bulk: into storage alone (no syncer running: the outbox keeps every
//     entry), then opening the node, which builds its fresh index from
//     storage (what parley reindex, or a start after a load killed before
//     its index was built, does); it also indexes the customers, which
//     live indexed before its clock started.
//
// PARLEY_LOAD_N sets the conversations (default 10,000);
// PARLEY_LOAD_PROFILE names the file for a CPU profile of the timed part
// (of the last sub-benchmark run). Run with:
//
//	PARLEY_LOAD_PROFILE=/tmp/load.prof go test ./cmd/parley-bench -run XXX -bench InternalLoad/live -benchtime 1x
func BenchmarkInternalLoad(b *testing.B) {
	n := sizeFromEnv(b, "PARLEY_LOAD_N", 10_000)
	// Measure as the real binaries run: they do not check decodes, and
	// they load with Parley's garbage collector policy.
	defer storage.CheckDecodes(false)()
	defer debug.SetGCPercent(debug.SetGCPercent(gcpolicy.Percent))
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	corpus := func() *corpus { return newCorpus(corpusSeed, corpusWords) }
	b.Run("live", func(b *testing.B) {
		timeLoads(b, n, func() time.Duration {
			node, _, err := openNode(ctx, b.TempDir(), log)
			if err != nil {
				b.Fatal(err)
			}
			defer node.close()
			w, err := setupWorld(node.db.Store(), 3, max(n/5, 50), now)
			if err == nil {
				err = waitIndexed(ctx, node.db, node.syncer.Applied)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer startProfile(b)()
			start := time.Now()
			err = loadInternal(node.db.Store(), w, corpus(), 0, n, now, benchSpan)
			if err == nil {
				err = waitIndexed(ctx, node.db, node.syncer.Applied)
			}
			if err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		})
	})
	b.Run("bulk", func(b *testing.B) {
		timeLoads(b, n, func() time.Duration {
			dir := b.TempDir()
			db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{})
			if err != nil {
				b.Fatal(err)
			}
			w, err := setupWorld(db.Store(), 3, max(n/5, 50), now)
			if err != nil {
				b.Fatal(err)
			}
			defer startProfile(b)()
			start := time.Now()
			err = loadInternal(db.Store(), w, corpus(), 0, n, now, benchSpan)
			if err = errors.Join(err, db.Close()); err != nil {
				b.Fatal(err)
			}
			stored := time.Since(start)
			node, times, err := openNode(ctx, dir, log)
			if err != nil {
				b.Fatal(err)
			}
			took := time.Since(start)
			b.Logf("stored in %v, then opened in %v (index built in %v)", stored.Round(time.Millisecond), (took - stored).Round(time.Millisecond), times.Drain.Round(time.Millisecond))
			if err := node.close(); err != nil {
				b.Fatal(err)
			}
			return took
		})
	})
}

// timeLoads runs load b.N times and reports the conversations per second
// of the time each returns.
func timeLoads(b *testing.B, n int, load func() time.Duration) {
	b.StopTimer()
	var took time.Duration
	for range b.N {
		took += load()
	}
	b.ReportMetric(float64(n)*float64(b.N)/took.Seconds(), "conv/s")
}

// sizeFromEnv is the number the environment variable name sets, or def
// when it is unset.
func sizeFromEnv(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// startProfile starts a CPU profile into the file PARLEY_LOAD_PROFILE names
// (none when unset) and returns what stops it.
func startProfile(b *testing.B) func() {
	path := os.Getenv("PARLEY_LOAD_PROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
