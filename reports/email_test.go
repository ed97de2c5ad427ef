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
		want, err := reports.Email(ctx, d.oracle, r)
		require.NoError(t, err)
		got, err := reports.Email(ctx, d.engine, r)
		require.NoError(t, err)
		assert.Equal(t, want, got)

		email := r
		email.Filter.Types = []string{"email"}
		h, p := countByHand(t, d.db, email), countProductivity(t, d.db, email)
		v := got.Current.Volume
		assert.Equal(t, []int{h.total, h.created, h.received, p.replies}, []int{v.EmailConversations, v.NewConversations, v.MessagesReceived, v.RepliesSent})
		mean(t, p.responses, got.Current.Responses.ResponseTime)
		mean(t, p.firsts, got.Current.Responses.FirstResponseTime)
		assert.Equal(t, p.resolved, got.Current.Resolutions.Resolved)
	}
}

func demoEmailOnTheDemoData(t *testing.T, d *demo) {
	rep, err := reports.Email(context.Background(), d.engine, demoRequests(t, d)[0])
	require.NoError(t, err)
	goldenReport(t, "email_demo", rep)
}
