package reports_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// demoReportsOnFixtures: over the demo data, both reports computed from
// Bleve's facets equal the same reports computed by the brute-force
// engine, for several periods and filters.
func demoReportsOnFixtures(t *testing.T, d *demo) {
	now := demoNow
	db, b, oracle := d.db, d.engine, d.oracle
	var users []parley.User
	var tags []parley.Tag
	require.NoError(t, db.View(func(tx *storage.Tx) (err error) {
		if users, err = tx.Users(1); err != nil {
			return err
		}
		tags, err = tx.Tags(1)
		return err
	}))
	month := reports.Period{Start: now.Add(-30 * 24 * time.Hour), End: now}
	before := reports.Period{Start: now.Add(-60 * 24 * time.Hour), End: month.Start}
	year := reports.Period{Start: now.Add(-365 * 24 * time.Hour), End: now}
	requests := []reports.Request{
		{Company: 1, Current: month, Previous: &before},
		{Company: 1, Current: year},
		{Company: 1, Current: month, Filter: reports.Filter{Mailboxes: []int64{1}}},
		{Company: 1, Current: year, Filter: reports.Filter{Tags: tags[:3]}},
		{Company: 2, Current: year},
	}
	chats := 0.0
	for _, r := range requests {
		want, err := reports.Chat(context.Background(), oracle, r)
		require.NoError(t, err)
		got, err := reports.Chat(context.Background(), b, r)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		chats += got.Current.Volume.ChatConversations
		wantPhone, err := reports.Phone(context.Background(), oracle, r, users)
		require.NoError(t, err)
		gotPhone, err := reports.Phone(context.Background(), b, r, users)
		require.NoError(t, err)
		assert.Equal(t, wantPhone, gotPhone)
	}
	assert.Greater(t, chats, 50.0, "the fixtures' chats are counted")
}
