package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUserReports drives every user report over answerDay, with a chat
// Adam takes. The team (Adam and Uma) is reported as its members together.
func TestUserReports(t *testing.T) {
	w := newWorld(t)
	_, b, b2 := answerDay(w)
	v := w.startChat(supportWidget, `{"name":"Ann","email":"ann@example.com","message":"hi"}`)
	w.clock.advance(90 * time.Second)
	w.agent(ownerToken2, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"hello"}`)

	day := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	before := "&" + reportQuery("previousStart", epoch.Add(-24*time.Hour).Format(time.RFC3339), "previousEnd", epoch.Format(time.RFC3339))
	get := func(path string) map[string]any {
		t.Helper()
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return decode(t, rec)
	}

	rec := w.get(fmt.Sprintf("/v2/reports/user?%s%s&user=%d", day, before, ownerID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_user", rec.Body.Bytes())
	cur := decode(t, rec)["current"].(map[string]any)
	assert.Equal(t, []any{float64(1), float64(1), float64(1), float64(2), float64(2), float64(1200), float64(100)},
		[]any{cur["totalReplies"], cur["totalConversations"], cur["customersHelped"], cur["resolved"], cur["closed"], cur["responseTime"], cur["happinessScore"]})

	rec = w.get(fmt.Sprintf("/v2/reports/user?%s&user=%d", day, teamID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_user_team", rec.Body.Bytes())
	body := decode(t, rec)
	assert.Equal(t, map[string]any{"id": float64(teamID), "type": "team", "name": "Tier 2"},
		pick(body["user"].(map[string]any), "id", "type", "name"))
	cur = body["current"].(map[string]any)
	assert.Equal(t, []any{float64(2), float64(2), float64(1), float64(0), float64(0), nil},
		[]any{cur["totalReplies"], cur["totalConversations"], cur["customersHelped"], cur["resolved"], cur["closed"], cur["happinessScore"]})

	series := func(report string, user int64) any {
		return get(fmt.Sprintf("/v2/reports/user/%s?%s&user=%d", report, day, user))["current"]
	}
	date := epoch.Format(time.RFC3339)
	assert.Equal(t, []any{map[string]any{"date": date, "customers": float64(1)}}, series("customers-helped", teamID))
	assert.Equal(t, []any{map[string]any{"date": date, "replies": float64(2)}}, series("replies", teamID))
	assert.Equal(t, []any{map[string]any{"date": date, "resolved": float64(2)}}, series("resolutions", ownerID))

	rec = w.get(fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d&sortField=number&sortOrder=ASC", day, teamID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_user_history", rec.Body.Bytes())
	history := decode(t, rec)
	assert.Equal(t, float64(2), history["count"])
	first := history["results"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"id": float64(b), "repliesSent": float64(1), "firstResponseTime": float64(1200), "resolveTime": nil, "status": "active"},
		pick(first, "id", "repliesSent", "firstResponseTime", "resolveTime", "status"))
	closed := get(fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d&status=closed", day, teamID))
	assert.Equal(t, float64(1), closed["count"], "b2 is closed now")

	drill := get(fmt.Sprintf("/v2/reports/user/drilldown?%s&user=%d&rows=1", day, adminID))
	assert.Equal(t, map[string]any{"pages": float64(2), "page": float64(1), "count": float64(2)}, pick(drill["conversations"].(map[string]any), "pages", "page", "count"))
	newest := drill["conversations"].(map[string]any)["results"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(b2), newest["id"], "newest first")

	happy := get(fmt.Sprintf("/v2/reports/user/happiness?%s&user=%d", day, ownerID))
	assert.Equal(t, []any{float64(1), float64(100)}, []any{field(t, happy, "current", "ratingsCount"), field(t, happy, "current", "great")})
	ratings := get(fmt.Sprintf("/v2/reports/user/ratings?%s&user=%d", day, ownerID))
	assert.Equal(t, float64(1), ratings["count"])
	assert.Equal(t, float64(ownerID), ratings["results"].([]any)[0].(map[string]any)["ratingUserId"])
	assert.Equal(t, float64(0), get(fmt.Sprintf("/v2/reports/user/ratings?%s&user=%d", day, teamID))["count"])

	rec = w.get(fmt.Sprintf("/v2/reports/user/chat?%s%s&user=%d", day, before, adminID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_user_chat", rec.Body.Bytes())
	assert.Equal(t, float64(1), field(t, decode(t, rec), "current", "newConversations"))
	assert.Equal(t, float64(0), field(t, get(fmt.Sprintf("/v2/reports/user/chat?%s&user=%d", day, ownerID)), "current", "newConversations"))

	// The whole answers of the other reports, with a previous period.
	for golden, path := range map[string]string{
		"report_user_customers_helped": fmt.Sprintf("/v2/reports/user/customers-helped?%s%s&user=%d", day, before, teamID),
		"report_user_replies":          fmt.Sprintf("/v2/reports/user/replies?%s%s&user=%d", day, before, teamID),
		"report_user_resolutions":      fmt.Sprintf("/v2/reports/user/resolutions?%s%s&user=%d", day, before, ownerID),
		"report_user_drilldown":        fmt.Sprintf("/v2/reports/user/drilldown?%s&user=%d", day, teamID),
		"report_user_happiness":        fmt.Sprintf("/v2/reports/user/happiness?%s%s&user=%d", day, before, ownerID),
		"report_user_ratings":          fmt.Sprintf("/v2/reports/user/ratings?%s&user=%d", day, ownerID),
	} {
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		goldenJSON(t, golden, rec.Body.Bytes())
	}
}

// pick keeps some keys of a JSON object.
func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// TestUserReportErrors: `user` is required and must name a user or a team
// of the caller's company; the lowest plan has no reports.
func TestUserReportErrors(t *testing.T) {
	w := newWorld(t)
	day := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	for _, report := range []string{"", "/customers-helped", "/replies", "/resolutions", "/conversation-history", "/drilldown", "/happiness", "/ratings", "/chat"} {
		path := "/v2/reports/user" + report + "?" + day
		badParam(t, w, path, "Missing parameter", "user")
		badParam(t, w, path+"&user=x", "Invalid identifier", "user")
		badParam(t, w, path+"&user=999", "Invalid identifier", "user")
		badParam(t, w, fmt.Sprintf("%s&user=%d", path, globexOwnerID), "Invalid identifier", "user")
		rec := w.do(request{method: "GET", path: fmt.Sprintf("%s&user=%d", path, globexOwnerID), token: globexToken})
		assert.Equal(t, http.StatusForbidden, rec.Code, "Globex's plan has no reports")
		assert.Equal(t, "Access denied", errorCode(t, decode(t, rec)))
	}
	badParam(t, w, fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d&status=spam", day, ownerID), "Enum Value", "status")
	badParam(t, w, fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d&sortField=subject", day, ownerID), "Enum Value", "sortField")
	badParam(t, w, fmt.Sprintf("/v2/reports/user/drilldown?%s&user=%d&rows=51", day, ownerID), "Invalid number", "rows")
	badParam(t, w, fmt.Sprintf("/v2/reports/user/replies?%s&user=%d&viewBy=hour", day, ownerID), "Enum Value", "viewBy")
}
