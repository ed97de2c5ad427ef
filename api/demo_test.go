package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
)

// demoNow is when the demo data is loaded.
var demoNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// demoServer serves the demo data (bbolt and Bleve, indexed) at demoNow;
// token authenticates as the owner of the first company.
func demoServer(tb testing.TB, token string) *api.Server {
	tb.Helper()
	dir := tb.TempDir()
	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	require.NoError(tb, fixtures.Load(db.Store(), demoNow))
	engine, err := bleveindex.Open(filepath.Join(dir, "index"))
	require.NoError(tb, err)
	tb.Cleanup(func() { engine.Close() })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	syncer := indexer.NewSyncer(db, engine, quiet)
	db.OnCommit(syncer.Notify)
	require.NoError(tb, syncer.Rebuild(context.Background(), nil))
	_, err = db.Update(func(tx *storage.Tx) error {
		return tx.PutToken(&parley.Token{Hash: parley.HashToken(token), CompanyID: 1, UserID: 1, ExpiresAt: demoNow.Add(24 * time.Hour)})
	})
	require.NoError(tb, err)
	return api.New(api.Config{DB: db, Engine: engine, Syncer: syncer, Clock: parley.ClockFunc(func() time.Time { return demoNow }),
		Log: quiet, WriteWait: time.Second, RateLimits: map[parley.Plan]int{parley.PlanPro: 1 << 30}, TokenRateLimit: 1 << 30,
		ChatStartsPerMinute: 1 << 30})
}

// TestDemoWorkflowsAndViews pins the demo's workflows and views as the API
// lists them, and the first mailbox's folders with its views and their
// live counts.
func TestDemoWorkflowsAndViews(t *testing.T) {
	server := demoServer(t, "demo-token")
	for _, tc := range []struct{ path, golden string }{
		{"/v2/workflows", "demo/workflows"},
		{"/v2/views", "demo/views"},
		{"/v2/mailboxes/1/folders", "demo/folders"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "https://api.parley.test"+tc.path, nil)
			req.Header.Set("Authorization", "Bearer demo-token")
			rec := httptest.NewRecorder()
			server.ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			goldenJSON(t, tc.golden, rec.Body.Bytes())
		})
	}
}
