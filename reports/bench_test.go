package reports_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
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

// randomChat gives a chat document random figures: one in eight missed
// (no wait or response time), the others answered.
func randomChat(r *rand.Rand, d index.Document) {
	missed := r.IntN(8) == 0
	if !missed {
		d.Numbers["waitSeconds"] = []float64{float64(r.IntN(1800))}
		d.Numbers["responseSeconds"] = []float64{float64(r.IntN(900))}
	}
	d.Numbers["durationSeconds"] = []float64{float64(60 + r.IntN(3600))}
	d.Numbers["messages"] = []float64{float64(1 + r.IntN(40))}
	d.Keywords["missed"] = []string{fmt.Sprint(missed)}
	d.Keywords["completed"] = []string{fmt.Sprint(!missed)}
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
		randomChat(r, d)
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

// benchCorpus fills the engines production runs, Bleve and the list
// engine behind an index.Router, with the documents of 100,000
// conversations spread over the year before end (the documents the
// indexer builds, reduced to the fields the reports read): each with one
// customer message and two replies by ten users, some rated, and a chat
// or a call for the chat and phone conversations. Every report family has
// documents to read. With PARLEY_BENCH_FULL_ONLY set, the reports read
// Bleve alone (the figures before the list engine held report rows).
//
// Building Bleve's takes minutes; with PARLEY_BENCH_CORPUS naming a
// directory, it is kept there and later runs reuse it (the list engine is
// filled again from the same generated documents, in seconds).
func benchCorpus(b *testing.B, conversations int) (time.Time, reports.Engine) {
	end, full := benchEngine(b)
	fast := lists.New()
	var e reports.Engine = index.Router{Full: full, Fast: fast}
	if os.Getenv("PARLEY_BENCH_FULL_ONLY") != "" {
		e = full
	}
	fill := []index.Engine{full, fast}
	if dir := os.Getenv("PARLEY_BENCH_CORPUS"); dir != "" {
		kept, err := bleveindex.Open(filepath.Join(dir, strconv.Itoa(conversations)))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { kept.Close() })
		if e == reports.Engine(full) {
			e = kept
		} else {
			e = index.Router{Full: kept, Fast: fast}
		}
		full, fill = kept, []index.Engine{kept, fast}
		if !kept.Fresh() {
			fill = fill[1:]
		}
	}
	generateCorpus(b, end, conversations, fill)
	compacted(b, full)
	if len(fill) == 2 && os.Getenv("PARLEY_BENCH_CORPUS") != "" {
		if err := full.MarkBuilt(); err != nil {
			b.Fatal(err)
		}
	}
	return end, e
}

