package reports_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// TestMain stops the PostgreSQL server the postgres case starts.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// engineCases are the engines whose facets are held to the brute-force
// engine's; open returns one empty, closed when the test ends.
var engineCases = []struct {
	name string
	open func(t *testing.T) reports.Engine
}{
	{"bleve", func(t *testing.T) reports.Engine {
		b, err := bleveindex.Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		return b
	}},
	{"postgres", func(t *testing.T) reports.Engine {
		rec := &pgtest.Recorder{}
		e, err := pgindex.Open(context.Background(), pgtest.Database(t), pgindex.Options{Tracer: rec})
		require.NoError(t, err)
		t.Cleanup(func() {
			e.Close()
			rec.AssertTenant(t, pgindex.Tables, pgindex.AnyCompany, 1)
		})
		return e
	}},
}

// TestReportsOnFixtures: over the demo data, both reports computed from
// each engine's facets equal the same reports computed by the brute-force
// engine, for several periods and filters.
func TestReportsOnFixtures(t *testing.T) {
	for _, c := range engineCases {
		t.Run(c.name, func(t *testing.T) { reportsOnFixtures(t, c.open(t)) })
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
		require.NoError(t, index.NewSyncer(db, e, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(context.Background(), nil))
		if pg, ok := e.(*pgindex.Engine); ok {
			require.NoError(t, pg.Analyze(context.Background()))
		}
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
