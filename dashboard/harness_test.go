package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
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
	"github.com/parley/parley/storage"
)

// demoNow is the fixed clock of the server: the demo data spreads over the
// year before it.
var demoNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// browserRequired: CI (CI=true) installs Chromium (see .ci/run), so there a
// missing browser is a broken set-up, not a reason to test less; the same
// rule as internal/pgtest's for PostgreSQL.
func browserRequired() bool { return os.Getenv("CI") == "true" }

// startBrowser starts one headless Chromium for the test binary's tests
// and returns a context for new tabs. Where Chromium is not installed the
// test skips, except under CI, where it fails.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if browserRequired() {
			t.Fatal("Chromium is not installed (CI=true requires it): apt-get install -y chromium")
		}
		t.Skip("Chromium is not installed; apt-get install -y chromium to run the dashboard's browser tests")
	}
	// The network here is closed and the page needs none but Parley's: the
	// flags keep Chromium from reaching out for updates, sync and the like.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	require.NoError(t, chromedp.Do(browser), "start Chromium")
	return browser
}

// parleyServer is Parley's real handler over the demo data, behind an
// httptest server, with a fixed clock.
type parleyServer struct {
	*httptest.Server
	token string // Acme's owner's, by client credentials: the user who signs in
}

func startParley(t *testing.T) *parleyServer {
	t.Helper()
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	require.NoError(t, fixtures.Load(db.Store(), demoNow))
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
		Clock:      parley.ClockFunc(func() time.Time { return demoNow }),
		RateLimits: map[parley.Plan]int{parley.PlanPro: 1 << 20}, TokenRateLimit: 1 << 20})
	ts := httptest.NewServer(server)
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-done
		engine.Close()
		db.Close()
	})
	res, err := http.PostForm(ts.URL+"/v2/oauth2/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {fixtures.AcmeClientID}, "client_secret": {fixtures.AcmeClientSecret}})
	require.NoError(t, err)
	defer res.Body.Close()
	var issued struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&issued))
	require.NotEmpty(t, issued.AccessToken)
	return &parleyServer{Server: ts, token: issued.AccessToken}
}

// fetch calls the API directly, as the signed-in user.
func (p *parleyServer) fetch(t *testing.T, path string, params url.Values) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.URL+path+"?"+params.Encode(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+p.token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, body
}

// get fetches an answer that must be 200 and decodes it.
func (p *parleyServer) get(t *testing.T, path string, params url.Values, out any) {
	t.Helper()
	status, body := p.fetch(t, path, params)
	require.Equal(t, http.StatusOK, status, "GET %s: %s", path, body)
	require.NoError(t, json.Unmarshal(body, out))
}

// with returns the view's parameters and more.
func with(extra url.Values) url.Values {
	out := url.Values{}
	for _, v := range []url.Values{viewParams, extra} {
		for k, vs := range v {
			out[k] = vs
		}
	}
	return out
}

// pageErrors collects the uncaught exceptions and errors a tab logs, so a
// broken script or a refused resource (the Content-Security-Policy) fails
// the test instead of showing as a chart that is not there.
type pageErrors struct {
	mu   sync.Mutex
	list []string
}

func watchErrors(ctx context.Context) *pageErrors {
	e := &pageErrors{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// Browsers ask every page for a favicon, and log each API call
			// that answers an error, which the page shows in its panel.
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

func (e *pageErrors) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

// waitFor waits until the page's expression is true.
func waitFor(ctx context.Context, expression string) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expression, chromedp.WithPollingTimeout(30*time.Second)))
	return err
}

// evaluate runs an expression in the page and decodes its value.
func evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	require.NoError(t, err, expression)
	return v
}

// chartData reads what a chart draws: its labels and each dataset's values.
type chartData struct {
	Labels   []string    `json:"labels"`
	Datasets [][]float64 `json:"datasets"`
}

func readChart(t *testing.T, ctx context.Context, canvasID string) chartData {
	t.Helper()
	return evaluate[chartData](t, ctx, `(() => { const c = Chart.getChart('`+canvasID+`');
		return { labels: c.data.labels, datasets: c.data.datasets.map((d) => d.data.map((v) => v ?? -1)) }; })()`)
}

// clickBar clicks, with the mouse, the middle of a chart's bar.
func clickBar(t *testing.T, ctx context.Context, canvasID string, dataset, index int) {
	t.Helper()
	type point struct{ X, Y float64 }
	p := evaluate[point](t, ctx, `(() => { const c = Chart.getChart('`+canvasID+`'); c.canvas.scrollIntoView({block: 'center'});
		const bar = c.getDatasetMeta(`+itoa(dataset)+`).data[`+itoa(index)+`]; const r = c.canvas.getBoundingClientRect();
		return { X: r.left + bar.x, Y: r.top + (bar.y + bar.base) / 2 }; })()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y)))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// drillRows reads the drill-down panel once it shows its list.
type drillRows struct {
	Title string   `json:"title"`
	Count int      `json:"count"`
	IDs   []int64  `json:"ids"`
	Hrefs []string `json:"hrefs"`
}

func readDrillDown(t *testing.T, ctx context.Context) drillRows {
	t.Helper()
	require.NoError(t, waitFor(ctx, `document.getElementById('drilldown').dataset.state === 'ready'`))
	return evaluate[drillRows](t, ctx, `(() => { const p = document.getElementById('drilldown');
		const links = [...p.querySelectorAll('a[data-conversation]')];
		return { title: p.querySelector('h2').textContent, count: Number(p.dataset.count),
			ids: links.map((a) => Number(a.dataset.conversation)), hrefs: links.map((a) => a.getAttribute('href')) }; })()`)
}

// periodFigures are a report's figures of both periods and their deltas.
type periodFigures struct {
	Current, Previous, Deltas map[string]any
}

// drillPage is a drill-down endpoint's answer.
type drillPage struct {
	Conversations struct {
		Count   int `json:"count"`
		Results []struct {
			ID int64 `json:"id"`
		} `json:"results"`
	} `json:"conversations"`
}

func (d drillPage) ids() []int64 {
	var out []int64
	for _, r := range d.Conversations.Results {
		out = append(out, r.ID)
	}
	return out
}

func hrefsOf(ids []int64) []string {
	var out []string
	for _, id := range ids {
		out = append(out, "/v2/conversations/"+itoa(int(id)))
	}
	return out
}
