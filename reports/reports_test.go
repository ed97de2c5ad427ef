package reports_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) // a Monday

// chatSpec is a hand-built chat: offsets from its start.
type chatSpec struct {
	start    time.Time
	mailbox  int64
	wait     time.Duration // to acceptance; <0: never accepted
	response time.Duration // visitor's first message to the first agent message; <0: none
	messages int           // total messages, visitor first
	duration time.Duration // to the end; <0: still open
	tags     []string
}

type fixture struct {
	db     *storage.DB
	bleve  reports.Engine
	oracle reports.Engine
	owner  parley.Caller
}

func newFixture(t *testing.T, office *parley.OfficeHours, chats []chatSpec) *fixture {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db}
	n := 0
	newID := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	_, err = db.Update(func(tx *storage.Tx) error {
		c := &parley.Company{Name: "Acme", Plan: parley.PlanPro}
		if office != nil {
			c.OfficeHours = *office
		}
		if err := tx.PutCompany(c); err != nil {
			return err
		}
		u := &parley.User{CompanyID: c.ID, FirstName: "Olivia", LastName: "Owner", Email: "o@acme.test", Role: parley.RoleOwner, Active: true, CanChat: true}
		if err := tx.PutUser(u); err != nil {
			return err
		}
		f.owner = parley.Caller{Company: c, User: u}
		for i, w := range []string{"w1", "w2"} {
			if err := tx.PutMailbox(&parley.Mailbox{CompanyID: c.ID, Name: fmt.Sprint("Box ", i+1), Widgets: []string{w}}); err != nil {
				return err
			}
		}
		for i, spec := range chats {
			if err := playChat(tx, f.owner, spec, i, newID); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	b, err := bleveindex.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	oracle := scan.New()
	for _, e := range []index.Engine{b, oracle} {
		require.NoError(t, indexer.NewSyncer(db, e, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(context.Background(), nil))
	}
	f.bleve, f.oracle = b, oracle
	return f
}

// playChat runs a chat through the domain rules with exact timings.
func playChat(tx *storage.Tx, agent parley.Caller, s chatSpec, i int, newID func() string) error {
	env := func(at time.Time) parley.ChatEnv { return parley.ChatEnv{Now: at, NewID: newID} }
	first := "hello"
	c, err := parley.StartChat(tx, fmt.Sprint("w", s.mailbox), &parley.StartChatRequest{
		Name: parley.Ptr("Visitor"), Email: parley.Ptr(fmt.Sprintf("v%d@example.com", i)), Message: &first}, "token", env(s.start))
	if err != nil {
		return err
	}
	sent := 1
	if s.wait >= 0 {
		// Acceptance happens with the agent's first message.
		at := s.start.Add(s.wait)
		if s.response >= 0 {
			at = s.start.Add(s.response)
		}
		if _, err := parley.AgentMessage(tx, agent, c.ID, newID(), &parley.AgentMessageRequest{Body: parley.Ptr("hi")}, env(at)); err != nil {
			return err
		}
		sent++
		c, _ = tx.Chat(c.CompanyID, c.ID)
		accepted := s.start.Add(s.wait)
		c.AcceptedAt = &accepted // the spec's exact wait, independent of the first message
		if err := tx.PutChat(c); err != nil {
			return err
		}
	}
	for ; sent < s.messages; sent++ {
		c, _ = tx.Chat(c.CompanyID, c.ID)
		if _, err := parley.VisitorMessage(tx, c, parley.Ptr("more"), env(s.start.Add(time.Duration(sent)*time.Second))); err != nil {
			return err
		}
	}
	if len(s.tags) > 0 && s.wait >= 0 {
		if _, err := parley.UpdateChatTags(tx, agent, c.ID, s.tags, true, env(s.start.Add(time.Second))); err != nil {
			return err
		}
	}
	if s.duration >= 0 {
		if s.wait < 0 { // an unaccepted chat is ended by the agent without answering
			c, _ = tx.Chat(c.CompanyID, c.ID)
		}
		if _, err := parley.EndChat(tx, agent, c.ID, &parley.EndChatRequest{Status: parley.Ptr("closed")}, env(s.start.Add(s.duration))); err != nil {
			return err
		}
	}
	return nil
}

func period(from, to time.Time) reports.Period { return reports.Period{Start: from, End: to} }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestChatReportFiguresAndBoundaries(t *testing.T) {
	minute := time.Minute
	chats := []chatSpec{
		// Wait boundaries: 59.999 s is under a minute; 60 s is 1-2 min; 120 s is 2-10 min...
		{start: t0, mailbox: 1, wait: ms(59999), response: ms(59999), messages: 2, duration: 4*minute + ms(59999)},
		{start: t0.Add(time.Hour), mailbox: 1, wait: 60 * time.Second, response: 60 * time.Second, messages: 5, duration: 5 * minute},
		{start: t0.Add(2 * time.Hour), mailbox: 1, wait: 120 * time.Second, response: 300 * time.Second, messages: 10, duration: 20 * minute, tags: []string{"vip"}},
		{start: t0.Add(3 * time.Hour), mailbox: 2, wait: 600 * time.Second, response: 600 * time.Second, messages: 30, duration: 30 * minute},
		{start: t0.Add(4 * time.Hour), mailbox: 2, wait: 1200 * time.Second, response: 1200 * time.Second, messages: 20, duration: 31 * minute, tags: []string{"vip"}},
		// Missed: never answered, ended.
		{start: t0.Add(5 * time.Hour), mailbox: 1, wait: -1, response: -1, messages: 1, duration: 10 * minute},
		// Open: counted as a chat, no duration.
		{start: t0.Add(6 * time.Hour), mailbox: 1, wait: 30 * time.Second, response: 30 * time.Second, messages: 2, duration: -1},
		// Previous week: two chats.
		{start: t0.Add(-7 * 24 * time.Hour), mailbox: 1, wait: 30 * time.Second, response: 30 * time.Second, messages: 2, duration: 2 * minute},
		{start: t0.Add(-6 * 24 * time.Hour), mailbox: 1, wait: 90 * time.Second, response: 90 * time.Second, messages: 6, duration: 7 * minute},
	}
	f := newFixture(t, nil, chats)
	week := period(t0, t0.Add(7*24*time.Hour))
	prev := period(t0.Add(-7*24*time.Hour), t0)
	req := reports.Request{Company: 1, Current: week, Previous: &prev}
	rep, err := reports.Chat(context.Background(), f.bleve, req)
	require.NoError(t, err)

	assert.Equal(t, reports.ChatVolume{ChatConversations: 7, CompletedChats: 5, MissedChats: 1, ChatsPerDay: 1}, rep.Current.Volume)
	// Averages in seconds over the chats that have the figure:
	// waits (59.999+60+120+600+1200+30)/6, responses (59.999+60+300+600+1200+30)/6,
	// messages (2+5+10+30+20+1+2)/7, durations (299.999+300+1200+1800+1860+600)/6.
	assert.Equal(t, reports.ChatResponses{WaitTime: 345, ResponseTime: 375}, rep.Current.Responses)
	assert.Equal(t, reports.ChatResolutions{MessagesPerChat: 10, Duration: 1010}, rep.Current.Resolutions)
	assert.Equal(t, "2026-11-02T09:00:00Z", rep.Current.StartDate)
	assert.Equal(t, "2026-11-09T09:00:00Z", rep.Current.EndDate)

	ranges := func(d reports.Distribution) []int {
		var out []int
		for _, r := range d.Ranges {
			out = append(out, r.Count)
		}
		return out
	}
	assert.Equal(t, []int{2, 1, 1, 1, 1}, ranges(rep.WaitTime), "59.999 s < 1 min; 60 s, 120 s, 600 s, 1200 s start their ranges")
	assert.Equal(t, []int{2, 1, 0, 1, 2}, ranges(rep.ResponseTime), "59.999 s and 30 s; 60 s; none in 2-5 min; 300 s; 600 s and 1200 s")
	assert.Equal(t, []int{3, 1, 1, 1, 1}, ranges(rep.MessagesPerChat), "<5: 2, 1, 2 messages; 30 is >30's range")
	assert.Equal(t, []int{1, 1, 1, 1, 2}, ranges(rep.Duration), "4:59.999 < 5 min; 5, 10, 20, 30 min start their ranges")
	assert.Equal(t, 6, rep.WaitTime.Count)
	assert.Equal(t, 2, rep.WaitTime.PreviousCount)
	assert.Equal(t, reports.RangeCount{ID: 1, Count: 2, Percent: 33.33, PreviousCount: 1, PreviousPercent: 50}, rep.WaitTime.Ranges[0])

	require.NotNil(t, rep.Previous)
	assert.Equal(t, reports.ChatVolume{ChatConversations: 2, CompletedChats: 2, MissedChats: 0, ChatsPerDay: 0.29}, rep.Previous.Volume)
	require.NotNil(t, rep.Deltas)
	assert.Equal(t, 250.0, rep.Deltas.Volume.ChatConversations)
	assert.Equal(t, 100.0, rep.Deltas.Volume.MissedChats, "from zero: 100")

	// Filters: mailbox 2 only; the vip tag only.
	rep, err = reports.Chat(context.Background(), f.bleve, reports.Request{Company: 1, Current: week, Filter: reports.Filter{Mailboxes: []int64{2}}})
	require.NoError(t, err)
	assert.Equal(t, 2.0, rep.Current.Volume.ChatConversations)
	assert.Nil(t, rep.Previous)
	assert.Nil(t, rep.Deltas)
	rep, err = reports.Chat(context.Background(), f.bleve, reports.Request{Company: 1, Current: week,
		Filter: reports.Filter{Tags: []parley.Tag{{Name: "vip", Slug: "vip"}}}})
	require.NoError(t, err)
	assert.Equal(t, 2.0, rep.Current.Volume.ChatConversations)

	// The drill-down lists exactly what a range counts.
	res, err := reports.DrillDown(context.Background(), f.bleve, req, "waitTime", 1, search.Paging{Number: 1, Size: 10})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Total)
	// The open chat (30 s) and the first one (59.999 s), newest first.
	assert.Equal(t, []string{"00000000-0000-4000-8000-000000000088", "00000000-0000-4000-8000-000000000001"}, res.IDs)
}

func TestChatReportDeltasFromZero(t *testing.T) {
	assert.Equal(t, 0.0, reports.Delta(0, 0))
	assert.Equal(t, 100.0, reports.Delta(3, 0))
	assert.Equal(t, -50.0, reports.Delta(1, 2))
	assert.Equal(t, 33.33, reports.Delta(4, 3))
}

func TestChatReportOfficeHours(t *testing.T) {
	office := parley.Weekdays("UTC", 9*60, 17*60)
	friday := time.Date(2026, 11, 6, 16, 50, 0, 0, time.UTC)
	chats := []chatSpec{
		// Starts Friday 16:50, accepted Monday 09:05: 15 office minutes.
		{start: friday, mailbox: 1, wait: 64*time.Hour + 15*time.Minute, response: 64*time.Hour + 15*time.Minute, messages: 2, duration: 64*time.Hour + 20*time.Minute},
	}
	f := newFixture(t, &office, chats)
	req := reports.Request{Company: 1, Current: period(friday.Add(-time.Hour), friday.Add(24*time.Hour))}
	plain, err := reports.Chat(context.Background(), f.bleve, req)
	require.NoError(t, err)
	assert.Equal(t, 231300.0, plain.Current.Responses.WaitTime)
	req.Filter.OfficeHours = true
	rep, err := reports.Chat(context.Background(), f.bleve, req)
	require.NoError(t, err)
	assert.Equal(t, 900.0, rep.Current.Responses.WaitTime, "only the office minutes count")
	assert.Equal(t, 1200.0, rep.Current.Resolutions.Duration)
	assert.Equal(t, 1, rep.WaitTime.Ranges[3].Count, "15 office minutes: the 10-20 min range")
}

// TestReportsAgreeWithTheOracle: the facet path on Bleve equals the same
// computation on the brute-force engine, and a recomputation from the
// stored records.
func TestReportsAgreeWithTheOracle(t *testing.T) {
	var chats []chatSpec
	for i := 0; i < 60; i++ {
		chats = append(chats, chatSpec{start: t0.Add(time.Duration(i*97) * time.Minute), mailbox: int64(1 + i%2),
			wait: time.Duration(i*37%1500) * time.Second, response: time.Duration(i*53%900) * time.Second,
			messages: 1 + i%35, duration: time.Duration(i*61%2400) * time.Second, tags: []string{fmt.Sprint("t", i%3)}})
	}
	f := newFixture(t, nil, chats)
	prev := period(t0.Add(-3*24*time.Hour), t0.Add(24*time.Hour))
	req := reports.Request{Company: 1, Current: period(t0.Add(24*time.Hour), t0.Add(5*24*time.Hour)), Previous: &prev}
	want, err := reports.Chat(context.Background(), f.oracle, req)
	require.NoError(t, err)
	got, err := reports.Chat(context.Background(), f.bleve, req)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// Recompute the current chat count and average wait from the records.
	var n, waited int
	var waitSum float64
	require.NoError(t, f.db.View(func(tx *storage.Tx) error {
		return tx.EachChatID(func(company int64, id string) {
			c, _ := tx.Chat(company, id)
			if c.CreatedAt.Before(req.Current.Start) || !c.CreatedAt.Before(req.Current.End) {
				return
			}
			n++
			if w, ok := c.WaitTime(); ok {
				waited++
				waitSum += w.Seconds()
			}
		})
	}))
	assert.Equal(t, float64(n), got.Current.Volume.ChatConversations)
	assert.InDelta(t, waitSum/float64(waited), got.Current.Responses.WaitTime, 0.005)
}