// generateCorpus applies benchCorpus's documents to engines, always the
// same ones (the random source is seeded).
func generateCorpus(b *testing.B, end time.Time, conversations int, engines []index.Engine) {
	const users = 10
	r := rand.New(rand.NewPCG(3, 4))
	batches := map[index.Kind][]index.Document{}
	flush := func(force bool) {
		for _, kind := range []index.Kind{index.Conversations, index.Messages, index.Chats, index.Calls} {
			docs := batches[kind]
			if len(docs) < 5000 && !(force && len(docs) > 0) {
				continue
			}
			for _, e := range engines {
				if err := e.Apply(context.Background(), index.Batch{Kind: kind, Company: 1, Upserts: docs}, nil); err != nil {
					b.Fatal(err)
				}
			}
			batches[kind] = docs[:0]
		}
	}
	add := func(kind index.Kind, d index.Document) { batches[kind] = append(batches[kind], d) }
	weekHour := func(at time.Time) string { return index.WeekHourKey(1+int(at.Weekday()+6)%7, at.Hour()) }
	types := []string{"email", "email", "chat", "phone"}
	for i := 1; i <= conversations; i++ {
		id := int64(i)
		created := end.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		typ, tag := types[r.IntN(len(types))], fmt.Sprint("tag", r.IntN(10))
		customer := float64(1 + r.IntN(conversations/4))
		mailbox := float64(1 + r.IntN(3))
		c := index.NewDocument(index.FormatID(id), 1)
		c.Numbers["createdAt"] = []float64{index.Millis(created)}
		c.Numbers["mailboxId"] = []float64{mailbox}
		c.Numbers["primaryCustomerId"] = []float64{customer}
		c.Keywords["type"] = []string{typ}
		c.Keywords["tag"] = []string{tag}
		c.Keywords["status"] = []string{"closed"}
		c.Keywords["createdWeekHour"] = []string{weekHour(created)}
		if r.IntN(5) == 0 {
			c.Keywords["createdBy"] = []string{"user"}
			c.Numbers["createdByUserId"] = []float64{float64(1 + r.IntN(users))}
		} else {
			c.Keywords["createdBy"] = []string{"customer"}
		}
		c.Numbers["replies"] = []float64{float64(1 + r.IntN(2))}
		first := float64(r.IntN(86400))
		firstAt := created.Add(time.Duration(first) * time.Second)
		c.Numbers["firstResponseAt"] = []float64{index.Millis(firstAt)}
		c.Numbers["firstResponseSeconds"] = []float64{first}
		c.Numbers["firstResponseOfficeSeconds"] = []float64{first / 2}
		activity := []float64{index.Millis(created)}
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
			c.Numbers["resolutionOfficeSeconds"] = []float64{v / 2}
		}
		createdMillis, number := index.Millis(created), float64(id)
		figures := index.ConversationValues(id, &createdMillis, &number, &first, nil, resolution, nil)
		m := index.NewDocument(index.MessageID(id, id*3), 1)
		m.Keywords["from"] = []string{"customer"}
		m.Numbers["createdAt"] = []float64{index.Millis(created)}
		m.Numbers["customerId"] = []float64{customer}
		m.Numbers["conversationId"] = []float64{float64(id)}
		m.Numbers["mailboxId"] = []float64{mailbox}
		m.Keywords["type"], m.Keywords["tag"], m.Keywords["status"] = []string{typ}, []string{tag}, []string{"closed"}
		add(index.Messages, m)
		for k := int64(1); k <= 2; k++ {
			at := created.Add(time.Duration(k) * time.Duration(first) * time.Second)
			activity = append(activity, index.Millis(at))
			user := float64(1 + r.IntN(users))
			m := index.NewDocument(index.MessageID(id, id*3+k), 1)
			m.Keywords["from"] = []string{"user"}
			m.Numbers["createdAt"] = []float64{index.Millis(at)}
			m.Numbers["userId"] = []float64{user}
			m.Numbers["conversationId"] = []float64{float64(id)}
			m.Numbers["number"] = []float64{float64(id)}
			m.Numbers["customerId"] = []float64{customer}
			m.Numbers["mailboxId"] = []float64{mailbox}
			m.Numbers["responseSeconds"] = []float64{first}
			m.Numbers["responseOfficeSeconds"] = []float64{first / 2}
			m.Keywords["type"], m.Keywords["tag"], m.Keywords["status"] = []string{typ}, []string{tag}, []string{"closed"}
			m.Keywords["createdWeekHour"] = []string{weekHour(at)}
			m.Keywords["conversationFigures"] = []string{figures}
			m.Keywords["responseFigures"] = []string{index.ConversationValues(id, &first, nil)}
			if r.IntN(4) == 0 {
				rating := reports.Ratings[r.IntN(len(reports.Ratings))]
				m.Keywords["rating"] = []string{rating}
				m.Numbers["ratedAt"] = []float64{index.Millis(at.Add(time.Hour))}
				m.Numbers["ratingRank"] = []float64{index.RatingRanks[rating]}
				m.Numbers["ratingCustomerId"] = []float64{customer}
			}
			add(index.Messages, m)
		}
		c.Numbers["activityAt"] = activity
		c.Numbers["replyAt"] = activity[1:]
		c.Numbers["responseSeconds"] = []float64{first}
		add(index.Conversations, c)
		switch typ {
		case "chat":
			d := index.NewDocument(index.FormatID(id), 1)
			d.Numbers["createdAt"] = []float64{index.Millis(created)}
			d.Numbers["mailboxId"] = []float64{mailbox}
			d.Numbers["assigneeId"] = []float64{float64(1 + r.IntN(users))}
			d.Numbers["conversationId"] = []float64{float64(id)}
			randomChat(r, d)
			d.Keywords["tag"] = []string{tag}
			add(index.Chats, d)
		case "phone":
			d := index.NewDocument(index.FormatID(id), 1)
			d.Numbers["createdAt"] = []float64{index.Millis(created)}
			d.Numbers["mailboxId"] = []float64{mailbox}
			d.Numbers["userId"] = []float64{float64(1 + r.IntN(users))}
			d.Numbers["customerId"] = []float64{customer}
			d.Numbers["conversationId"] = []float64{float64(id)}
			d.Keywords["tag"] = []string{tag}
			add(index.Calls, d)
		}
		flush(false)
	}
	flush(true)
}

