package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
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
	// Carol; Bob chats; Alice writes again. Three conversations are created
	// (by the owner, through the API).
	priority := w.fields["Priority"]
	bob := w.create(convJSON(map[string]any{"customer": customer("bob@example.com"), "tags": []string{"vip"},
		"threads": []any{thread("customer", "Help"), thread("reply", "Done!")},
		"fields":  []any{map[string]any{"id": priority.ID, "value": fmt.Sprint(priority.Options[1].ID)}}}))
	w.clock.advance(time.Hour)
	carol := w.create(convJSON(map[string]any{"type": "phone", "customer": customer("carol@example.com"), "threads": []any{thread("phone", "Called")}}))
	w.clock.advance(time.Hour)
	bobChat := w.create(convJSON(map[string]any{"type": "chat", "customer": customer("bob@example.com"), "threads": []any{thread("chat", "Hi")}}))
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
		"conversationsCreated": float64(3), "customers": float64(3), "conversationsPerDay": float64(4)}, body["current"])
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
	assert.Equal(t, map[string]any{"current": []any{map[string]any{"start": day(1), "date": day(1), "email": float64(1), "chat": float64(1), "phone": float64(1)}}},
		get("/v2/reports/conversations/volume-by-channel?"+current))
	weeks := get("/v2/reports/conversations/new?" + reportQuery("start", day(-150), "end", day(2)))
	assert.Len(t, weeks["current"], 22, "152 days: weeks")

	rec = w.get("/v2/reports/conversations/drilldown?" + current)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_conversations_drilldown", rec.Body.Bytes())
	page := get("/v2/reports/conversations/new-drilldown?" + current + "&rows=2&page=2")["conversations"].(map[string]any)
	assert.Equal(t, []any{float64(2), float64(2), float64(3)}, []any{page["page"], page["pages"], page["count"]})
	assert.Len(t, page["results"], 1)

	// The fields drill-down, by tag, saved reply, workflow and customer:
	// Alice gets a saved reply, a workflow runs on Carol's call; Bob has
	// two conversations.
	savedReply := resourceID(t, w.must("POST", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID), map[string]any{"name": "Thanks", "text": "Thank you!"}, http.StatusCreated))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", alice), fmt.Sprintf(`{"text":"Thank you!","savedReplyId":%d}`, savedReply), http.StatusCreated)
	workflow := resourceID(t, w.must("POST", "/v2/workflows", map[string]any{"mailboxId": supportID, "name": "Follow up", "type": "manual",
		"conditions": []string{}, "actions": []any{map[string]any{"type": "note", "text": "Followed up"}}}, http.StatusCreated))
	w.send("POST", fmt.Sprintf("/v2/workflows/%d/run", workflow), fmt.Sprintf(`{"conversationIds":[%d]}`, carol), http.StatusNoContent)
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", bob), fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, adminID), http.StatusNoContent)
	bobRow := drillRows(t, get("/v2/reports/conversations/drilldown?"+current))[bob]
	assert.Equal(t, map[string]any{"assignedid": float64(adminID), "assignedName": "Adam Admin"}, pick(bobRow, "assignedid", "assignedName"))
	vip := bobRow["tags"].([]any)[0].(map[string]any)["id"]
	bobID := w.conv(bob)["primaryCustomer"].(map[string]any)["id"]
	drilled := func(field string, id any) []int64 {
		t.Helper()
		var out []int64
		for id := range drillRows(t, get(fmt.Sprintf("/v2/reports/conversations/fields-drilldown?%s&field=%s&fieldid=%v", current, field, id))) {
			out = append(out, id)
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, []int64{bob}, drilled("tagid", vip))
	assert.Equal(t, []int64{alice}, drilled("replyid", savedReply))
	assert.Equal(t, []int64{carol}, drilled("workflowid", workflow))
	assert.Equal(t, []int64{bob, bobChat}, drilled("customerid", bobID), "Bob's e-mail and chat")
	previousDay := reportQuery("start", day(0), "end", day(1))
	assert.Equal(t, float64(1), field(t, get("/v2/reports/conversations/fields-drilldown?"+previousDay+"&field=customerid&fieldid="+fmt.Sprint(w.conv(alice)["primaryCustomer"].(map[string]any)["id"])),
		"conversations", "count"), "Alice's conversation was worked on the day before too")

	globexCustomer := resourceID(t, w.call(globexToken, "POST", "/v2/customers", map[string]any{"firstName": "Gina", "emails": []any{map[string]any{"type": "work", "value": "gina@example.com"}}}))
	for _, tc := range []struct{ name, path, code, param string }{
		{"viewBy day over 121 days", "/v2/reports/conversations/new?" + reportQuery("start", day(-120), "end", day(1)) + "&viewBy=day", "Value not supported", "viewBy"},
		{"viewBy month under 61 days", "/v2/reports/conversations/new?" + current + "&viewBy=month", "Value not supported", "viewBy"},
		{"unknown viewBy", "/v2/reports/conversations/new?" + current + "&viewBy=hour", "Enum Value", "viewBy"},
		{"field missing", "/v2/reports/conversations/fields-drilldown?" + current + "&fieldid=1", "Missing parameter", "field"},
		{"fieldid missing", "/v2/reports/conversations/fields-drilldown?" + current + "&field=tagid", "Missing parameter", "fieldid"},
		{"a custom field is no drill-down field", fmt.Sprintf("/v2/reports/conversations/fields-drilldown?%s&field=%d&fieldid=%d", current, priority.ID, priority.Options[1].ID), "Enum Value", "field"},
		{"unknown tag", "/v2/reports/conversations/fields-drilldown?" + current + "&field=tagid&fieldid=999", "Invalid identifier", "fieldid"},
		{"unknown saved reply", "/v2/reports/conversations/fields-drilldown?" + current + "&field=replyid&fieldid=999", "Invalid identifier", "fieldid"},
		{"unknown workflow", "/v2/reports/conversations/fields-drilldown?" + current + "&field=workflowid&fieldid=999", "Invalid identifier", "fieldid"},
		{"another company's customer", fmt.Sprintf("/v2/reports/conversations/fields-drilldown?%s&field=customerid&fieldid=%d", current, globexCustomer), "Invalid identifier", "fieldid"},
		{"bad rows", "/v2/reports/conversations/drilldown?" + current + "&rows=0", "Invalid number", "rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			badParam(t, w, tc.path, tc.code, tc.param)
		})
	}
}

// drillRows are the results of a drill-down page by conversation id.
func drillRows(t *testing.T, body map[string]any) map[int64]map[string]any {
	t.Helper()
	out := map[int64]map[string]any{}
	for _, r := range field(t, body, "conversations", "results").([]any) {
		row := r.(map[string]any)
		out[int64(row["id"].(float64))] = row
	}
	return out
}
