// Package browsertest drives Parley's web pages (the reports dashboard,
// the agents' inbox) in headless Chromium for their tests: one browser
// per test binary, Parley's real handler over the demo data with a fixed
// clock, and helpers to wait on and read the page.
package browsertest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/internal/headless"
	"github.com/parley/parley/storage"
)

// DemoNow is the fixed clock of the server: the demo data spreads over the
// year before it.
var DemoNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// StartBrowser starts one headless Chromium and returns a context for new
// tabs. Where Chromium is not installed the test skips, except under CI,
// where it fails.
func StartBrowser(t *testing.T) context.Context {
	t.Helper()
	path := headless.Chromium()
	if path == "" {
		if headless.Required() {
			t.Fatal("Chromium is not installed (CI=true requires it): apt-get install -y chromium")
		}
		t.Skip("Chromium is not installed; apt-get install -y chromium to run the browser tests")
	}
	browser, stop, err := headless.Start(path, t.TempDir())
	require.NoError(t, err)
	t.Cleanup(stop)
	return browser
}

// Parley is Parley's real handler over the demo data, behind an httptest
// server, with a fixed clock.
type Parley struct {
	*httptest.Server
	Token string // Acme's owner's, by client credentials: the user who signs in
}

func StartParley(t *testing.T) *Parley {
	t.Helper()
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	require.NoError(t, fixtures.Load(db.Store(), DemoNow))
	full, err := bleveindex.Open(filepath.Join(dir, "index"))
	require.NoError(t, err)
	engine := index.Router{Full: full, Fast: lists.New()}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	syncer := indexer.NewSyncer(db, engine, quiet)
	db.OnCommit(syncer.Notify)
	require.NoError(t, syncer.Rebuild(context.Background(), nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { syncer.Run(ctx); close(done) }()
	server := api.New(api.Config{DB: db, Engine: engine, Syncer: syncer, Log: quiet,
		Clock:      parley.ClockFunc(func() time.Time { return DemoNow }),
		RateLimits: map[parley.Plan]int{parley.PlanPro: 1 << 20}, TokenRateLimit: 1 << 20})
	ts := httptest.NewServer(server)
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-done
		engine.Close()
		db.Close()
	})
	return &Parley{Server: ts, Token: ClientToken(t, ts.URL, fixtures.AcmeClientID, fixtures.AcmeClientSecret)}
}

// ClientToken is an access token of a client's, by client credentials.
func ClientToken(t *testing.T, baseURL, clientID, secret string) string {
	t.Helper()
	res, err := http.PostForm(baseURL+"/v2/oauth2/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {clientID}, "client_secret": {secret}})
	require.NoError(t, err)
	defer res.Body.Close()
	var issued struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&issued))
	require.NotEmpty(t, issued.AccessToken)
	return issued.AccessToken
}

// Fetch calls the API directly, as the signed-in user.
func (p *Parley) Fetch(t *testing.T, path string, params url.Values) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.URL+path+"?"+params.Encode(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, body
}

// Get fetches an answer that must be 200 and decodes it.
func (p *Parley) Get(t *testing.T, path string, params url.Values, out any) {
	t.Helper()
	status, body := p.Fetch(t, path, params)
	require.Equal(t, http.StatusOK, status, "GET %s: %s", path, body)
	require.NoError(t, json.Unmarshal(body, out))
}

// PageErrors collects the uncaught exceptions and errors a tab logs, so a
// broken script or a refused resource (the Content-Security-Policy) fails
// the test instead of showing as something that is not there.
type PageErrors struct {
	mu   sync.Mutex
	list []string
}

func WatchErrors(ctx context.Context) *PageErrors {
	e := &PageErrors{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// Browsers ask every page for a favicon, and log each API call
			// that answers an error, which the page shows itself.
			expected := strings.Contains(m.Text+m.URL, "favicon") ||
				strings.HasPrefix(m.Text, "Failed to load resource") && strings.Contains(m.URL, "/v2/")
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !expected {
				e.mu.Lock()
				e.list = append(e.list, m.URL+": "+m.Text)
				e.mu.Unlock()
			}
		}
	}()
	return e
}

func (e *PageErrors) All() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

// WaitFor waits until the page's expression is true. A page that is
// navigating away loses the document the expression ran in: then it waits
// on in the next one.
func WaitFor(ctx context.Context, expression string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expression, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil || !navigatedAway(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// navigatedAway tells whether a wait failed because its document went:
// Chromium says so in two ways, depending on when the navigation lands.
func navigatedAway(err error) bool {
	return strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "Inspected target navigated or closed")
}

// Evaluate runs an expression in the page and decodes its value.
func Evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	require.NoError(t, err, expression)
	return v
}

// SignIn goes through Parley's sign-in and authorization pages from the
// page at path (which shows body[data-state=signed-out] and a #sign-in
// link), as Acme's owner approving appName, and waits until the page shows
// again (body[data-state=ready]) back at path, the token out of the URL.
func SignIn(t *testing.T, ctx context.Context, p *Parley, path, appName string) {
	t.Helper()
	consent, err := headless.SignIn(ctx, p.URL+path, fixtures.AcmeOwnerEmail, fixtures.DemoPassword)
	require.NoError(t, err)
	require.Contains(t, consent, appName)
	location, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, p.URL+path, location, "the sign-in returns where it started, the token out of the URL")
}
