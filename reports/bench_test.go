package reports_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/reports"
)

// BenchmarkChatReport measures the chat report over 100,000 chats spread
// over a year, for a 30-day range and for the whole year, each with a
// previous period. Run with: go test ./reports -run XXX -bench ChatReport
func BenchmarkChatReport(b *testing.B) {
	const chats = 100_000
	end := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	e, err := bleveindex.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 2))
	var batch []index.Document
	for i := 0; i < chats; i++ {
		d := index.NewDocument(fmt.Sprintf("chat-%06d", i), 1)
		created := end.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		d.Numbers["createdAt"] = []float64{index.Millis(created)}
		d.Numbers["mailboxId"] = []float64{float64(1 + r.IntN(3))}
		missed := r.IntN(8) == 0
		if !missed {
			d.Numbers["waitSeconds"] = []float64{float64(r.IntN(1800))}
			d.Numbers["responseSeconds"] = []float64{float64(r.IntN(900))}
		}
		d.Numbers["durationSeconds"] = []float64{float64(60 + r.IntN(3600))}
		d.Numbers["messages"] = []float64{float64(1 + r.IntN(40))}
		d.Keywords["missed"] = []string{fmt.Sprint(missed)}
		d.Keywords["completed"] = []string{fmt.Sprint(!missed)}
		d.Keywords["tag"] = []string{fmt.Sprint("tag", r.IntN(10))}
		batch = append(batch, d)
		if len(batch) == 5000 {
			if err := e.Apply(context.Background(), index.Batch{Kind: index.Chats, Company: 1, Upserts: batch}, nil); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for _, tc := range []struct {
		name string
		days int
	}{{"30days", 30}, {"year", 365}} {
		cur := reports.Period{Start: end.Add(-time.Duration(tc.days) * 24 * time.Hour), End: end}
		prev := reports.Period{Start: cur.Start.Add(-time.Duration(tc.days) * 24 * time.Hour), End: cur.Start}
		req := reports.Request{Company: 1, Current: cur, Previous: &prev}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := reports.Chat(context.Background(), e, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
