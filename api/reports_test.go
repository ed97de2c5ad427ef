package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reportQuery(pairs ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	return v.Encode()
}

func TestPhoneReport(t *testing.T) { onEachBackend(t, testPhoneReport) }

func testPhoneReport(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	phone := func(customerEmail string, user int) int64 {
		return w.create(convJSON(map[string]any{"type": "phone", "user": user, "customer": customer(customerEmail),
			"threads": []any{thread("phone", "Called about the invoice.")}}))
	}
	// Previous day: one call by Olivia.
	phone("a@example.com", ownerID)
	w.clock.advance(24 * time.Hour)
	// Current day: two phone conversations by Olivia, one by Adam, and an
	// extra call logged on an existing conversation by Adam.
	c1 := phone("a@example.com", ownerID)
	phone("b@example.com", ownerID)
	phone("c@example.com", adminID)
	w.do(request{method: "POST", path: fmt.Sprintf("/v2/conversations/%d/phones", c1), token: ownerToken2, body: `{"text":"Called back."}`})
	w.create(convJSON(nil)) // an e-mail conversation is not counted

	day := func(offset int) string { return epoch.Add(time.Duration(offset) * 24 * time.Hour).Format(time.RFC3339) }
	rec := w.get("/v2/reports/phone?" + reportQuery("start", day(1), "end", day(2), "previousStart", day(0), "previousEnd", day(1)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "report_phone", rec.Body.Bytes())
	body := decode(t, rec)
	assert.Equal(t, map[string]any{"startDate": "2026-11-22T12:00:00Z", "endDate": "2026-11-23T12:00:00Z",
		"phoneConversations": float64(3), "phoneCallsCreated": float64(4), "customers": float64(3)}, body["current"])
	assert.Equal(t, map[string]any{"newConversations": float64(200), "phoneCallsCreated": float64(300), "customers": float64(200)}, body["deltas"])

	// Filters apply; Globex counts none of Acme's calls.
	rec = w.get("/v2/reports/phone?" + reportQuery("start", day(1), "end", day(2), "mailboxes", "2"))
	assert.Equal(t, float64(0), field(t, decode(t, rec), "current", "phoneCallsCreated"))
	rec = w.do(request{method: "GET", path: "/v2/reports/phone?" + reportQuery("start", day(0), "end", day(2)), token: globexToken})
	assert.Equal(t, http.StatusForbidden, rec.Code, "Globex's plan has no reports")
	assert.Equal(t, "Access denied", errorCode(t, decode(t, rec)))
}

func TestChatReportHTTP(t *testing.T) { onEachBackend(t, testChatReportHTTP) }

func testChatReportHTTP(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	v := w.startChat(supportWidget, `{"name":"Ann","email":"ann@example.com","message":"hi"}`)
	w.clock.advance(90 * time.Second)
	w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"hello"}`)
	w.clock.advance(10 * time.Minute)
	w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/end", `{"status":"closed"}`)
	missed := w.startChat(supportWidget, `{"name":"Ben","email":"ben@example.com","message":"hello?"}`)
	w.agent(ownerToken, "PUT", "/v2/chats/"+missed.chat+"/end", `{"status":"active"}`)

	q := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	rec := w.get("/v2/reports/chat?" + q)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "report_chat", rec.Body.Bytes())
	body := decode(t, rec)
	assert.Equal(t, map[string]any{"chatConversations": float64(2), "completedChats": float64(1), "missedChats": float64(1), "chatsPerDay": float64(2)},
		field(t, body, "current", "volume"))
	assert.NotContains(t, body, "previous")
	assert.NotContains(t, body, "deltas")

	rec = w.get("/v2/reports/chat/drilldown?" + q + "&range=waitTime&rangeId=2")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	chats := field(t, decode(t, rec), "_embedded", "chats").([]any)
	require.Len(t, chats, 1, "the 90 s wait")
	assert.Equal(t, v.chat, chats[0].(map[string]any)["id"])

	for _, tc := range []struct{ name, query, code, param string }{
		{"start missing", reportQuery("end", "2026-11-22T00:00:00Z"), "Missing parameter", "start"},
		{"malformed date", reportQuery("start", "yesterday", "end", "2026-11-22T00:00:00Z"), "Malformed date", "start"},
		{"end before start", reportQuery("start", "2026-11-22T00:00:00Z", "end", "2026-11-21T00:00:00Z"), "Value not supported", "end"},
		{"previous half given", q + "&previousStart=2026-11-20T00:00:00Z", "Missing parameter", "previousEnd"},
		{"bad mailbox list", q + "&mailboxes=1,x", "Invalid number", "mailboxes"},
		{"unknown tag", q + "&tags=999", "Invalid identifier", "tags"},
		{"bad officeHours", q + "&officeHours=maybe", "Enum Value", "officeHours"},
		{"drill-down range", q + "&range=size&rangeId=1", "Enum Value", "range"},
		{"drill-down range id", q + "&range=waitTime&rangeId=6", "Invalid number", "rangeId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/v2/reports/chat?"
			if tc.param == "range" || tc.param == "rangeId" {
				path = "/v2/reports/chat/drilldown?"
			}
			rec := w.get(path + tc.query)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			item := field(t, decode(t, rec), "_embedded", "errors").([]any)[0].(map[string]any)
			assert.Equal(t, tc.code, item["code"])
			assert.Equal(t, tc.param, item["path"])
		})
	}
}
