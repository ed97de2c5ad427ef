package reports_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
)

// topNames names every customer "customer", every saved reply "reply" (of
// mailbox 1) and every workflow "workflow".
var topNames = reports.TopNames{Customers: namedAll("customer", nil), SavedReplies: namedAll("reply", &mailboxOne), Workflows: namedAll("workflow", nil)}

var mailboxOne = int64(1)

func namedAll(name string, mailbox *int64) func([]int64) (map[int64]reports.TopName, error) {
	return func(ids []int64) (map[int64]reports.TopName, error) {
		out := map[int64]reports.TopName{}
		for _, id := range ids {
			out[id] = reports.TopName{Name: name, MailboxID: mailbox}
		}
		return out, nil
	}
}

// byHand is what the conversations reports count, recomputed from the
// stored records of one request.
type byHand struct {
	total, created int
	customers      map[int64]bool
	busy           map[[2]int]int
	received       int
	perType        map[string]int
}

func countByHand(t *testing.T, db *storage.DB, r reports.Request) byHand {
	h := byHand{customers: map[int64]bool{}, busy: map[[2]int]int{}, perType: map[string]int{}}
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		company, err := tx.Company(r.Company)
		if err != nil {
			return err
		}
		loc := company.ReportLocation()
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID != r.Company || c.State == parley.StateDeleted || !matches(tx, c, r.Filter) {
				return nil
			}
			threads, err := tx.Threads(c.CompanyID, c.ID)
			if err != nil {
				return err
			}
			active := in(r.Current, c.CreatedAt)
			for _, th := range threads {
				if th.State != parley.ThreadPublished {
					continue
				}
				fromCustomer := th.Type.IsCustomerKind() && th.CreatedBy.Type == parley.PartyCustomer
				userReply := th.Type == parley.ThreadMessage && th.CreatedBy.Type == parley.PartyUser
				if (fromCustomer || userReply) && in(r.Current, th.CreatedAt) {
					active = true
				}
				if fromCustomer && in(r.Current, th.CreatedAt) {
					h.received++
				}
			}
			if active {
				h.total++
				if c.CustomerID != 0 {
					h.customers[c.CustomerID] = true
				}
			}
			if in(r.Current, c.CreatedAt) {
				h.created++
				h.perType[string(c.Type)]++
				local := c.CreatedAt.In(loc)
				day := int(local.Weekday())
				if day == 0 {
					day = 7
				}
				h.busy[[2]int{day, local.Hour()}]++
			}
			return nil
		})
	}))
	return h
}

// demoConversationsReportsAgreeWithTheRecords: over the demo data, every
// conversations report from Bleve's facets equals the brute-force
// engine's, and the figures equal a count over the stored records.
func demoConversationsReportsAgreeWithTheRecords(t *testing.T, d *demo) {
	ctx := context.Background()
	counted := 0
	mailboxes := demoMailboxes(t, d)
	for _, r := range demoRequests(t, d) {
		want, err := reports.Conversations(ctx, d.oracle, r, nil, topNames, mailboxes)
		require.NoError(t, err)
		got, err := reports.Conversations(ctx, d.engine, r, nil, topNames, mailboxes)
		require.NoError(t, err)
		assert.Equal(t, want, got)

		viewBy, err := reports.ViewBy(r, "")
		require.NoError(t, err)
		for name, compute := range map[string]func(reports.Engine) (any, error){
			"busy":     func(e reports.Engine) (any, error) { return reports.BusyTimes(ctx, e, r) },
			"new":      func(e reports.Engine) (any, error) { return reports.NewConversations(ctx, e, r, viewBy) },
			"received": func(e reports.Engine) (any, error) { return reports.ReceivedMessages(ctx, e, r, viewBy) },
			"channels": func(e reports.Engine) (any, error) { return reports.VolumeByChannel(ctx, e, r, viewBy) },
			"drill": func(e reports.Engine) (any, error) {
				return reports.ConversationList(ctx, e, r, reports.TotalFilter(r.Current, r.Filter), search.Paging{Number: 1, Size: 1000})
			},
		} {
			want, err := compute(d.oracle)
			require.NoError(t, err)
			got, err := compute(d.engine)
			require.NoError(t, err)
			assert.Equal(t, want, got, name)
		}

		h := countByHand(t, d.db, r)
		cur := got.Current
		assert.Equal(t, []int{h.total, h.created, h.created, len(h.customers)},
			[]int{cur.TotalConversations, cur.NewConversations, cur.ConversationsCreated, cur.Customers})
		busy, err := reports.BusyTimes(ctx, d.engine, r)
		require.NoError(t, err)
		for _, cell := range busy {
			assert.Equal(t, h.busy[[2]int{cell.Day, cell.Hour}], cell.Count, "day %d hour %d", cell.Day, cell.Hour)
		}
		sum := func(s *reports.Series) (n int) {
			for _, p := range s.Current {
				n += p.Count
			}
			return n
		}
		received, err := reports.ReceivedMessages(ctx, d.engine, r, viewBy)
		require.NoError(t, err)
		assert.Equal(t, h.received, sum(received))
		created, err := reports.NewConversations(ctx, d.engine, r, viewBy)
		require.NoError(t, err)
		assert.Equal(t, h.created, sum(created))
		channels, err := reports.VolumeByChannel(ctx, d.engine, r, viewBy)
		require.NoError(t, err)
		perType := map[string]int{}
		for _, p := range channels.Current {
			perType["email"] += p.Email
			perType["chat"] += p.Chat
			perType["phone"] += p.Phone
		}
		for _, typ := range parley.ConversationTypes {
			assert.Equal(t, h.perType[typ], perType[typ], typ)
		}
		counted += h.total
	}
	assert.Greater(t, counted, 1000, "the demo's conversations are counted")
}

// demoMailboxes are the demo company's mailboxes, with their custom fields.
func demoMailboxes(t *testing.T, d *demo) []parley.Mailbox {
	t.Helper()
	var out []parley.Mailbox
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		out, err = tx.Mailboxes(1)
		return err
	}))
	return out
}

func demoConversationsOnTheDemoData(t *testing.T, d *demo) {
	r := demoRequests(t, d)[0]
	var tags []parley.Tag
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		tags, err = tx.Tags(1)
		return err
	}))
	rep, err := reports.Conversations(context.Background(), d.engine, r, tags, topNames, demoMailboxes(t, d))
	require.NoError(t, err)
	goldenReport(t, "conversations_demo", rep)
	series, err := reports.NewConversations(context.Background(), d.engine, r, "week")
	require.NoError(t, err)
	goldenReport(t, "conversations_new_demo", series)
}

func TestViewBy(t *testing.T) {
	at := func(days int) time.Time { return demoNow.Add(time.Duration(days) * 24 * time.Hour) }
	for _, tc := range []struct {
		days            int
		requested, want string
	}{
		{1, "", "day"}, {120, "", "day"}, {121, "", "week"}, {365, "", "week"}, {366, "", "month"},
		{120, "day", "day"}, {121, "day", ""}, {365, "week", "week"}, {366, "week", ""},
		{60, "month", ""}, {61, "month", "month"}, {3000, "month", "month"},
	} {
		got, err := reports.ViewBy(reports.Request{Current: reports.Period{Start: at(0), End: at(tc.days)}}, tc.requested)
		if tc.want == "" {
			assert.Error(t, err, "%d days by %s", tc.days, tc.requested)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%d days by %q", tc.days, tc.requested)
	}
}
