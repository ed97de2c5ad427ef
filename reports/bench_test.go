package reports_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/reports"
)

// benchEngine is an empty Bleve engine for a benchmark, and the end of
// the year its documents span.
func benchEngine(b *testing.B) (time.Time, *bleveindex.Engine) {
	e, err := bleveindex.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), e
}

// benchRequest is a benchmark's report request: the last 30 days or the
// year before end, each with the period before as its previous one.
type benchRequest struct {
	name string
	req  reports.Request
}

func benchRequests(end time.Time) []benchRequest {
	var out []benchRequest
	for name, days := range map[string]int{"30days": 30, "year": 365} {
		span := time.Duration(days) * 24 * time.Hour
		prev := reports.Period{Start: end.Add(-2 * span), End: end.Add(-span)}
		out = append(out, benchRequest{name, reports.Request{Company: 1, Current: reports.Period{Start: prev.End, End: end}, Previous: &prev}})
	}
	slices.SortFunc(out, func(a, b benchRequest) int { return strings.Compare(a.name, b.name) })
	return out
}

// BenchmarkChatReport measures the chat report over 100,000 chats spread
// over a year, for a 30-day range and for the whole year, each with a
// previous period. Run with: go test ./reports -run XXX -bench ChatReport
func BenchmarkChatReport(b *testing.B) {
	const chats = 100_000
	end, e := benchEngine(b)
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
	for _, tc := range benchRequests(end) {
		req := tc.req
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := reports.Chat(context.Background(), e, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUserReports measures the user reports over 100,000 conversations
// spread over a year, two replies each by ten users (the documents the
// indexer builds, reduced to the fields these reports read), for one user
// and for a team of four, over 30 days with a previous period and over the
// year. Run with: go test ./reports -run XXX -bench UserReports -benchtime 5x
func BenchmarkUserReports(b *testing.B) {
	const conversations, users = 100_000, 10
	end, e := benchEngine(b)
	r := rand.New(rand.NewPCG(3, 4))
	var convs, replies []index.Document
	flush := func(force bool) {
		for _, batch := range []struct {
			kind index.Kind
			docs *[]index.Document
		}{{index.Conversations, &convs}, {index.Messages, &replies}} {
			if len(*batch.docs) < 5000 && !(force && len(*batch.docs) > 0) {
				continue
			}
			if err := e.Apply(context.Background(), index.Batch{Kind: batch.kind, Company: 1, Upserts: *batch.docs}, nil); err != nil {
				b.Fatal(err)
			}
			*batch.docs = (*batch.docs)[:0]
		}
	}
	for i := 1; i <= conversations; i++ {
		id := int64(i)
		created := end.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		c := index.NewDocument(index.FormatID(id), 1)
		c.Numbers["createdAt"] = []float64{index.Millis(created)}
		c.Numbers["createdByUserId"] = []float64{float64(1 + r.IntN(users))}
		c.Numbers["replies"] = []float64{2}
		first := float64(r.IntN(86400))
		var resolution *float64
		if r.IntN(3) > 0 {
			closedAt := created.Add(time.Duration(1+r.IntN(72)) * time.Hour)
			v := closedAt.Sub(created).Seconds()
			resolution = &v
			closer := float64(1 + r.IntN(users))
			c.Numbers["closedAt"] = []float64{index.Millis(closedAt)}
			c.Numbers["closedByUserId"] = []float64{closer}
			c.Numbers["resolvedAt"] = []float64{index.Millis(closedAt)}
			c.Numbers["resolvedByUserId"] = []float64{closer}
			c.Numbers["resolutionSeconds"] = []float64{v}
		}
		createdMillis, number := index.Millis(created), float64(id)
		figures := index.ConversationValues(id, &createdMillis, &number, &first, nil, resolution, nil)
		convs = append(convs, c)
		for k := int64(0); k < 2; k++ {
			at := created.Add(time.Duration(1+k) * time.Duration(first) * time.Second)
			m := index.NewDocument(index.MessageID(id, id*2+k), 1)
			m.Keywords["from"] = []string{"user"}
			m.Numbers["createdAt"] = []float64{index.Millis(at)}
			m.Numbers["userId"] = []float64{float64(1 + r.IntN(users))}
			m.Numbers["conversationId"] = []float64{float64(id)}
			m.Numbers["customerId"] = []float64{float64(1 + r.IntN(conversations/4))}
			m.Numbers["responseSeconds"] = []float64{first}
			m.Keywords["status"] = []string{"closed"}
			m.Keywords["createdWeekHour"] = []string{index.WeekHourKey(1+int(at.Weekday()+6)%7, at.Hour())}
			m.Keywords["conversationFigures"] = []string{figures}
			m.Keywords["responseFigures"] = []string{index.ConversationValues(id, &first, nil)}
			replies = append(replies, m)
		}
		flush(false)
	}
	flush(true)
	user := reports.Subject{ID: 1, Type: "user", Members: []int64{1}}
	team := reports.Subject{ID: 11, Type: "team", Members: []int64{1, 2, 3, 4}}
	ctx := context.Background()
	for _, tc := range benchRequests(end) {
		req := tc.req
		viewBy, err := reports.ViewBy(req, "")
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []reports.Subject{user, team} {
			for report, run := range map[string]func() error{
				"user":    func() error { _, err := reports.User(ctx, e, req, s, nil); return err },
				"replies": func() error { _, err := reports.UserReplies(ctx, e, req, s, viewBy); return err },
				"history": func() error {
					_, _, err := reports.ConversationHistory(ctx, e, req, s, "", "responseTime", true, 0, 25)
					return err
				},
				"drilldown": func() error { _, _, err := reports.UserDrillDown(ctx, e, req, s, 0, 25); return err },
			} {
				b.Run(fmt.Sprintf("%s/%s/%s", tc.name, s.Type, report), func(b *testing.B) {
					for b.Loop() {
						if err := run(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
