package reports_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/enginetest"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// TestMain stops the PostgreSQL server the postgres case starts.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestReportsOnFixtures: over the demo data, both reports computed from
// each engine's facets equal the same reports computed by the brute-force
// engine, for several periods and filters.
func TestReportsOnFixtures(t *testing.T) {
	for _, c := range enginetest.Cases {
		t.Run(c.Name, func(t *testing.T) { reportsOnFixtures(t, c.Open(t)) })
	}
}

func reportsOnFixtures(t *testing.T, b reports.Engine) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, fixtures.Load(db, now))
	oracle := scan.New()
	for _, e := range []index.Engine{b, oracle} {
		enginetest.Fill(t, db, e)
	}
	var users []parley.User
	var tags []parley.Tag
	require.NoError(t, db.View(func(tx *storage.Tx) error {
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
