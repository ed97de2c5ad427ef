package api_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestTenantIsolationSweep calls every route the router registers with
// Globex's token and Acme's ids. Globex must get exactly the answer it
// gets for ids that never existed (a record of another company is
// indistinguishable from none), and no answer may hold Acme's data.
func TestTenantIsolationSweep(t *testing.T) {
	w := newWorld(t)
	// Acme's records, one of each kind a path can name.
	conv := w.create(convJSON(map[string]any{"subject": "Acme secret subject", "customer": map[string]any{
		"email": "acme.secret@example.com", "firstName": "Secretia", "lastName": "Acmeson"}}))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", conv), reply(map[string]any{"text": "Acme secret body",
		"attachments": []any{map[string]any{"fileName": "secret.txt", "mimeType": "text/plain", "data": base64.StdEncoding.EncodeToString([]byte("acme secret file"))}}}), http.StatusCreated)
	customerID := int64(field(t, w.conv(conv), "primaryCustomer", "id").(float64))
	var entryID int64
	for _, e := range field(t, decode(t, w.get(fmt.Sprintf("/v2/customers/%d", customerID))), "_embedded", "emails").([]any) {
		entryID = int64(e.(map[string]any)["id"].(float64))
	}
	org := w.do(request{method: "POST", path: "/v2/organizations", token: ownerToken, body: `{"name":"Acme Secret Org","domains":["acme-secret.test"]}`})
	require.Equal(t, http.StatusCreated, org.Code, org.Body.String())
	v := w.startChat(supportWidget, `{"name":"Acme Visitor","email":"acme.visitor@example.com","message":"acme secret chat"}`)
	w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(1), `{"body":"acme secret answer"}`)
	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/2/rating", conv), `{"rating":"great","comments":"acme secret praise"}`, http.StatusNoContent)
	w.send("POST", "/v2/customer-properties", `{"slug":"acmesecret","name":"Acme secret property","type":"text"}`, http.StatusCreated)
	w.send("POST", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID), `{"name":"Acme secret reply","text":"acme secret canned text"}`, http.StatusCreated)
	w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"Acme secret workflow","type":"manual","conditions":["subject:secret"],"actions":[{"type":"note","text":"acme secret note"}]}`, supportID), http.StatusCreated)
	view := w.createView(ownerToken, fmt.Sprintf(`{"name":"Acme secret view","visibility":"shared","mailboxId":%d,"query":"subject:secret"}`, supportID))
	acme := map[string]string{
		"conversationId": fmt.Sprint(conv), "threadId": "2", "attachmentId": "1", "customerId": fmt.Sprint(customerID),
		"entryId": fmt.Sprint(entryID), "organizationId": org.Header().Get("Resource-ID"), "chatId": v.chat,
		"messageId": uuidN(50), "userId": fmt.Sprint(ownerID), "teamId": fmt.Sprint(teamID), "mailboxId": fmt.Sprint(supportID),
		"propertyId": "1", "webhookId": "1", "deliveryId": "1", "widgetId": supportWidget, "tagId": "1",
		"slug": "acmesecret", "ratingId": "1", "savedReplyId": "1", "workflowId": "1",
		"viewId": fmt.Sprint(view),
	}
	// Ids that never existed, of the same shapes.
	none := map[string]string{
		"conversationId": "999999", "threadId": "999999", "attachmentId": "999999", "customerId": "999999",
		"entryId": "999999", "organizationId": "999999", "chatId": "00000000-0000-4000-8000-999999999999",
		"messageId": uuidN(51), "userId": "999999", "teamId": "999999", "mailboxId": "999999",
		"propertyId": "999999", "webhookId": "999999", "deliveryId": "999999", "widgetId": "no-such-widget", "tagId": "999999",
		"slug": "no-such-slug", "ratingId": "999999", "savedReplyId": "999999", "workflowId": "999999",
		"viewId": "999999",
	}
	secrets := []string{"Acme secret", "acme.secret@example.com", "Secretia", "acme secret", "Acme Secret Org", "acme.visitor", "olivia@acme.test"}
	param := regexp.MustCompile(`:[A-Za-z]+`)
	fill := func(route string, ids map[string]string) string {
		return param.ReplaceAllStringFunc(route, func(p string) string {
			id, ok := ids[p[1:]]
			if !ok {
				t.Errorf("route %s has a parameter %s the sweep does not know: add it", route, p)
			}
			return id
		})
	}
	swept := 0
	for _, r := range w.server.Routes() {
		if !strings.HasPrefix(r.Path, "/v2/") && !strings.HasPrefix(r.Path, "/v3/") {
			continue // public pages, health, token endpoints: no company data behind them
		}
		if strings.HasPrefix(r.Path, "/v2/widgets/") {
			continue // the visitor side: its own test (a visitor token, not a bearer token)
		}
		body := ""
		if r.Method != http.MethodGet && r.Method != http.MethodDelete {
			body = `{}`
		}
		call := func(ids map[string]string) (int, string) {
			rec := w.do(request{method: r.Method, path: fill(r.Path, ids), token: globexToken, body: body})
			return rec.Code, rec.Body.String()
		}
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			swept++
			code, got := call(acme)
			for _, s := range secrets {
				assert.NotContains(t, got, s, "Globex sees Acme's data")
			}
			if !param.MatchString(r.Path) {
				return // a list: it must only hold Globex's own records
			}
			assert.Contains(t, []int{http.StatusNotFound, http.StatusBadRequest, http.StatusForbidden, http.StatusUnprocessableEntity}, code, got)
			noneCode, noneBody := call(none)
			assert.Equal(t, noneCode, code, "Acme's ids answer like ids that never existed")
			strip := regexp.MustCompile(`"logRef":"[^"]*"|"rejectedValue":[^,}]*`)
			assert.Equal(t, strip.ReplaceAllString(noneBody, ""), strip.ReplaceAllString(got, ""), "the bodies differ only by request id and echoed value")
		})
	}
	assert.Greater(t, swept, 60, "every registered route is swept")

	// Searches and reports of Globex never count Acme's records, even with
	// queries that match them.
	for _, q := range []string{`subject:"Acme secret subject"`, "email:acme.secret@example.com", `body:"acme secret body"`, "Secretia", "attachments:true"} {
		rec := w.do(request{method: "GET", path: "/v2/conversations?status=all&query=" + url.QueryEscape(q), token: globexToken})
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, float64(0), field(t, decode(t, rec), "page", "totalElements"), q)
		assert.Equal(t, float64(1), field(t, decode(t, w.get("/v2/conversations?status=all&query="+url.QueryEscape(q))), "page", "totalElements"), "Acme finds it: %s", q)
	}
	rec := w.do(request{method: "GET", path: "/v2/customers?query=" + url.QueryEscape("email:acme.secret"), token: globexToken})
	assert.Equal(t, float64(0), field(t, decode(t, rec), "page", "totalElements"))
	w.company(globexID, func(c *parley.Company) { c.Plan = parley.PlanPro }) // reports need a high plan
	period := "start=2026-11-01T00:00:00Z&end=2026-12-01T00:00:00Z"
	for _, report := range []string{"chat", "phone"} {
		mine := decode(t, w.get("/v2/reports/"+report+"?"+period))
		theirs := decode(t, w.do(request{method: "GET", path: "/v2/reports/" + report + "?" + period, token: globexToken}))
		if report == "chat" {
			assert.Equal(t, float64(1), field(t, mine, "current", "volume", "chatConversations"))
			assert.Equal(t, float64(0), field(t, theirs, "current", "volume", "chatConversations"))
		}
		assert.NotContains(t, fmt.Sprint(theirs), "Olivia", "no Acme user in Globex's %s report", report)
	}
}
