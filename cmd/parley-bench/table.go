package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// printTable writes a run's results as one table: the queries on Parley
// and on the PostgreSQL peer side by side, then ingest, memory, bytes per
// conversation and time to ready.
func printTable(out io.Writer, r Results) {
	peer := "no PostgreSQL peer (" + r.PostgresSkipped + ")"
	if r.Postgres != nil {
		peer = "PostgreSQL " + r.Postgres.Version + " peer"
	}
	fmt.Fprintf(out, "\n%d conversations (%d through HTTP) on %s CPUs, %s; %s\n\n", r.N, r.HTTPLoaded, r.CPUs, r.GoVersion, peer)
	if r.PostgresBackend != nil {
		fmt.Fprintln(out, "PG: the PostgreSQL peer (a plain schema); P/pg: Parley itself on its PostgreSQL backend, same data, same HTTP API")
	}
	fmt.Fprintln(out, "PG+HTTP: the same SQL behind a minimal Go HTTP service, called over loopback HTTP as Parley is")
	fmt.Fprintf(out, "%-44s %9s %9s %10s %10s %8s %10s %8s %10s %10s %10s %10s\n",
		"query", "hits", "hits PG", "p50", "p50 PG", "p50/PG", "PG+HTTP", "p50/PGH", "p99", "p99 PG", "scan p50", "p50 P/pg")
	for _, q := range r.Queries {
		pgHits, pgP50, pgP99, ratio := "-", "-", "-", "-"
		if p := q.Peer; p != nil {
			pgHits, pgP50, pgP99 = fmt.Sprint(p.Hits), round(p.P50), round(p.P99)
			if p.Ratio > 0 {
				ratio = fmt.Sprintf("%.2f", p.Ratio)
			}
		}
		httpP50, httpRatio := "-", "-"
		if p := q.PeerHTTP; p != nil {
			httpP50 = round(p.P50)
			if p.Ratio > 0 {
				httpRatio = fmt.Sprintf("%.2f", p.Ratio)
			}
		}
		onPG := "-"
		if b := q.Backend; b != nil {
			onPG = round(b.P50)
			if b.Hits != q.Hits { // reused loads of other options (see runOnPostgresBackend)
				onPG += fmt.Sprintf(" (%d hits)", b.Hits)
			}
		}
		fmt.Fprintf(out, "%-44s %9d %9s %10s %10s %8s %10s %8s %10s %10s %10s %10s\n",
			q.Name, q.Hits, pgHits, round(q.P50), pgP50, ratio, httpP50, httpRatio, round(q.P99), pgP99, round(q.ScanP50), onPG)
	}
	writes := r.Writes
	if r.WritesDuringImport != nil {
		writes = append(slices.Clip(writes), *r.WritesDuringImport)
	}
	for _, wr := range writes {
		n := "-"
		if wr.N > 0 {
			n = fmt.Sprint(wr.N)
		}
		fmt.Fprintf(out, "%-44s %9s %9s %10s %10s %8s %10s\n", wr.Name, n, "-", round(wr.P50), "-", "-", round(wr.P99))
	}
	if len(r.Browser) > 0 {
		fmt.Fprintf(out, "\nthe inbox in headless Chromium (the page's Performance API measures)\n%-52s %9s %5s %10s %10s\n", "measure", "hits", "runs", "p50", "p95")
		for _, b := range r.Browser {
			hits := "-"
			if b.Query != "" {
				hits = fmt.Sprint(b.Hits)
			}
			fmt.Fprintf(out, "%-52s %9s %5d %10s %10s\n", b.Name, hits, b.Runs, round(b.P50), round(b.P95))
		}
	}
	if r.ReusedFrom != "" {
		fmt.Fprintf(out, "\ningest: not measured, the data was loaded by the run of %s (-reuse)", r.ReusedFrom)
	} else {
		fmt.Fprintf(out, "\ningest: Parley internal %.0f conv/s, HTTP %.0f conv/s answered (%.0f/s searchable), then compaction %s (storage file %s: %.0f -> %.0f bytes per conversation)",
			r.InternalPerSecond, r.HTTPPerSecond, r.HTTPSearchablePerSecond, round(r.Compact), round(r.StorageCompact), r.LoadedStoredBytesPerConv, r.StoredBytesPerConv)
	}
	if p := r.Postgres; p != nil {
		fmt.Fprintf(out, "; PostgreSQL bulk load %.0f rows/s (%d rows in %s, indexes and ANALYZE included: %.0f conv/s)",
			p.RowsPerSecond, p.Rows, round(p.Duration), p.ConversationsPerSecond)
		loadedBy(out, p.LoadedBy)
	}
	if b := r.PostgresBackend; b != nil {
		fmt.Fprintf(out, "; Parley on PostgreSQL internal %.0f conv/s, HTTP %.0f conv/s answered", b.InternalPerSecond, b.HTTPPerSecond)
		loadedBy(out, b.LoadedBy)
	}
	fmt.Fprintln(out)
	mb := func(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }
	for _, m := range []struct {
		when  string
		peaks MemoryPeaks
	}{{"load and queries", r.Memory}, {"whole run", r.MemoryWholeRun}} {
		fmt.Fprintf(out, "memory peaks, %s: RSS %s (anonymous %s, file-backed %s), Go heap in use %s\n",
			m.when, mb(m.peaks.RSS), mb(m.peaks.RSSAnon), mb(m.peaks.RSSFile), mb(m.peaks.HeapInuse))
	}
	fmt.Fprintf(out, "peak RSS (VmHWM) after the queries: %s\n", mb(r.PeakRSSBytes))
	fmt.Fprintf(out, "bytes per conversation: stored %.0f + indexed %.0f = %.0f", r.StoredBytesPerConv, r.IndexBytesPerConv, r.BytesPerConv)
	if p := r.Postgres; p != nil {
		fmt.Fprintf(out, " (PostgreSQL database: %.0f)", p.BytesPerConversation)
	}
	if b := r.PostgresBackend; b != nil {
		fmt.Fprintf(out, " (Parley on PostgreSQL, search tables: %.0f)", b.SearchBytesPerConversation)
	}
	fmt.Fprintln(out)
	s := r.Restart
	fmt.Fprintf(out, "time to ready after a restart: %s (storage %s, index %s, list engine %s, outbox %s)\n",
		round(s.Ready), round(s.Storage), round(s.Index), round(s.ListEngine), round(s.Drain))
}

// loadedBy says that a load's figures are an earlier run's (-reuse).
func loadedBy(out io.Writer, run string) {
	if run != "" {
		fmt.Fprintf(out, " (loaded by the run of %s)", run)
	}
}

func round(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(10 * time.Microsecond).String()
}
