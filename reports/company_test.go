package reports_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/search"
	"github.com/parley/parley/storage"
)

// demoCompanyAgreesWithTheRecords: over the demo data with ratings, the
// company reports and drill-downs from Bleve equal the brute-force
// engine's, and the figures a count over the stored records.
func demoCompanyAgreesWithTheRecords(t *testing.T, d *demo) {
	ctx := context.Background()
	var users []parley.User
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		users, err = tx.Users(1)
		return err
	}))
	replies := 0
	for i, r := range demoRequests(t, d) {
		want, err := reports.Company(ctx, d.oracle, r, users, nil)
		require.NoError(t, err)
		got, err := reports.Company(ctx, d.engine, r, users, nil)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		viewBy, err := reports.ViewBy(r, "")
		require.NoError(t, err)
		wantHelped, err := reports.CustomersHelped(ctx, d.oracle, r, viewBy)
		require.NoError(t, err)
		gotHelped, err := reports.CustomersHelped(ctx, d.engine, r, viewBy)
		require.NoError(t, err)
		assert.Equal(t, wantHelped, gotHelped)
		for name, ids := range map[string]int{"replies": 5, "firstReplyResolved": 1, "resolved": 1, "responseTime": 10, "firstResponseTime": 10, "resolutionTime": 10} {
			for id := 1; id <= ids && i < 3; id++ { // the drill-downs over the first requests
				filter, err := reports.CompanyDrillFilter(r, name, id)
				require.NoError(t, err)
				want, err := reports.ConversationList(ctx, d.oracle, r, filter, search.Paging{Number: 1, Size: 1000})
				require.NoError(t, err)
				got, err := reports.ConversationList(ctx, d.engine, r, filter, search.Paging{Number: 1, Size: 1000})
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s %d", name, id)
			}
		}

		// By hand.
		customers, byUser := map[int64]bool{}, map[int64]int{}
		total, closed, resolved := 0, 0, 0
		eachMatching(t, d.db, r, func(c *parley.Conversation, threads []parley.Thread) {
			n := 0
			for _, th := range threads {
				if th.Type == parley.ThreadMessage && th.State == parley.ThreadPublished && th.CreatedBy.Type == parley.PartyUser {
					n++
					if in(r.Current, th.CreatedAt) {
						total++
						byUser[th.CreatedBy.ID]++
						if c.CustomerID != 0 {
							customers[c.CustomerID] = true
						}
					}
				}
			}
			if c.Status == parley.StatusClosed && c.ClosedAt != nil && in(r.Current, *c.ClosedAt) {
				closed++
				if c.ClosedBy != 0 && n > 0 {
					resolved++
				}
			}
		})
		cur := got.Current
		assert.Equal(t, []int{len(customers), total, len(byUser), closed, resolved},
			[]int{cur.CustomersHelped, cur.TotalReplies, cur.TotalUsers, cur.Closed, cur.Resolved})
		days := math.Ceil(r.Current.End.Sub(r.Current.Start).Hours() / 24)
		assert.InDelta(t, float64(resolved)/days, cur.ResolvedPerDay, 1e-9)
		if len(byUser) > 0 {
			require.NotNil(t, cur.RepliesPerDayPerUser)
			assert.InDelta(t, float64(total)/days/float64(len(byUser)), *cur.RepliesPerDayPerUser, 1e-9)
		} else {
			assert.Nil(t, cur.RepliesPerDayPerUser)
		}
		for _, u := range got.Users {
			assert.Equal(t, byUser[u.ID], u.Current.Replies, "user %d", u.ID)
		}
		replies += total
	}
	assert.Greater(t, replies, 1000)
}

func demoCompanyOnTheDemoData(t *testing.T, d *demo) {
	var users []parley.User
	require.NoError(t, d.db.View(func(tx *storage.Tx) (err error) {
		users, err = tx.Users(1)
		return err
	}))
	rep, err := reports.Company(context.Background(), d.engine, demoRequests(t, d)[0], users, nil)
	require.NoError(t, err)
	goldenReport(t, "company_demo", rep)
}
