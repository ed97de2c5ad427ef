package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/golden"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// epoch is the fixed start of every test clock.
var epoch = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Tokens of the seeded world.
const (
	ownerToken    = "acme-owner-token"
	ownerToken2   = "acme-admin-token" // Adam, an administrator who can chat
	userToken     = "acme-user-token"  // role user, access to Support only
	globexToken   = "globex-token"
	expiredToken  = "acme-expired-token"
	inactiveToken = "acme-inactive-token"
)

// Ids of the seeded world (assigned in this order by storage sequences).
const (
	acmeID, globexID                      = 1, 2
	ownerID, adminID, agentID, inactiveID = 1, 2, 3, 4
	globexOwnerID                         = 5
	supportID, billingID, globexMailboxID = 1, 2, 3
	teamID                                = 6 // teams draw from the users' sequence
	appClientID, appSecret                = "acme-app", "acme-app-secret"
	supportWidget, billingWidget          = "acme-support-widget", "acme-billing-widget"
	globexWidget                          = "globex-widget"
)

// world is a running Parley over real storage and real search engines:
// bbolt and Bleve in a temp dir, or PostgreSQL (pgstore and pgindex) in a
// database of the test's own.
type world struct {
	t     *testing.T
	db    worldDB
	store parley.Store
	// embedded is the bbolt database, nil on PostgreSQL (see bolt);
	// pgURL is the PostgreSQL database's URL, empty on bbolt.
	embedded *storage.DB
	pgURL    string
	engine   index.Engine
	syncer   *indexer.Syncer // nil on PostgreSQL, whose writes index themselves
	// workflows runs automatic workflows in writes and fires wake-ups.
	workflows *workflow.Engine
	server    *api.Server
	clock     *testClock
	logs      *bytes.Buffer
	// fields of the Support mailbox, by name
	fields map[string]parley.FieldDef
}

// newWorld starts a world on the suite's backend (see suiteBackend).
func newWorld(t *testing.T, opts ...func(*api.Config)) *world {
	t.Helper()
	return newWorldOn(t, suiteBackend(), opts...)
}

// newWorldOn starts a world on a backend. Both wire storage, engines,
// syncer and workflows as cmd/parley does.
func newWorldOn(t *testing.T, on backend, opts ...func(*api.Config)) *world {
	t.Helper()
	return startWorld(t, on, nil, opts...)
}

// startWorld starts a world on a backend; on PostgreSQL, tracer (when not
// nil) sees every statement of the store.
func startWorld(t *testing.T, on backend, tracer pgx.QueryTracer, opts ...func(*api.Config)) *world {
	t.Helper()
	var db worldDB
	var full index.Engine
	var bolt *storage.DB
	var pgURL string
	if on == postgres {
		db, full, pgURL = openPostgres(t, tracer)
	} else {
		dir := t.TempDir()
		var err error
		bolt, err = storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
		require.NoError(t, err)
		db = bolt
		full, err = bleveindex.Open(filepath.Join(dir, "index"))
		require.NoError(t, err)
	}
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// As in production (cmd/parley): embedded, lists go to the list
	// engine, the rest to Bleve, which the syncer feeds from the outbox;
	// on PostgreSQL, each write writes its search rows and pgindex answers
	// every request.
	var engine index.Engine
	var syncer *indexer.Syncer
	if bolt == nil {
		engine = full
		close(done)
	} else {
		engine = index.Router{Full: full, Fast: lists.New()}
		syncer = indexer.NewSyncer(bolt, engine, log)
		bolt.OnCommit(syncer.Notify)
		go func() { syncer.Run(ctx); close(done) }()
	}
	w := &world{t: t, db: db, embedded: bolt, pgURL: pgURL, store: db.Store(), engine: engine, syncer: syncer, clock: &testClock{now: epoch}, logs: logs}
	// As in production (cmd/parley): automatic workflows run in writes.
	w.workflows = &workflow.Engine{Clock: w.clock}
	db.SetBeforeCommit(w.workflows.BeforeCommit)
	t.Cleanup(func() {
		cancel()
		<-done
		engine.Close()
		db.Close()
	})
	var n, ids int
	var mu sync.Mutex
	cfg := api.Config{DB: db, Engine: engine, Syncer: syncer, Clock: w.clock, Log: log,
		BaseURL: "https://api.parley.test", WebURL: "https://app.parley.test",
		NewRequestID: func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("req-%d", n) },
		NewID: func() string {
			mu.Lock()
			defer mu.Unlock()
			ids++
			return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids)
		},
		ChatPollWait: 200 * time.Millisecond}
	// Tests make many calls with one token under a fixed clock: generous
	// rate limits, unless an option (the rate-limit tests) sets others.
	cfg.RateLimits = map[parley.Plan]int{parley.PlanStandard: 1 << 30, parley.PlanPlus: 1 << 30, parley.PlanPro: 1 << 30}
	cfg.TokenRateLimit = 1 << 30
	for _, opt := range opts {
		opt(&cfg)
	}
	w.server = api.New(cfg)
	w.seed()
	return w
}

