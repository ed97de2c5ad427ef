package reports_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
)

// demoRequests are report requests over the demo data: periods, a previous
// period, and each filter.
func demoRequests(t *testing.T, d *demo) []reports.Request {
	var tags []parley.Tag
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		tags, err = tx.Tags(1)
		return err
	}))
	month := reports.Period{Start: demoNow.Add(-30 * 24 * time.Hour), End: demoNow}
	before := reports.Period{Start: demoNow.Add(-60 * 24 * time.Hour), End: month.Start}
	year := reports.Period{Start: demoNow.Add(-365 * 24 * time.Hour), End: demoNow}
	return []reports.Request{
		{Company: 1, Current: month, Previous: &before},
		{Company: 1, Current: year},
		{Company: 1, Current: year, Filter: reports.Filter{Mailboxes: []int64{1}}},
		{Company: 1, Current: year, Filter: reports.Filter{Tags: tags[:3]}},
		{Company: 1, Current: year, Filter: reports.Filter{Types: []string{"email", "phone"}}},
		{Company: 1, Current: year, Filter: reports.Filter{Folders: []int64{1, 2, 3}}},
		{Company: 2, Current: year},
	}
}

// matches reports whether a conversation passes a report filter, by hand.
func matches(tx *storage.Tx, c *parley.Conversation, f reports.Filter) bool {
	if len(f.Mailboxes) > 0 && !slices.Contains(f.Mailboxes, c.MailboxID) {
		return false
	}
	if len(f.Folders) > 0 && !slices.Contains(f.Folders, c.FolderID) {
		return false
	}
	if len(f.Types) > 0 && !slices.Contains(f.Types, string(c.Type)) {
		return false
	}
	if len(f.Tags) == 0 {
		return true
	}
	for _, want := range f.Tags {
		if slices.Contains(c.TagIDs, want.ID) {
			return true
		}
	}
	return false
}

func in(p reports.Period, t time.Time) bool { return !t.Before(p.Start) && t.Before(p.End) }

// demoHappinessAgreesWithTheRecords: over the demo data with ratings, the
// happiness report from Bleve's facets equals the brute-force engine's,
// and both equal a count over the stored records.
func demoHappinessAgreesWithTheRecords(t *testing.T, d *demo) {
	rated := 0
	for _, r := range demoRequests(t, d) {
		want, err := reports.Happiness(context.Background(), d.oracle, r)
		require.NoError(t, err)
		got, err := reports.Happiness(context.Background(), d.engine, r)
		require.NoError(t, err)
		assert.Equal(t, want, got)

		// By hand: the ratings given in the period, their customers, and
		// the customers of the replies sent in it.
		counts := map[string]int{}
		raters, helped := map[int64]bool{}, map[int64]bool{}
		eachMatching(t, d.db, r, func(c *parley.Conversation, threads []parley.Thread) {
			for _, th := range threads {
				if th.Type != parley.ThreadMessage || th.State != parley.ThreadPublished || th.CreatedBy.Type != parley.PartyUser {
					continue
				}
				if in(r.Current, th.CreatedAt) && c.CustomerID != 0 {
					helped[c.CustomerID] = true
				}
				if th.Rating != nil && in(r.Current, th.Rating.CreatedAt) {
					counts[th.Rating.Rating]++
					raters[th.Rating.CustomerID] = true
				}
			}
		})
		total := counts["great"] + counts["okay"] + counts["not-good"]
		cur := got.Current
		assert.Equal(t, []int{total, counts["great"], counts["okay"], counts["not-good"], len(raters)},
			[]int{cur.RatingsCount, cur.GreatCount, cur.OkayCount, cur.NotGoodCount, cur.TotalCustomersWithRatings})
		if total > 0 {
			require.NotNil(t, cur.HappinessScore)
			assert.InDelta(t, float64(counts["great"]-counts["not-good"])/float64(total)*100, *cur.HappinessScore, 1e-9)
		} else {
			assert.Nil(t, cur.HappinessScore)
		}
		// The period's customers: those helped and those who rated.
		for id := range raters {
			helped[id] = true
		}
		assert.Equal(t, len(helped), cur.TotalCustomers)
		if len(helped) > 0 {
			require.NotNil(t, cur.RatingsPercent)
			assert.InDelta(t, float64(len(raters))/float64(len(helped))*100, *cur.RatingsPercent, 1e-9)
		}
		rated += total
	}
	assert.Greater(t, rated, 100, "the demo's ratings are counted")
}

func demoHappinessOnTheDemoData(t *testing.T, d *demo) {
	r := demoRequests(t, d)[0]
	rep, err := reports.Happiness(context.Background(), d.engine, r)
	require.NoError(t, err)
	goldenReport(t, "happiness_demo", rep)

	// The ratings list holds what the report counts, in the order asked.
	res, err := reports.RatingsList(context.Background(), d.engine, r, "not-good", "number", false, search.Paging{Number: 1, Size: 1000})
	require.NoError(t, err)
	assert.Equal(t, rep.Current.NotGoodCount, res.Total)
	want, err := reports.RatingsList(context.Background(), d.oracle, r, "not-good", "number", false, search.Paging{Number: 1, Size: 1000})
	require.NoError(t, err)
	assert.Equal(t, want, res)
}

// eachMatching calls fn with every stored conversation (and its threads)
// that a request's company and filter select, deleted ones aside.
func eachMatching(t *testing.T, db *storage.DB, r reports.Request, fn func(c *parley.Conversation, threads []parley.Thread)) {
	t.Helper()
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID != r.Company || c.State == parley.StateDeleted || !matches(tx, c, r.Filter) {
				return nil
			}
			threads, err := tx.Threads(c.CompanyID, c.ID)
			if err == nil {
				fn(c, threads)
			}
			return err
		})
	}))
}
