package reports_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/reports"
)

// demoEmailAgreesWithTheRecords: the e-mail report from Bleve equals the
// brute-force engine's, and its figures the by-hand counts over the
// e-mail conversations.
func demoEmailAgreesWithTheRecords(t *testing.T, d *demo) {
	ctx := context.Background()
	for _, r := range demoRequests(t, d)[:4] {
		want, err := reports.Email(ctx, d.oracle, r, nil)
		require.NoError(t, err)
		got, err := reports.Email(ctx, d.engine, r, nil)
		require.NoError(t, err)
		assert.Equal(t, want, got)

		email := r
		email.Filter.Types = []string{"email"}
		h, p := countByHand(t, d.db, email), countProductivity(t, d.db, email)
		v, res := got.Current.Volume, got.Current.Resolutions
		assert.Equal(t, []int{h.total, h.created, h.created, h.received, p.replies},
			[]int{v.EmailConversations, v.EmailsCreated, v.NewConversations, v.MessagesReceived, v.RepliesSent})
		mean(t, p.responses, got.Current.Responses.ResponseTime)
		mean(t, p.firsts, got.Current.Responses.FirstResponseTime)
		mean(t, p.handles, res.HandleTime)
		assert.Equal(t, []int{p.resolved, p.firstReply, p.closed}, []int{res.Resolved, res.ResolvedOnFirstReply, res.Closed})
		if p.resolved > 0 {
			require.NotNil(t, res.PercentResolvedOnFirstReply)
			assert.InDelta(t, float64(p.firstReply)/float64(p.resolved)*100, *res.PercentResolvedOnFirstReply, 1e-9)
		}
		assert.Equal(t, len(p.handles), got.HandleTime.Count)
	}
}

func demoEmailOnTheDemoData(t *testing.T, d *demo) {
	rep, err := reports.Email(context.Background(), d.engine, demoRequests(t, d)[0], nil)
	require.NoError(t, err)
	goldenReport(t, "email_demo", rep)
}
