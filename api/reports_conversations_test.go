package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConversationsReports(t *testing.T) { onEachBackend(t, testConversationsReports) }

func testConversationsReports(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	// Previous day (a Saturday): Alice writes.
	alice := w.create(convJSON(map[string]any{"customer": customer("alice@example.com")}))
	w.clock.advance(24 * time.Hour)
	// Current day, from Sunday 12:00 UTC, an hour apart: Bob writes and is
	// answered (vip, priority High); a phone call logged by a user for
	// Carol; Bob chats; Alice writes again.
	priority := w.fields["Priority"]
	w.create(convJSON(map[string]any{"customer": customer("bob@example.com"), "tags": []string{"vip"},
		"threads": []any{thread("customer", "Help"), thread("reply", "Done!")},
		"fields":  []any{map[string]any{"id": priority.ID, "value": fmt.Sprint(priority.Options[1].ID)}}}))
	w.clock.advance(time.Hour)
	w.create(convJSON(map[string]any{"type": "phone", "customer": customer("carol@example.com"), "threads": []any{thread("phone", "Called")}}))
	w.clock.advance(time.Hour)
	w.create(convJSON(map[string]any{"type": "chat", "customer": customer("bob@example.com"), "threads": []any{thread("chat", "Hi")}}))
	w.clock.advance(time.Hour)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/customer", alice), `{"customer":{"email":"alice@example.com"},"text":"Any news?"}`, http.StatusCreated)

	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	current := reportQuery("start", day(1), "end", day(2))
	both := current + "&" + reportQuery("previousStart", day(0), "previousEnd", day(1))
	get := func(path string) map[string]any {
		t.Helper()
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return decode(t, rec)
	}

	rec := w.get("/v2/reports/conversations?" + both)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_conversations", rec.Body.Bytes())
	body := decode(t, rec)
	assert.Equal(t, map[string]any{"startDate": day(1), "endDate": day(2), "totalConversations": float64(4), "newConversations": float64(3),
		"conversationsCreated": float64(1), "customers": float64(3), "conversationsPerDay": float64(4)}, body["current"])
	assert.Equal(t, map[string]any{"day": float64(7), "hour": float64(12), "count": float64(1)}, body["busiestDay"])
	assert.Equal(t, []any{float64(12), float64(14)}, []any{body["busyTimeStart"], body["busyTimeEnd"]})

	var busy []map[string]any
	rec = w.get("/v2/reports/conversations/busy-times?" + current)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &busy))
	require.Len(t, busy, 168)
	assert.Equal(t, map[string]any{"day": float64(7), "hour": float64(13), "count": float64(1)}, busy[6*24+13])

	rec = w.get("/v2/reports/conversations/new?" + both)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_conversations_new", rec.Body.Bytes())
	assert.Equal(t, map[string]any{"current": []any{map[string]any{"start": day(1), "count": float64(2)}}},
		get("/v2/reports/conversations/new?"+reportQuery("start", day(1), "end", epoch.Add(24*time.Hour+90*time.Minute).Format(time.RFC3339))+"&viewBy=day"),
		"the last step ends with the period")
	assert.Equal(t, map[string]any{"current": []any{map[string]any{"start": day(1), "count": float64(3)}}},
		get("/v2/reports/conversations/received-messages?"+current))
	assert.Equal(t, map[string]any{"current": []any{map[string]any{"start": day(1), "email": float64(1), "chat": float64(1), "phone": float64(1)}}},
		get("/v2/reports/conversations/volume-by-channel?"+current))
	weeks := get("/v2/reports/conversations/new?" + reportQuery("start", day(-150), "end", day(2)))
	assert.Len(t, weeks["current"], 22, "152 days: weeks")

	rec = w.get("/v2/reports/conversations/drilldown?" + current)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_conversations_drilldown", rec.Body.Bytes())
	page := get("/v2/reports/conversations/new-drilldown?" + current + "&rows=2&page=2")["conversations"].(map[string]any)
	assert.Equal(t, []any{float64(2), float64(2), float64(3)}, []any{page["page"], page["pages"], page["count"]})
	assert.Len(t, page["results"], 1)
	fields := get(fmt.Sprintf("/v2/reports/conversations/fields-drilldown?%s&field=%d&fieldid=%d", current, priority.ID, priority.Options[1].ID))["conversations"].(map[string]any)
	assert.Equal(t, float64(1), fields["count"])

	for _, tc := range []struct{ name, path, code, param string }{
		{"viewBy day over 121 days", "/v2/reports/conversations/new?" + reportQuery("start", day(-120), "end", day(1)) + "&viewBy=day", "Value not supported", "viewBy"},
		{"viewBy month under 61 days", "/v2/reports/conversations/new?" + current + "&viewBy=month", "Value not supported", "viewBy"},
		{"unknown viewBy", "/v2/reports/conversations/new?" + current + "&viewBy=hour", "Enum Value", "viewBy"},
		{"field missing", "/v2/reports/conversations/fields-drilldown?" + current + "&fieldid=1", "Missing parameter", "field"},
		{"bad rows", "/v2/reports/conversations/drilldown?" + current + "&rows=0", "Invalid number", "rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			badParam(t, w, tc.path, tc.code, tc.param)
		})
	}
}
