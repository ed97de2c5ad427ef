package reports_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/enginetest"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/internal/golden"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/reports"
	"github.com/parley/parley/storage"
)

// demoNow is when the demo data is loaded.
// TestMain stops the PostgreSQL server the postgres case starts.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var demoNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// demo is the demo data, with whatever extra changes, indexed by one engine
// of enginetest.Cases and by the brute-force engine.
type demo struct {
	db             *storage.DB
	engine, oracle reports.Engine
}

func loadDemo(t *testing.T, engine reports.Engine, extra func(tx *storage.Tx) error) *demo {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db.Store(), demoNow))
	if extra != nil {
		_, err = db.Update(extra)
		require.NoError(t, err)
	}
	oracle := scan.New()
	for _, e := range []index.Engine{engine, oracle} {
		enginetest.Fill(t, db, e)
	}
	return &demo{db: db, engine: engine, oracle: oracle}
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
	if err := tx.EachConversationID(func(_, id int64) { ids = append(ids, id) }); err != nil {
		return err
	}
	for _, id := range ids {
		c, err := tx.ConversationByID(id)
		if err != nil || c.CompanyID != 1 || c.State != parley.StatePublished {
			continue
		}
		threads, err := tx.Threads(c.CompanyID, id)
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

// TestReportsOverTheDemoData loads the demo data with ratings once per
// engine, and checks every report over it: goldens, the engine against the
// brute-force engine, and by-hand counts over the records.
func TestReportsOverTheDemoData(t *testing.T) {
	for _, c := range enginetest.Cases {
		t.Run(c.Name, func(t *testing.T) { reportsOverTheDemoData(t, loadDemo(t, c.Open(t), rateDemoReplies)) })
	}
}

func reportsOverTheDemoData(t *testing.T, d *demo) {
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
	t.Run("TeamSumsItsMembers", func(t *testing.T) { demoTeamSumsItsMembers(t, d) })
	t.Run("UserOnTheDemoData", func(t *testing.T) { demoUserOnTheDemoData(t, d) })
	t.Run("UserReportsAgreeWithTheRecords", func(t *testing.T) { demoUserReportsAgreeWithTheRecords(t, d) })
}
