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
	"syscall"
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
		timeLoads(b, n, func() measured {
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
			start := startMeasure()
			err = loadInternal(node.db.Store(), w, corpus(), 0, n, now, benchSpan)
			if err == nil {
				err = waitIndexed(ctx, node.db, node.syncer.Applied)
			}
			if err != nil {
				b.Fatal(err)
			}
			return start.since()
		})
	})
	b.Run("bulk", func(b *testing.B) {
		timeLoads(b, n, func() measured {
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
			start := startMeasure()
			err = loadInternal(db.Store(), w, corpus(), 0, n, now, benchSpan)
			if err = errors.Join(err, db.Close()); err != nil {
				b.Fatal(err)
			}
			stored := start.since()
			node, times, err := openNode(ctx, dir, log)
			if err != nil {
				b.Fatal(err)
			}
			took := start.since()
			b.Logf("stored in %v (CPU %v), then opened in %v (CPU %v; index built in %v)", stored.wall.Round(time.Millisecond), stored.cpu.Round(time.Millisecond),
				(took.wall - stored.wall).Round(time.Millisecond), (took.cpu - stored.cpu).Round(time.Millisecond), times.Drain.Round(time.Millisecond))
			if err := node.close(); err != nil {
				b.Fatal(err)
			}
			return took
		})
	})
}

// timeLoads runs load b.N times and reports the conversations per second
// of the time each returns, and the CPU time (of every core) each
// conversation took: on a machine shared with other work the CPU time
// varies less from run to run than the wall time.
func timeLoads(b *testing.B, n int, load func() measured) {
	b.StopTimer()
	var took measured
	for range b.N {
		m := load()
		took.wall += m.wall
		took.cpu += m.cpu
	}
	convs := float64(n) * float64(b.N)
	b.ReportMetric(convs/took.wall.Seconds(), "conv/s")
	b.ReportMetric(float64(took.cpu.Microseconds())/convs, "cpu-µs/conv")
}

// measured is the wall time and the process's CPU time of a load.
type measured struct{ wall, cpu time.Duration }

// stopwatch measures from when startMeasure made it.
type stopwatch struct {
	wall time.Time
	cpu  time.Duration
}

func startMeasure() stopwatch { return stopwatch{wall: time.Now(), cpu: processCPU()} }

// since is what passed since the start.
func (s stopwatch) since() measured {
	return measured{wall: time.Since(s.wall), cpu: processCPU() - s.cpu}
}

// processCPU is the user and system time the process has used.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
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
