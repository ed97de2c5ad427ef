package dashboard_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/browsertest"
)

var update = flag.Bool("update", false, "rewrite docs/dashboard.png, the screenshot of the dashboard in docs/reports.md")

// screenshotPath is where -update writes the screenshot in docs/reports.md.
const screenshotPath = "../docs/dashboard.png"

// The view the tests open: October 2026 against September, as the page
// writes it (whole UTC days, both ends included) and as the API reads it.
const viewQuery = "?start=2026-10-01&end=2026-10-31&previousStart=2026-09-01&previousEnd=2026-09-30"

var viewParams = url.Values{
	"start": {"2026-10-01T00:00:00Z"}, "end": {"2026-11-01T00:00:00Z"},
	"previousStart": {"2026-09-01T00:00:00Z"}, "previousEnd": {"2026-10-01T00:00:00Z"},
}

// TestDashboard drives the dashboard in headless Chromium over the demo
// data, as its user would: sign in on the authorization page, read the
// charts, compare periods, click a bar. The figures on the page must be
// the ones the API answers to a direct call. One browser and one sign-in
// serve every step, so the steps run in order.
func TestDashboard(t *testing.T) {
	browser := startBrowser(t)
	p := startParley(t)
	tab, cancelTab := chromedp.NewContext(browser)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(tab, 3*time.Minute)
	defer cancel()
	errs := watchErrors(ctx)

	signedIn := t.Run("signs in through the authorization page", func(t *testing.T) {
		browsertest.SignIn(t, ctx, p.Parley, "/reports"+viewQuery, "Parley reports dashboard")
	})
	if !signedIn {
		return
	}

	t.Run("charts draw the API's figures", func(t *testing.T) {
		var created, received struct {
			Current, Previous []struct {
				Start string `json:"start"`
				Count float64
			}
		}
		p.get(t, "/v2/reports/conversations/new", viewParams, &created)
		p.get(t, "/v2/reports/conversations/received-messages", viewParams, &received)
		volume := readChart(t, ctx, "chart-volume")
		require.Len(t, volume.Labels, len(created.Current))
		for i, point := range created.Current {
			assert.Equal(t, point.Start[:10], volume.Labels[i])
			assert.Equal(t, point.Count, volume.Datasets[0][i], "new conversations on %s", point.Start)
			assert.Equal(t, received.Current[i].Count, volume.Datasets[2][i], "received messages on %s", point.Start)
		}
		for i, point := range created.Previous {
			assert.Equal(t, point.Count, volume.Datasets[1][i], "new conversations on %s (previous)", point.Start)
		}

		var productivity struct {
			FirstResponseTime, ResolutionTime struct {
				Ranges []struct{ Count, PreviousCount float64 }
			}
		}
		p.get(t, "/v2/reports/productivity", viewParams, &productivity)
		for canvas, dist := range map[string][]struct{ Count, PreviousCount float64 }{
			"chart-first-response": productivity.FirstResponseTime.Ranges, "chart-resolution": productivity.ResolutionTime.Ranges,
		} {
			chart := readChart(t, ctx, canvas)
			require.Len(t, chart.Datasets[0], len(dist), canvas)
			for i, r := range dist {
				assert.Equal(t, r.Count, chart.Datasets[0][i], "%s range %d", canvas, i+1)
				assert.Equal(t, r.PreviousCount, chart.Datasets[1][i], "%s range %d (previous)", canvas, i+1)
			}
		}

		var busy []struct{ Day, Hour, Count int }
		p.get(t, "/v2/reports/conversations/busy-times", viewParams, &busy)
		chart := readChart(t, ctx, "chart-busy")
		for _, h := range busy {
			assert.Equal(t, float64(h.Count), chart.Datasets[h.Day-1][h.Hour], "day %d hour %d", h.Day, h.Hour)
		}
		if *update {
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Dir(screenshotPath), 0o755))
			require.NoError(t, os.WriteFile(screenshotPath, png, 0o644))
		}
	})

	t.Run("the previous period shows its deltas", func(t *testing.T) {
		type card struct {
			Report, Figure           string
			Current, Previous, Delta any
			Text                     string
		}
		cards := evaluate[[]card](t, ctx, `[...document.querySelectorAll('#summary .card')].map((c) => ({
			Report: c.dataset.report, Figure: c.dataset.figure, Current: JSON.parse(c.dataset.current),
			Previous: JSON.parse(c.dataset.previous), Delta: JSON.parse(c.dataset.delta), Text: c.querySelector('.delta').textContent }))`)
		require.Len(t, cards, 9)
		reports := map[string]periodFigures{}
		for _, c := range cards {
			body, ok := reports[c.Report]
			if !ok {
				p.get(t, "/v2/reports/"+c.Report, viewParams, &body)
				reports[c.Report] = body
			}
			assert.Equal(t, body.Current[c.Figure], c.Current, "%s.%s current", c.Report, c.Figure)
			assert.Equal(t, body.Previous[c.Figure], c.Previous, "%s.%s previous", c.Report, c.Figure)
			assert.Equal(t, body.Deltas[c.Figure], c.Delta, "%s.%s delta", c.Report, c.Figure)
			switch d, _ := body.Deltas[c.Figure].(float64); {
			case d == 0:
				assert.Contains(t, []string{"—", "0%"}, c.Text, "%s.%s", c.Report, c.Figure)
			case d > 0:
				assert.True(t, strings.HasPrefix(c.Text, "+") && strings.HasSuffix(c.Text, "%"), "%s.%s shows %q", c.Report, c.Figure, c.Text)
			default:
				assert.True(t, strings.HasPrefix(c.Text, "-") && strings.HasSuffix(c.Text, "%"), "%s.%s shows %q", c.Report, c.Figure, c.Text)
			}
		}
		assert.NotZero(t, reports["conversations"].Deltas["totalConversations"], "the demo's October differs from its September")
	})

	t.Run("clicking a bar lists the conversations behind it", func(t *testing.T) {
		volume := readChart(t, ctx, "chart-volume")
		busiest := 0
		for i, v := range volume.Datasets[0] {
			if v > volume.Datasets[0][busiest] {
				busiest = i
			}
		}
		clickBar(t, ctx, "chart-volume", 0, busiest)
		rows := readDrillDown(t, ctx)
		start, _ := time.Parse("2006-01-02", volume.Labels[busiest])
		var want drillPage
		p.get(t, "/v2/reports/conversations/new-drilldown", url.Values{"start": {start.Format(time.RFC3339)},
			"end": {start.AddDate(0, 0, 1).Format(time.RFC3339)}}, &want)
		assert.Equal(t, int(volume.Datasets[0][busiest]), want.Conversations.Count, "the bar counts its drill-down")
		assert.Equal(t, want.Conversations.Count, rows.Count)
		assert.Equal(t, want.ids(), rows.IDs)
		assert.Equal(t, hrefsOf(want.ids()), rows.Hrefs, "each conversation links to its API resource")
		assert.Contains(t, rows.Title, volume.Labels[busiest])

		for _, dist := range []struct{ canvas, rangeName, title string }{
			{"chart-first-response", "firstResponseTime", "First response in"},
			{"chart-resolution", "resolutionTime", "Resolved in"},
		} {
			chart := readChart(t, ctx, dist.canvas)
			bar := 0
			for i, v := range chart.Datasets[0] {
				if v > chart.Datasets[0][bar] {
					bar = i
				}
			}
			clickBar(t, ctx, dist.canvas, 0, bar)
			require.NoError(t, waitFor(ctx, `document.querySelector('#drilldown h2').textContent.startsWith('`+dist.title+`')`))
			rows := readDrillDown(t, ctx)
			var want drillPage
			p.get(t, "/v2/reports/company/drilldown", with(url.Values{"range": {dist.rangeName}, "rangeId": {itoa(bar + 1)}}), &want)
			assert.Equal(t, int(chart.Datasets[0][bar]), want.Conversations.Count, "%s: the bar counts its drill-down", dist.rangeName)
			assert.Equal(t, want.ids(), rows.IDs, dist.rangeName)
		}
	})

	t.Run("a conversation's link shows its API resource", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#drilldown a[data-conversation]"))))
		require.NoError(t, waitFor(ctx, `document.querySelector('#resource pre').textContent.startsWith('{')`))
		var shown struct {
			ID int64 `json:"id"`
		}
		text := evaluate[string](t, ctx, `document.querySelector('#resource pre').textContent`)
		require.NoError(t, json.Unmarshal([]byte(text), &shown))
		id := evaluate[int64](t, ctx, `Number(document.querySelector('#drilldown a[data-conversation]').dataset.conversation)`)
		assert.Equal(t, id, shown.ID)
	})

	t.Run("the per-user table reads the user report", func(t *testing.T) {
		status, body := p.fetch(t, "/v2/reports/user", with(url.Values{"user": {"1"}}))
		if status == http.StatusNotFound {
			// Not served by this build: the page must say so, not draw a table.
			note := evaluate[bool](t, ctx, `document.querySelector('#users [data-unavailable=user-report]') !== null`)
			assert.True(t, note, "the page says the user report is unavailable")
			return
		}
		require.Equal(t, http.StatusOK, status, "%s", body)
		type cell struct {
			User    int64
			Figure  string
			Current any
		}
		cells := evaluate[[]cell](t, ctx, `[...document.querySelectorAll('#users tr[data-user] td[data-figure]')].map((td) => ({
			User: Number(td.parentElement.dataset.user), Figure: td.dataset.figure, Current: JSON.parse(td.dataset.current) }))`)
		require.NotEmpty(t, cells)
		reports := map[int64]periodFigures{}
		for _, c := range cells {
			body, ok := reports[c.User]
			if !ok {
				p.get(t, "/v2/reports/user", with(url.Values{"user": {itoa(int(c.User))}}), &body)
				reports[c.User] = body
			}
			assert.Equal(t, body.Current[c.Figure], c.Current, "user %d %s", c.User, c.Figure)
		}
	})

	assert.Empty(t, errs.All(), "the page logged errors")
}
