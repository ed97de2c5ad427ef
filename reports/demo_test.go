package reports_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/golden"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// demoNow is when the demo data is loaded.
var demoNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// demo is the demo data, with whatever extra changes, indexed by Bleve and
// by the brute-force engine.
type demo struct {
	db            *storage.DB
	bleve, oracle reports.Engine
}

func loadDemo(t *testing.T, extra func(tx *storage.Tx) error) *demo {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db, demoNow))
	if extra != nil {
		_, err = db.Update(extra)
		require.NoError(t, err)
	}
	b, err := bleveindex.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	oracle := scan.New()
	for _, e := range []index.Engine{b, oracle} {
		require.NoError(t, index.NewSyncer(db, e, slog.New(slog.NewTextHandler(io.Discard, nil))).Rebuild(context.Background(), nil))
	}
	return &demo{db: db, bleve: b, oracle: oracle}
}

// rateDemoReplies has the demo's customers rate most of the first
// company's replies, great, okay or not good in turn, some time after each
// reply: the demo itself holds one rating.
func rateDemoReplies(tx *storage.Tx) error {
	company, err := tx.Company(1)
	if err != nil {
		return err
	}
	users, err := tx.Users(1)
	if err != nil {
		return err
	}
	owner := parley.Caller{Company: company, User: &users[0]}
	turn := []string{"great", "okay", "not-good", "great", ""}
	k := 0
	var ids []int64
	if err := tx.EachConversationID(func(id int64) { ids = append(ids, id) }); err != nil {
		return err
	}
	for _, id := range ids {
		c, err := tx.ConversationByID(id)
		if err != nil || c.CompanyID != 1 || c.State != parley.StatePublished {
			continue
		}
		threads, err := tx.Threads(id)
		if err != nil {
			return err
		}
		for _, t := range threads {
			if t.Type != parley.ThreadMessage || t.State != parley.ThreadPublished {
				continue
			}
			k++
			rating := turn[k%len(turn)]
			at := t.CreatedAt.Add(time.Duration(k%40) * time.Hour)
			if rating == "" || at.After(demoNow) {
				continue
			}
			// Some conversations refuse (merged away, locked): they keep no rating.
			_ = parley.RateThread(tx, owner, id, t.ID, &parley.RatingInput{Rating: &rating}, at)
		}
	}
	return nil
}

// goldenReport compares a report with its golden file.
func goldenReport(t *testing.T, name string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	golden.Assert(t, name+".json", string(b)+"\n")
}

// TestReportsOverTheDemoData loads the demo data with ratings once, and
// checks every report over it: goldens, Bleve against the brute-force
// engine, and by-hand counts over the records.
func TestReportsOverTheDemoData(t *testing.T) {
	d := loadDemo(t, rateDemoReplies)
	t.Run("CompanyAgreesWithTheRecords", func(t *testing.T) { demoCompanyAgreesWithTheRecords(t, d) })
	t.Run("CompanyOnTheDemoData", func(t *testing.T) { demoCompanyOnTheDemoData(t, d) })
	t.Run("ConversationsOnTheDemoData", func(t *testing.T) { demoConversationsOnTheDemoData(t, d) })
	t.Run("ConversationsReportsAgreeWithTheRecords", func(t *testing.T) { demoConversationsReportsAgreeWithTheRecords(t, d) })
	t.Run("EmailAgreesWithTheRecords", func(t *testing.T) { demoEmailAgreesWithTheRecords(t, d) })
	t.Run("EmailOnTheDemoData", func(t *testing.T) { demoEmailOnTheDemoData(t, d) })
	t.Run("HappinessAgreesWithTheRecords", func(t *testing.T) { demoHappinessAgreesWithTheRecords(t, d) })
	t.Run("HappinessOnTheDemoData", func(t *testing.T) { demoHappinessOnTheDemoData(t, d) })
	t.Run("ProductivityAgreesWithTheRecords", func(t *testing.T) { demoProductivityAgreesWithTheRecords(t, d) })
	t.Run("ProductivityOnTheDemoData", func(t *testing.T) { demoProductivityOnTheDemoData(t, d) })
	t.Run("ReportsOnFixtures", func(t *testing.T) { demoReportsOnFixtures(t, d) })
}
