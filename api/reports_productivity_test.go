package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProductivityReports(t *testing.T) {
	w := newWorld(t)
	w.clock.advance(24 * time.Hour) // the previous day stays empty
	reply := func(id int64, status string) {
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), fmt.Sprintf(`{"text":"Answer","status":%q}`, status), http.StatusCreated)
	}
	// 12:00 Alice writes; 12:10 Bob writes; 12:20 Alice is answered and
	// closed; 13:10 Bob is answered; 13:20 he writes again; 13:30 he is
	// answered and closed.
	a := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	w.clock.advance(10 * time.Minute)
	b := w.create(convJSON(map[string]any{"customer": customer("bob@example.com")}))
	w.clock.advance(10 * time.Minute)
	reply(a, "closed")
	w.clock.advance(50 * time.Minute)
	reply(b, "active")
	w.clock.advance(10 * time.Minute)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/customer", b), `{"text":"One more thing"}`, http.StatusCreated)
	w.clock.advance(10 * time.Minute)
	reply(b, "closed")

	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	q := reportQuery("start", day(1), "end", day(2), "previousStart", day(0), "previousEnd", day(1))
	rec := w.get("/v2/reports/productivity?" + q + "&officeHours=true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_productivity", rec.Body.Bytes())
	assert.Equal(t, map[string]any{"startDate": day(1), "endDate": day(2), "totalConversations": float64(2), "repliesSent": float64(3),
		"responseTime": float64(1800), "firstResponseTime": float64(2400), "resolved": float64(2), "resolutionTime": float64(3000),
		"repliesToResolve": 1.5, "resolvedOnFirstReply": float64(1), "percentResolvedOnFirstReply": float64(50), "closed": float64(2)},
		decode(t, rec)["current"])

	for path, want := range map[string]any{
		"first-response-time": []any{map[string]any{"date": day(1), "time": float64(2400)}},
		"response-time":       []any{map[string]any{"date": day(1), "time": float64(1800)}},
		"resolution-time":     []any{map[string]any{"date": day(1), "time": float64(3000)}},
		"replies-sent":        []any{map[string]any{"start": day(1), "count": float64(3)}},
		"resolved":            []any{map[string]any{"start": day(1), "count": float64(2)}},
	} {
		rec := w.get("/v2/reports/productivity/" + path + "?" + reportQuery("start", day(1), "end", day(2)))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, map[string]any{"current": want}, decode(t, rec), path)
	}
	// An empty step averages nothing: null.
	rec = w.get("/v2/reports/productivity/response-time?" + reportQuery("start", day(1), "end", day(3)))
	goldenJSON(t, "report_productivity_response_time", rec.Body.Bytes())
	rec = w.get("/v2/reports/productivity/resolved?" + reportQuery("start", day(1), "end", day(2)) + "&officeHours=maybe")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
}
