package reports_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// productivityByHand recomputes the productivity figures of a request
// from the stored records, without the domain's figures.
type productivityByHand struct {
	replies, resolved, closed, firstReply int
	conversations                         map[int64]bool
	responses, firsts, resolutions        []float64
	repliesToResolve, handles             []float64
}

func countProductivity(t *testing.T, db *storage.DB, r reports.Request) productivityByHand {
	h := productivityByHand{conversations: map[int64]bool{}}
	eachMatching(t, db, r, func(c *parley.Conversation, threads []parley.Thread) {
		sort.SliceStable(threads, func(i, j int) bool {
			if !threads[i].CreatedAt.Equal(threads[j].CreatedAt) {
				return threads[i].CreatedAt.Before(threads[j].CreatedAt)
			}
			return threads[i].ID < threads[j].ID
		})
		var waiting *time.Time
		replies, sawCustomer, firstDone := 0, false, false
		for _, th := range threads {
			if th.State != parley.ThreadPublished {
				continue
			}
			at := th.CreatedAt
			if th.Type.IsCustomerKind() && th.CreatedBy.Type == parley.PartyCustomer {
				sawCustomer = true
				if waiting == nil {
					waiting = &at
				}
				continue
			}
			if th.Type != parley.ThreadMessage || th.CreatedBy.Type != parley.PartyUser {
				continue
			}
			replies++
			if in(r.Current, at) {
				h.replies++
				h.conversations[c.ID] = true
				if waiting != nil {
					h.responses = append(h.responses, at.Sub(*waiting).Seconds())
				}
				if th.DraftedAt != nil && th.SentAt != nil {
					h.handles = append(h.handles, th.SentAt.Sub(*th.DraftedAt).Seconds())
				}
			}
			if sawCustomer && !firstDone {
				firstDone = true
				if in(r.Current, at) {
					h.firsts = append(h.firsts, at.Sub(*waiting).Seconds())
				}
			}
			waiting = nil
		}
		if c.Status == parley.StatusClosed && c.ClosedAt != nil && in(r.Current, *c.ClosedAt) {
			h.closed++
			if c.ClosedBy != 0 && replies > 0 {
				h.resolved++
				h.resolutions = append(h.resolutions, c.ClosedAt.Sub(c.CreatedAt).Seconds())
				h.repliesToResolve = append(h.repliesToResolve, float64(replies))
				if replies == 1 {
					h.firstReply++
				}
			}
		}
	})
	return h
}

func mean(t *testing.T, want []float64, got *float64) {
	t.Helper()
	if len(want) == 0 {
		assert.Nil(t, got)
		return
	}
	sum := 0.0
	for _, v := range want {
		sum += v
	}
	require.NotNil(t, got)
	assert.InDelta(t, sum/float64(len(want)), *got, 1e-6)
}

// demoProductivityAgreesWithTheRecords: over the demo data, the
// productivity reports from Bleve's facets equal the brute-force engine's,
// and a recomputation over the stored records.
func demoProductivityAgreesWithTheRecords(t *testing.T, d *demo) {
	ctx := context.Background()
	replies := 0
	for _, r := range demoRequests(t, d) {
		want, err := reports.Productivity(ctx, d.oracle, r, nil)
		require.NoError(t, err)
		got, err := reports.Productivity(ctx, d.engine, r, nil)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		viewBy, err := reports.ViewBy(r, "")
		require.NoError(t, err)
		for name, compute := range map[string]func(reports.Engine) (any, error){
			"first":      func(e reports.Engine) (any, error) { return reports.FirstResponseTimes(ctx, e, r, viewBy) },
			"response":   func(e reports.Engine) (any, error) { return reports.ResponseTimes(ctx, e, r, viewBy) },
			"resolution": func(e reports.Engine) (any, error) { return reports.ResolutionTimes(ctx, e, r, viewBy) },
			"replies":    func(e reports.Engine) (any, error) { return reports.RepliesSent(ctx, e, r, viewBy) },
			"resolved":   func(e reports.Engine) (any, error) { return reports.ResolvedSeries(ctx, e, r, viewBy) },
		} {
			want, err := compute(d.oracle)
			require.NoError(t, err)
			got, err := compute(d.engine)
			require.NoError(t, err)
			assert.Equal(t, want, got, name)
		}

		h := countProductivity(t, d.db, r)
		cur := got.Current
		assert.Equal(t, []int{h.replies, len(h.conversations), h.resolved, h.firstReply, h.closed},
			[]int{cur.RepliesSent, cur.TotalConversations, cur.Resolved, cur.ResolvedOnFirstReply, cur.Closed})
		mean(t, h.responses, cur.ResponseTime)
		mean(t, h.firsts, cur.FirstResponseTime)
		mean(t, h.resolutions, cur.ResolutionTime)
		mean(t, h.repliesToResolve, cur.RepliesToResolve)
		mean(t, h.handles, cur.HandleTime)
		assert.Equal(t, len(h.responses), got.ResponseTime.Count)
		replies += h.replies
	}
	assert.Greater(t, replies, 1000, "the demo's replies are counted")
}

func demoProductivityOnTheDemoData(t *testing.T, d *demo) {
	rep, err := reports.Productivity(context.Background(), d.engine, demoRequests(t, d)[0], nil)
	require.NoError(t, err)
	goldenReport(t, "productivity_demo", rep)
}