// compacted merges the corpus into one segment per partition, as a
// rebuild leaves it: Bleve caches the fields it uninverts per segment, so
// background merges left over from the bulk load would drop the caches
// again and again while the reports are measured.
func compacted(b *testing.B, e *bleveindex.Engine) *bleveindex.Engine {
	if err := e.Compact(context.Background()); err != nil {
		b.Fatal(err)
	}
	return e
}

// cpuTime is the CPU time the process has used so far. On a shared
// machine a benchmark's wall time says more about the other processes
// than about the code; its CPU time per operation (background work such
// as Bleve's merges included) does not.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkReports measures every report over 100,000 conversations (see
// benchCorpus), for the last 30 days and for the year, each with the
// period before as its previous one; the user reports for one user and
// for a team of four. cpu-ms/op is the CPU time per report. Run with:
//
//	go test ./reports -run XXX -bench Reports -benchtime 5x
//
// (PARLEY_BENCH_FULL_ONLY=1 for Bleve alone.)
func BenchmarkReports(b *testing.B) {
	end, e := benchCorpus(b, 100_000)
	var users []parley.User
	for id := int64(1); id <= 10; id++ {
		users = append(users, parley.User{ID: id, CompanyID: 1, FirstName: fmt.Sprint("User", id)})
	}
	var tags []parley.Tag
	for id := int64(0); id < 10; id++ {
		tags = append(tags, parley.Tag{ID: id + 1, Name: fmt.Sprint("tag", id), Slug: fmt.Sprint("tag", id)})
	}
	none := func(ids []int64) (map[int64]reports.TopName, error) { return map[int64]reports.TopName{}, nil }
	names := reports.TopNames{Customers: none, SavedReplies: none, Workflows: none}
	user := reports.Subject{ID: 1, Type: parley.PartyUser, Members: []int64{1}}
	team := reports.Subject{ID: 11, Type: parley.PartyTeam, Members: []int64{1, 2, 3, 4}}
	ctx := context.Background()
	type report struct {
		name string
		run  func(req reports.Request, viewBy string) error
	}
	errOf := func(_ any, err error) error { return err }
	company := []report{
		{"company", func(q reports.Request, _ string) error { return errOf(reports.Company(ctx, e, q, users, tags)) }},
		{"company/customers-helped", func(q reports.Request, v string) error { return errOf(reports.CustomersHelped(ctx, e, q, v)) }},
		{"company/drilldown", func(q reports.Request, _ string) error {
			f, err := reports.CompanyDrillFilter(q, "responseTime", 2)
			if err != nil {
				return err
			}
			return errOf(reports.ConversationList(ctx, e, q, f, search.Paging{Number: 1, Size: 25}))
		}},
		{"conversations", func(q reports.Request, _ string) error {
			return errOf(reports.Conversations(ctx, e, q, tags, names, nil))
		}},
		{"conversations/busy-times", func(q reports.Request, _ string) error { return errOf(reports.BusyTimes(ctx, e, q)) }},
		{"conversations/new", func(q reports.Request, v string) error { return errOf(reports.NewConversations(ctx, e, q, v)) }},
		{"conversations/received-messages", func(q reports.Request, v string) error { return errOf(reports.ReceivedMessages(ctx, e, q, v)) }},
		{"conversations/volume-by-channel", func(q reports.Request, v string) error { return errOf(reports.VolumeByChannel(ctx, e, q, v)) }},
		{"conversations/drilldown", func(q reports.Request, _ string) error {
			return errOf(reports.ConversationList(ctx, e, q, reports.TotalFilter(q.Current, q.Filter), search.Paging{Number: 1, Size: 25}))
		}},
		{"productivity", func(q reports.Request, _ string) error { return errOf(reports.Productivity(ctx, e, q, tags)) }},
		{"productivity/first-response-time", func(q reports.Request, v string) error { return errOf(reports.FirstResponseTimes(ctx, e, q, v)) }},
		{"productivity/replies-sent", func(q reports.Request, v string) error { return errOf(reports.RepliesSent(ctx, e, q, v)) }},
		{"productivity/resolution-time", func(q reports.Request, v string) error { return errOf(reports.ResolutionTimes(ctx, e, q, v)) }},
		{"productivity/resolved", func(q reports.Request, v string) error { return errOf(reports.ResolvedSeries(ctx, e, q, v)) }},
		{"productivity/response-time", func(q reports.Request, v string) error { return errOf(reports.ResponseTimes(ctx, e, q, v)) }},
		{"happiness", func(q reports.Request, _ string) error { return errOf(reports.Happiness(ctx, e, q)) }},
		{"happiness/ratings", func(q reports.Request, _ string) error {
			return errOf(reports.RatingsList(ctx, e, q, "", "modifiedAt", true, search.Paging{Number: 1, Size: 25}))
		}},
		{"email", func(q reports.Request, _ string) error { return errOf(reports.Email(ctx, e, q, tags)) }},
		{"chat", func(q reports.Request, _ string) error { return errOf(reports.Chat(ctx, e, q)) }},
		{"phone", func(q reports.Request, _ string) error { return errOf(reports.Phone(ctx, e, q, users)) }},
	}
	subjectReports := func(s reports.Subject) []report {
		return []report{
			{"user", func(q reports.Request, _ string) error { return errOf(reports.User(ctx, e, q, s, tags)) }},
			{"user/customers-helped", func(q reports.Request, v string) error { return errOf(reports.UserCustomersHelped(ctx, e, q, s, v)) }},
			{"user/replies", func(q reports.Request, v string) error { return errOf(reports.UserReplies(ctx, e, q, s, v)) }},
			{"user/resolutions", func(q reports.Request, v string) error { return errOf(reports.UserResolutions(ctx, e, q, s, v)) }},
			{"user/conversation-history", func(q reports.Request, _ string) error {
				_, _, err := reports.ConversationHistory(ctx, e, q, s, "", "responseTime", true, 0, 25)
				return err
			}},
			{"user/drilldown", func(q reports.Request, _ string) error {
				_, _, err := reports.UserDrillDown(ctx, e, q, s, 0, 25)
				return err
			}},
			{"user/happiness", func(q reports.Request, _ string) error { return errOf(reports.UserHappiness(ctx, e, q, s, tags)) }},
			{"user/ratings", func(q reports.Request, _ string) error {
				return errOf(reports.UserRatingsList(ctx, e, q, s, "", "modifiedAt", true, search.Paging{Number: 1, Size: 25}))
			}},
			{"user/chat", func(q reports.Request, _ string) error { return errOf(reports.UserChat(ctx, e, q, s)) }},
		}
	}
	for _, tc := range benchRequests(end) {
		req := tc.req
		viewBy, err := reports.ViewBy(req, "")
		if err != nil {
			b.Fatal(err)
		}
		all := map[string][]report{"": company, "user/": subjectReports(user), "team/": subjectReports(team)}
		for _, prefix := range []string{"", "user/", "team/"} {
			for _, rep := range all[prefix] {
				b.Run(tc.name+"/"+prefix+rep.name, func(b *testing.B) {
					start := cpuTime(b)
					for b.Loop() {
						if err := rep.run(req, viewBy); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}
