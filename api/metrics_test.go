package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/storage"
)

func TestMetricsAndReadiness(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *api.Config) { c.AdminToken = "op-secret" })
	w.create(`{"subject":"Metrics","type":"email","mailboxId":1,"status":"active","customer":{"email":"m@example.com"},"threads":[{"type":"customer","text":"hi"}]}`)
	w.get("/v2/conversations?status=all")
	w.server.Metrics().WebhookDelivery(api.WebhookDelivered)

	for _, token := range []string{"", ownerToken, "op-wrong"} {
		rec := w.do(request{method: http.MethodGet, path: "/metrics", token: token})
		require.Equal(t, http.StatusUnauthorized, rec.Code, "metrics span every company: the operator's alone")
	}
	rec := w.do(request{method: http.MethodGet, path: "/metrics", token: "op-secret"})
	require.Equal(t, http.StatusOK, rec.Code)
	body := rec.Body.String()
	wants := []string{
		`parley_http_requests_total{method="GET",route="/v2/conversations",status="200"} 1`,
		`parley_http_requests_total{method="POST",route="/v2/conversations",status="201"} 1`,
		`parley_http_request_duration_seconds_bucket{method="GET",route="/v2/conversations"`,
		`parley_webhook_deliveries_total{outcome="delivered"} 1`,
		`parley_index_outbox_depth `,
		`parley_bbolt_transaction_duration_seconds_count{type="write"}`,
		`go_goroutines`,
	}
	if w.syncer != nil {
		// Embedded, a syncer applies index batches; on PostgreSQL each
		// write writes its search rows, within the write's own time.
		wants = append(wants, `parley_index_batch_documents_bucket{kind="conversation"`,
			`parley_index_batch_duration_seconds_count{kind="conversation"}`)
	}
	for _, want := range wants {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, ownerToken)

	rec = w.do(request{method: http.MethodGet, path: "/readyz"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "ready", decode(t, rec)["status"])

	// The request log line: method, route, status, duration, company, request id; never the token.
	logs := w.logs.String()
	assert.Contains(t, logs, `msg=request method=GET route=/v2/conversations status=200`)
	assert.Contains(t, logs, "company_id=1")
	assert.NotContains(t, logs, ownerToken)
}

func TestRateLimitRejectionsCounted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *api.Config) {
		c.RateLimits = map[parley.Plan]int{parley.PlanPro: 1}
		c.AdminToken = "op-secret"
	})
	w.get("/v2/users/me")
	rec := w.get("/v2/users/me")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	metrics := w.do(request{method: http.MethodGet, path: "/metrics", token: "op-secret"}).Body.String()
	assert.Contains(t, metrics, `parley_rate_limit_rejections_total{route="/v2/users/:userId"} 1`)
}

func TestBackupEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		admin  string
		token  string
		status int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"a user", "", userToken, http.StatusForbidden},
		{"an owner of one company among several", "", ownerToken, http.StatusForbidden},
		{"a wrong operator token", "op-secret", "op-wrong", http.StatusUnauthorized},
		{"the operator", "op-secret", "op-secret", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The copy is bbolt's file; PostgreSQL's is pg_dump's (below).
			w := newWorldOn(t, embedded, func(c *api.Config) { c.AdminToken = tt.admin })
			rec := w.do(request{method: http.MethodGet, path: "/admin/backup", token: tt.token})
			require.Equal(t, tt.status, rec.Code, rec.Body.String())
			if tt.status != http.StatusOK {
				return
			}
			path := filepath.Join(t.TempDir(), "backup.db")
			require.NoError(t, os.WriteFile(path, rec.Body.Bytes(), 0o600))
			db, err := storage.Open(path, storage.Options{})
			require.NoError(t, err)
			defer db.Close()
			require.NoError(t, db.View(func(tx *storage.Tx) error {
				companies, err := tx.Companies()
				assert.Len(t, companies, 2)
				return err
			}))
		})
	}
}

// TestBackupEndpointOnPostgres: a server on PostgreSQL has no file to
// stream; the operator is told to use pg_dump.
func TestBackupEndpointOnPostgres(t *testing.T) {
	w := newWorldOn(t, postgres, func(c *api.Config) { c.AdminToken = "op-secret" })
	rec := w.do(request{method: http.MethodGet, path: "/admin/backup", token: "op-secret"})
	assert.Equal(t, "422 Value not supported: this server runs on PostgreSQL: back it up with pg_dump, not through Parley", apiError(t, rec))
	rec = w.do(request{method: http.MethodGet, path: "/admin/backup", token: userToken})
	assert.Equal(t, http.StatusForbidden, rec.Code, "who may not back up learns nothing of the backend")
}
