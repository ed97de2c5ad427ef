package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
)

// BenchmarkListEngineLoad measures the list engine's start over the
// bench's generated store: Load from storage, and Restore from the
// snapshot Save writes, with the heap the loaded engine holds per
// conversation (heap-B/conv: the live heap after Load less the live heap
// before it). PARLEY_LISTS_N sets the conversations (default 10,000; the
// issue's figures are at 100,000); PARLEY_LISTS_STORE keeps the store in a
// directory between runs, since generating it takes minutes. Run with:
//
//	go test ./cmd/parley-bench -run XXX -bench ListEngineLoad -benchtime 3x
func BenchmarkListEngineLoad(b *testing.B) {
	n := sizeFromEnv(b, "PARLEY_LISTS_N", 10_000)
	db := benchStore(b, n)
	project := lists.Projection{List: indexer.ListFields, Conversation: indexer.Documents, Chat: indexer.ChatDocument}
	b.Run("storage", func(b *testing.B) {
		var heap uint64
		var listsIn time.Duration
		for b.Loop() {
			before := liveHeap()
			e := lists.New()
			start := time.Now()
			e.Load(db.Store(), project)
			listsIn += untilLists(b, e, start)
			if err := e.WaitReports(); err != nil {
				b.Fatal(err)
			}
			heap = liveHeap() - before
			runtime.KeepAlive(e)
		}
		b.ReportMetric(float64(heap)/float64(n), "heap-B/conv")
		// Load returns at once; the list rows, then the report rows, fill
		// after it (ns/op is both).
		b.ReportMetric(float64(listsIn.Milliseconds())/float64(b.N), "lists-in-ms/op")
	})
	e := lists.New()
	e.Load(db.Store(), project)
	if err := e.WaitReports(); err != nil {
		b.Fatal(err)
	}
	snapshot, mark := filepath.Join(b.TempDir(), "lists.snapshot"), lists.Mark{Store: 1, Seq: 1}
	if err := e.Save(snapshot, mark); err != nil {
		b.Fatal(err)
	}
	if info, err := os.Stat(snapshot); err == nil {
		b.Logf("snapshot: %d bytes, %.0f per conversation", info.Size(), float64(info.Size())/float64(n))
	}
	b.Run("snapshot", func(b *testing.B) {
		var ready, listsIn time.Duration
		for b.Loop() {
			restored := lists.New()
			start := time.Now()
			if ok, err := restored.Restore(snapshot, mark); err != nil || !ok {
				b.Fatal(ok, err)
			}
			ready += time.Since(start)
			listsIn += untilLists(b, restored, start)
			if err := restored.WaitReports(); err != nil {
				b.Fatal(err)
			}
		}
		// Restore returns when the engine can take requests; the rows
		// fill after it (ns/op is both).
		b.ReportMetric(float64(ready.Microseconds())/1000/float64(b.N), "ready-ms/op")
		b.ReportMetric(float64(listsIn.Milliseconds())/float64(b.N), "lists-in-ms/op")
	})
}

// untilLists waits until e answers conversation lists (its list rows are
// in), and returns the time since start.
func untilLists(b *testing.B, e *lists.Engine, start time.Time) time.Duration {
	list := index.Request{Kind: index.Conversations, Company: 1, Limit: 1}
	filled := make(chan error, 1)
	go func() { filled <- e.WaitReports() }()
	for !e.Supports(list) {
		select {
		case err := <-filled:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(100 * time.Microsecond):
		}
	}
	return time.Since(start)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchStore opens a store of n generated conversations (and n/10 chats),
// as parley-bench loads them, kept in PARLEY_LISTS_STORE when it is set.
func benchStore(b *testing.B, n int) *storage.DB {
	dir := b.TempDir()
	if kept := os.Getenv("PARLEY_LISTS_STORE"); kept != "" {
		dir = filepath.Join(kept, strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// The store is complete once its mark is written.
	complete := filepath.Join(dir, "complete")
	_, statErr := os.Stat(complete)
	if statErr != nil {
		os.Remove(filepath.Join(dir, "parley.db"))
	}
	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if statErr == nil {
		return db
	}
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	const span = 2 * 365 * 24 * time.Hour
	w, err := setupWorld(db.Store(), 1, max(n/5, 50), now)
	if err != nil {
		b.Fatal(err)
	}
	if err := loadInternal(db.Store(), w, newCorpus(corpusSeed, corpusWords), 0, n, now, span); err != nil {
		b.Fatal(err)
	}
	if err := loadChats(db.Store(), w, max(n/10, 10), now, span, chatSeed); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(complete, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return db
}
