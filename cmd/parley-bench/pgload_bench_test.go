package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/internal/pgtest/pgserver"
	"github.com/parley/parley/pgsearch"
	"github.com/parley/parley/pgstore"
)

// BenchmarkPostgresInternalLoad measures the bench's internal loader into
// Parley on PostgreSQL (the "Parley on PostgreSQL internal" figure of the
// ingest summary) without the rest of the bench: a server configured as
// the bench's, the bench's world, then PARLEY_PGLOAD_N conversations
// (default 5,000) through loadInternal, each write with its search rows.
// It reports conversations per second, and the statements and round trips
// per conversation (a statement queued in a pipeline is one statement, the
// pipeline one round trip). Run with:
//
//	go test ./cmd/parley-bench -run XXX -bench PostgresInternalLoad -benchtime 1x
func BenchmarkPostgresInternalLoad(b *testing.B) {
	n := 5_000
	if s := os.Getenv("PARLEY_PGLOAD_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	server, err := pgserver.Start(peerSettings...)
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { server.Stop() })
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		url, err := server.NewDatabase(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pgstore.Migrate(ctx, url); err != nil {
			b.Fatal(err)
		}
		if _, err := pgindex.Migrate(ctx, mustParse(b, url)); err != nil {
			b.Fatal(err)
		}
		counter := &statementCounter{}
		db, err := pgstore.Open(ctx, url, pgstore.Options{Indexer: pgsearch.Write, Tracer: counter})
		if err != nil {
			b.Fatal(err)
		}
		w, err := setupWorld(db.Store(), 3, max(n/5, 50), now)
		if err != nil {
			b.Fatal(err)
		}
		counter.reset()
		serverBefore := serverCPU(b, ctx, url)
		start := time.Now()
		if err := loadInternal(db.Store(), w, newCorpus(corpusSeed, corpusWords), 0, n, now, benchSpan); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		b.ReportMetric(float64(n)/took.Seconds(), "conv/s")
		b.ReportMetric(float64(counter.statements.Load())/float64(n), "statements/conv")
		b.ReportMetric(float64(counter.roundTrips.Load())/float64(n), "roundtrips/conv")
		b.ReportMetric(float64((serverCPU(b, ctx, url)-serverBefore).Microseconds())/float64(n), "server-cpu-µs/conv")
		b.Logf("statements per conversation, most run first:\n%s", counter.top(25, n))
		db.Close()
	}
}

// serverCPU is the processor time the server's sessions on the database
// at url have used (Linux: their /proc/<pid>/stat), the asking session's
// included.
func serverCPU(b *testing.B, ctx context.Context, url string) time.Duration {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	var ticks int64
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // not on Linux, or gone
		}
		// utime and stime are the 14th and 15th fields, after the
		// parenthesised command name.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
		for _, f := range fields[11:13] {
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ
}

func mustParse(b *testing.B, url string) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// statementCounter counts the statements a store runs, and the round
// trips they take: a query alone is one, a pipeline (pgx.Batch) or a COPY
// one for all it holds.
type statementCounter struct {
	statements, roundTrips atomic.Int64
	mu                     sync.Mutex
	bySQL                  map[string]int
}

func (c *statementCounter) reset() {
	c.statements.Store(0)
	c.roundTrips.Store(0)
	c.mu.Lock()
	c.bySQL = map[string]int{}
	c.mu.Unlock()
}

func (c *statementCounter) count(sql string) {
	c.statements.Add(1)
	c.mu.Lock()
	if c.bySQL != nil {
		c.bySQL[sql]++
	}
	c.mu.Unlock()
}

// top lists the statements run most, with their counts per conversation.
func (c *statementCounter) top(n int, conversations int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	sqls := slices.Collect(maps.Keys(c.bySQL))
	slices.SortFunc(sqls, func(a, b string) int { return cmp.Compare(c.bySQL[b], c.bySQL[a]) })
	var out strings.Builder
	for _, sql := range sqls[:min(n, len(sqls))] {
		fmt.Fprintf(&out, "%6.2f  %.100q\n", float64(c.bySQL[sql])/float64(conversations), sql)
	}
	return out.String()
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.count(data.SQL)
	c.roundTrips.Add(1)
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.roundTrips.Add(1)
	return ctx
}

func (c *statementCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	c.count(data.SQL)
}

func (c *statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (c *statementCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	c.count("COPY " + data.TableName.Sanitize())
	c.roundTrips.Add(1)
	return ctx
}

func (c *statementCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
