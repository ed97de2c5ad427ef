package dashboard_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/browsertest"
)

var (
	startBrowser = browsertest.StartBrowser
	watchErrors  = browsertest.WatchErrors
	waitFor      = browsertest.WaitFor
)

// parleyServer is Parley over the demo data, with the signed-in user's
// token.
type parleyServer struct{ *browsertest.Parley }

func startParley(t *testing.T) *parleyServer { return &parleyServer{browsertest.StartParley(t)} }

func (p *parleyServer) fetch(t *testing.T, path string, params url.Values) (int, []byte) {
	return p.Fetch(t, path, params)
}

func (p *parleyServer) get(t *testing.T, path string, params url.Values, out any) {
	p.Get(t, path, params, out)
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

// evaluate runs an expression in the page and decodes its value.
func evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	return browsertest.Evaluate[T](t, ctx, expression)
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