// bolt is the embedded database, for the tests that read what only
// bbolt's transactions list (every recorded event): on PostgreSQL they
// skip, saying so.
func (w *world) bolt() *storage.DB {
	w.t.Helper()
	if w.embedded == nil {
		w.t.Skip("this test reads bbolt's transactions (every recorded event): embedded backend only")
	}
	return w.embedded
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// seed stores the accounts every test starts from.
func (w *world) seed() {
	now := w.clock.Now()
	secret, err := bcrypt.GenerateFromPassword([]byte(appSecret), bcrypt.MinCost)
	require.NoError(w.t, err)
	_, err = w.store.Update(context.Background(), func(tx parley.Tx) error {
		for _, c := range []*parley.Company{
			{Name: "Acme", Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true, CreatedAt: now},
			{Name: "Globex", Plan: parley.PlanStandard, APIEnabled: true, PaymentOK: true, CreatedAt: now},
		} {
			if err := tx.PutCompany(c); err != nil {
				return err
			}
		}
		users := []*parley.User{
			{CompanyID: acmeID, FirstName: "Olivia", LastName: "Owner", Email: "olivia@acme.test", Role: parley.RoleOwner, Timezone: "Europe/Paris", Active: true, CanChat: true},
			{CompanyID: acmeID, FirstName: "Adam", LastName: "Admin", Email: "adam@acme.test", Role: parley.RoleAdmin, Timezone: "UTC", Active: true, CanChat: true},
			{CompanyID: acmeID, FirstName: "Uma", LastName: "Agent", Email: "uma@acme.test", Role: parley.RoleUser, Timezone: "UTC", Active: true, MailboxIDs: []int64{supportID}},
			{CompanyID: acmeID, FirstName: "Ian", LastName: "Invited", Email: "ian@acme.test", Role: parley.RoleLightUser, Timezone: "UTC"},
			{CompanyID: globexID, FirstName: "Gary", LastName: "Globex", Email: "gary@globex.test", Role: parley.RoleOwner, Timezone: "UTC", Active: true},
		}
		for _, u := range users {
			u.CreatedAt, u.UpdatedAt = now, now
			if err := tx.PutUser(u); err != nil {
				return err
			}
		}
		if err := tx.PutTeam(&parley.Team{CompanyID: acmeID, Name: "Tier 2", MemberIDs: []int64{adminID, agentID}, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		folders := func() []parley.Folder {
			var out []parley.Folder
			for _, t := range parley.SystemFolders {
				out = append(out, parley.Folder{Name: strings.ToUpper(string(t[:1])) + string(t[1:]), Type: t, UpdatedAt: now})
			}
			return out
		}
		boxes := []*parley.Mailbox{
			{CompanyID: acmeID, Name: "Support", Slug: "support", Email: "support@acme.test", Folders: folders(), Widgets: []string{supportWidget}, Fields: []parley.FieldDef{
				{Name: "Priority", Type: parley.FieldDropdown, Order: 1, Options: []parley.FieldOption{{Order: 1, Label: "Low"}, {Order: 2, Label: "High"}}},
				{Name: "Order number", Type: parley.FieldSingleLine, Order: 2},
				{Name: "Notes", Type: parley.FieldMultiLine, Order: 3},
				{Name: "Account value", Type: parley.FieldNumber, Order: 4},
				{Name: "Renewal date", Type: parley.FieldDate, Order: 5, Required: true},
			}},
			{CompanyID: acmeID, Name: "Billing", Slug: "billing", Email: "billing@acme.test", Folders: folders(), DefaultAssigneeID: adminID, Widgets: []string{billingWidget}},
			{CompanyID: globexID, Name: "Globex Help", Slug: "help", Email: "help@globex.test", Folders: folders(), Widgets: []string{globexWidget}},
		}
		for _, m := range boxes {
			m.CreatedAt, m.UpdatedAt = now, now
			if err := tx.PutMailbox(m); err != nil {
				return err
			}
		}
		w.fields = map[string]parley.FieldDef{}
		for _, f := range boxes[0].Fields {
			w.fields[f.Name] = f
		}
		tokens := []parley.Token{
			{Hash: parley.HashToken(ownerToken), CompanyID: acmeID, UserID: ownerID, ExpiresAt: now.Add(365 * 24 * time.Hour)},
			{Hash: parley.HashToken(userToken), CompanyID: acmeID, UserID: agentID, ExpiresAt: now.Add(365 * 24 * time.Hour)},
			{Hash: parley.HashToken(ownerToken2), CompanyID: acmeID, UserID: adminID, ExpiresAt: now.Add(365 * 24 * time.Hour)},
			{Hash: parley.HashToken(globexToken), CompanyID: globexID, UserID: globexOwnerID, ExpiresAt: now.Add(365 * 24 * time.Hour)},
			{Hash: parley.HashToken(expiredToken), CompanyID: acmeID, UserID: ownerID, ExpiresAt: now.Add(-time.Second)},
			{Hash: parley.HashToken(inactiveToken), CompanyID: acmeID, UserID: inactiveID, ExpiresAt: now.Add(365 * 24 * time.Hour)},
		}
		for i := range tokens {
			if err := tx.PutToken(&tokens[i]); err != nil {
				return err
			}
		}
		return tx.PutApp(&parley.App{ClientID: appClientID, CompanyID: acmeID, UserID: ownerID, Name: "Test app", SecretHash: string(secret), CreatedAt: now})
	})
	require.NoError(w.t, err)
}

// request is one HTTP call against the real handler.
type request struct {
	method, path, token string
	body                string
	contentType         string // default application/json when body is set
	header              map[string]string
	remoteAddr          string // the TCP peer; default httptest's 192.0.2.1:1234
}

func (w *world) do(r request) *httptest.ResponseRecorder {
	w.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, "https://api.parley.test"+r.path, body)
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.body != "" {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.remoteAddr != "" {
		req.RemoteAddr = r.remoteAddr
	}
	rec := httptest.NewRecorder()
	w.server.ServeHTTP(rec, req)
	w.checkResponse(req, rec)
	return rec
}

func (w *world) get(path string) *httptest.ResponseRecorder {
	return w.do(request{method: http.MethodGet, path: path, token: ownerToken})
}

// create posts a conversation as the owner and returns its id.
func (w *world) create(body string) int64 {
	w.t.Helper()
	rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: body})
	require.Equal(w.t, http.StatusCreated, rec.Code, rec.Body.String())
	var id int64
	_, err := fmt.Sscan(rec.Header().Get("Resource-ID"), &id)
	require.NoError(w.t, err)
	return id
}

// decode parses a JSON body.
func decode(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return out
}

// goldenJSON compares a JSON body with testdata/<name>.json, pretty-printed;
// `go test ./api -update` rewrites the files.
func goldenJSON(t *testing.T, name string, body []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	golden.Assert(t, name+".json", buf.String())
}

// goldenError compares an error body with its golden file, logRef aside.
func goldenError(t *testing.T, name string, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := decode(t, rec)
	require.Equal(t, rec.Header().Get("X-Request-ID"), body["logRef"], "logRef is the request id")
	body["logRef"] = "<logRef>"
	b, err := json.Marshal(body)
	require.NoError(t, err)
	goldenJSON(t, name, b)
}

// ids extracts the ids of an embedded list.
func ids(t *testing.T, rec *httptest.ResponseRecorder, collection string) []int64 {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := decode(t, rec)
	items := body["_embedded"].(map[string]any)[collection].([]any)
	out := []int64{}
	for _, it := range items {
		out = append(out, int64(it.(map[string]any)["id"].(float64)))
	}
	return out
}

// apiError checks that rec answers with the API's error body (JSON, logRef
// the request id, one embedded error) and returns "<status> <code>:
// <message>", with the error's own message in parentheses where it differs
// from the body's, for a whole-answer comparison.
func apiError(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	require.Equal(t, "application/json;charset=UTF-8", rec.Header().Get("Content-Type"), rec.Body.String())
	body := decode(t, rec)
	require.Equal(t, rec.Header().Get("X-Request-ID"), body["logRef"], "logRef is the request id")
	errs, ok := field(t, body, "_embedded", "errors").([]any)
	require.True(t, ok && len(errs) == 1, rec.Body.String())
	e := errs[0].(map[string]any)
	if e["message"] == body["message"] {
		return fmt.Sprintf("%d %s: %s", rec.Code, e["code"], e["message"])
	}
	return fmt.Sprintf("%d %s: %s (%s)", rec.Code, e["code"], body["message"], e["message"])
}

// indexed waits until the write that returned seq is searchable, and
// durable: the embedded syncer applied it; on PostgreSQL the write wrote
// its search rows before it committed.
func (w *world) indexed(seq uint64) {
	w.t.Helper()
	if w.syncer == nil {
		return
	}
	require.True(w.t, w.syncer.Wait(context.Background(), seq, time.Minute))
	w.syncer.Settle()
}
