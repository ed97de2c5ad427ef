package api_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverLongValues sends over-long values to every write route: a
// 40,000-character e-mail, text, name or slug, and 10,000 tags. None may
// answer 5xx (bbolt refuses keys over 32 KiB: every key built from input is
// bounded in the domain), and the e-mail and tag cases must be refused.
func TestOverLongValues(t *testing.T) {
	w := newWorld(t, withOperator)
	long := strings.Repeat("a", 40000)
	email := strings.Repeat("b", 39988) + "@example.com"
	tags := make([]string, 10000)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%d", i)
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	L, E, T := js(long), js(email), js(tags)

	conv := w.create(convJSON(nil))
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", conv), reply(map[string]any{"text": "Answer",
		"attachments": []any{map[string]any{"fileName": "a.txt", "mimeType": "text/plain", "data": base64.StdEncoding.EncodeToString([]byte("x"))}}}), http.StatusCreated)
	cu := w.newCustomer(map[string]any{"firstName": "Long", "emails": []any{map[string]any{"value": "long@example.com"}},
		"phones": []any{map[string]any{"value": "1"}}, "chats": []any{map[string]any{"value": "c"}},
		"socialProfiles": []any{map[string]any{"value": "s"}}, "websites": []any{map[string]any{"value": "https://w.example"}}})
	entry := map[string]string{}
	for _, e := range []struct{ segment, embedded string }{{"emails", "emails"}, {"phones", "phones"}, {"chats", "chats"}, {"social-profiles", "social_profiles"}, {"websites", "websites"}} {
		entry[e.segment] = fmt.Sprint(entryIDs(t, w.readCustomer(cu), e.embedded)[0])
	}
	w.defineProperty("tier", "Tier", "text")
	org := w.do(request{method: "POST", path: "/v2/organizations", token: ownerToken, body: `{"name":"Long Org"}`})
	require.Equal(t, http.StatusCreated, org.Code, org.Body.String())
	w.send("POST", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID), `{"name":"r","text":"t"}`, http.StatusCreated)
	w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"w","type":"manual","actions":[{"type":"status","status":"closed"}]}`, supportID), http.StatusCreated)
	view := w.createView(ownerToken, `{"name":"v"}`)
	v := w.startChat(supportWidget, `{"name":"Vic","email":"vic@example.com","message":"hello"}`)
	pathIDs := map[string]string{
		"conversationId": fmt.Sprint(conv), "threadId": "2", "attachmentId": "1", "customerId": fmt.Sprint(cu),
		"organizationId": org.Header().Get("Resource-ID"), "mailboxId": fmt.Sprint(supportID), "savedReplyId": "1",
		"slug": "tier", "tagId": "1", "webhookId": "1", "deliveryId": "1", "userId": fmt.Sprint(ownerID),
		"chatId": v.chat, "messageId": uuidN(7), "widgetId": supportWidget, "companyId": fmt.Sprint(acmeID),
		"workflowId": "1", "viewId": fmt.Sprint(view),
	}

	type probe struct {
		body     string
		mustFail bool // an e-mail or tag list over the bound: refused with a 4xx
	}
	cases := map[string][]probe{
		"POST /v2/conversations": {
			{convJSON(map[string]any{"customer": map[string]any{"email": email}}), true},
			{convJSON(map[string]any{"tags": tags}), true},
			{convJSON(map[string]any{"subject": long}), true},
			{convJSON(map[string]any{"threads": []any{map[string]any{"type": "customer", "text": "x", "customer": map[string]any{"email": email}}}}), true},
			{convJSON(map[string]any{"threads": []any{map[string]any{"type": "reply", "text": "x", "cc": []string{email}}}}), true},
		},
		"PATCH /v2/conversations/:conversationId":                              {{`{"op":"replace","path":"/subject","value":` + L + `}`, true}},
		"DELETE /v2/conversations/:conversationId":                             {{"", false}},
		"PUT /v2/conversations/:conversationId/tags":                           {{`{"tags":` + T + `}`, true}, {`{"tags":[` + L + `]}`, true}},
		"PUT /v2/conversations/:conversationId/fields":                         {{`{"fields":[{"id":1,"value":` + L + `}]}`, false}},
		"PUT /v2/conversations/:conversationId/snooze":                         {{`{"snoozedUntil":` + L + `}`, true}},
		"DELETE /v2/conversations/:conversationId/snooze":                      {{"", false}},
		"POST /v2/conversations/:conversationId/merge":                         {{`{"targetId":` + L + `}`, true}},
		"POST /v2/conversations/:conversationId/reply":                         {{`{"text":"x","customer":{"email":` + E + `}}`, true}, {`{"text":"x","to":[` + E + `]}`, true}, {`{"text":` + L + `}`, false}},
		"POST /v2/conversations/:conversationId/notes":                         {{`{"text":"x","bcc":[` + E + `]}`, true}},
		"POST /v2/conversations/:conversationId/customer":                      {{`{"text":"x","customer":{"email":` + E + `}}`, true}},
		"POST /v2/conversations/:conversationId/phones":                        {{`{"text":"x","customer":{"email":` + E + `}}`, true}},
		"POST /v2/conversations/:conversationId/chats":                         {{`{"text":"x","customer":{"email":` + E + `}}`, true}},
		"PATCH /v2/conversations/:conversationId/threads/:threadId":            {{`{"op":"replace","path":"/text","value":` + L + `}`, false}},
		"PUT /v2/conversations/:conversationId/threads/:threadId/schedule":     {{`{"scheduledFor":` + L + `}`, true}},
		"DELETE /v2/conversations/:conversationId/threads/:threadId/schedule":  {{"", false}},
		"PATCH /v2/conversations/:conversationId/threads/:threadId/schedule":   {{`{"op":"replace","path":"/state","value":` + L + `}`, true}},
		"PUT /v2/conversations/:conversationId/threads/:threadId/rating":       {{`{"rating":"great","comments":` + L + `}`, true}},
		"POST /v2/conversations/:conversationId/threads/:threadId/attachments": {{`{"fileName":` + L + `,"mimeType":"text/plain","data":"eA=="}`, false}},
		"DELETE /v2/conversations/:conversationId/attachments/:attachmentId":   {{"", false}},
		"POST /v2/customers":                                        {{`{"firstName":"x","emails":[{"value":` + E + `}]}`, true}, {`{"firstName":` + L + `}`, true}},
		"PUT /v2/customers/:customerId":                             {{`{"firstName":` + L + `}`, true}},
		"PATCH /v2/customers/:customerId":                           {{`[{"op":"replace","path":"/firstName","value":` + L + `}]`, true}},
		"DELETE /v2/customers/:customerId":                          {{"", false}},
		"POST /v2/customers/:customerId/address":                    {{`{"city":` + L + `}`, true}},
		"PUT /v2/customers/:customerId/address":                     {{`{"city":` + L + `}`, true}},
		"DELETE /v2/customers/:customerId/address":                  {{"", false}},
		"PATCH /v2/customers/:customerId/properties":                {{`[{"op":"replace","path":"/tier","value":` + L + `}]`, true}, {`[{"op":"replace","path":"/` + long + `","value":"x"}]`, true}},
		"POST /v2/customer-properties":                              {{`{"slug":` + L + `,"name":"x","type":"text"}`, true}, {`{"slug":"ok","name":` + L + `,"type":"text"}`, true}},
		"DELETE /v2/customer-properties/:slug":                      {{"", false}},
		"POST /v2/organizations":                                    {{`{"name":` + L + `}`, true}, {`{"name":"x","domains":[` + L + `]}`, true}},
		"PUT /v2/organizations/:organizationId":                     {{`{"name":` + L + `}`, true}},
		"DELETE /v2/organizations/:organizationId":                  {{"", false}},
		"POST /v2/organizations/properties":                         {{`{"slug":` + L + `,"name":"x","type":"text"}`, true}, {`{"slug":"ok","name":` + L + `,"type":"text"}`, true}},
		"PUT /v2/organizations/properties/:slug":                    {{`{"name":` + L + `}`, true}},
		"DELETE /v2/organizations/properties/:slug":                 {{"", false}},
		"PUT /v2/organizations/:organizationId/properties/:slug":    {{`{"value":` + L + `}`, true}},
		"DELETE /v2/organizations/:organizationId/properties/:slug": {{"", false}},
		"POST /v2/users":                                            {{`{"firstName":"x","lastName":"y","email":` + E + `}`, true}, {`{"firstName":` + L + `,"lastName":"y","email":"n@example.com"}`, true}},
		"PUT /v2/users/:userId/status":                              {{`{"status":` + L + `}`, true}},
		"PUT /v2/tags/:tagId":                                       {{`{"name":` + L + `}`, true}},
		"DELETE /v2/tags/:tagId":                                    {{"", false}},
		"POST /v2/webhooks":                                         {{`{"url":"https://example.com/` + long + `","events":["convo.created"],"secret":"s"}`, true}, {`{"url":"https://example.com/h","events":["convo.created"],"secret":` + L + `}`, true}},
		"PUT /v2/webhooks/:webhookId":                               {{`{"url":"https://example.com/` + long + `","events":["convo.created"],"secret":"s"}`, true}},
		"DELETE /v2/webhooks/:webhookId":                            {{"", false}},
		"POST /v2/webhooks/:webhookId/deliveries/:deliveryId/retry": {{"", false}},
		"POST /v2/mailboxes/:mailboxId/saved-replies":               {{`{"name":` + L + `,"text":"x"}`, true}},
		"POST /v2/workflows": {{fmt.Sprintf(`{"mailboxId":%d,"name":`+L+`,"type":"manual","actions":[{"type":"note","text":"x"}]}`, supportID), true},
			{fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","conditions":[`+L+`],"actions":[{"type":"note","text":"x"}]}`, supportID), true},
			{fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","actions":[{"type":"add-tags","tags":`+T+`}]}`, supportID), true}},
		"PUT /v2/workflows/:workflowId":                               {{fmt.Sprintf(`{"mailboxId":%d,"name":`+L+`,"type":"manual","actions":[{"type":"note","text":"x"}]}`, supportID), true}},
		"PATCH /v2/workflows/:workflowId":                             {{`{"op":"replace","path":"/status","value":` + L + `}`, true}},
		"DELETE /v2/workflows/:workflowId":                            {{"", false}},
		"POST /v2/workflows/:workflowId/run":                          {{`{"conversationIds":[` + strings.Repeat("1,", 10000) + `1]}`, true}},
		"POST /v2/views":                                              {{`{"name":` + L + `}`, true}, {`{"name":"x","query":` + L + `}`, true}, {`{"name":"x","filters":{"tag":` + T + `}}`, true}},
		"PUT /v2/views/:viewId":                                       {{`{"name":` + L + `}`, true}},
		"DELETE /v2/views/:viewId":                                    {{"", false}},
		"PUT /v2/mailboxes/:mailboxId/routing":                        {{`{"state":` + L + `}`, true}, {`{"state":"enabled","assignmentLimit":1,"assignmentMethod":"balanced","userIds":[` + strings.Repeat("1,", 10000) + `1]}`, true}},
		"PUT /v2/mailboxes/:mailboxId/saved-replies/:savedReplyId":    {{`{"name":"x","text":"` + strings.Repeat("t", 50001) + `"}`, true}},
		"DELETE /v2/mailboxes/:mailboxId/saved-replies/:savedReplyId": {{"", false}},
		"PUT /v2/chats/:chatId/messages/:messageId":                   {{`{"body":` + L + `}`, false}},
		"PUT /v2/chats/:chatId/tags":                                  {{`{"tags":` + T + `}`, true}, {`{"tags":[` + L + `]}`, true}},
		"PUT /v2/chats/:chatId/end":                                   {{"", false}},
		"POST /v2/widgets/:widgetId/chats":                            {{`{"name":"V","email":` + E + `,"message":"hi"}`, true}, {`{"name":` + L + `,"email":"v@example.com","message":"hi"}`, true}, {`{"name":"V","email":"v@example.com","integration":` + L + `}`, true}},
		"POST /v2/widgets/:widgetId/chats/:chatId/messages":           {{`{"body":` + L + `}`, false}},
		"POST /v2/widgets/:widgetId/chats/:chatId/timeline":           {{`{"url":"https://example.com/` + long + `","title":"t"}`, true}, {`{"url":"https://example.com/","title":` + L + `}`, true}, {`{"url":"https://example.com/","type":` + L + `}`, true}},
		"POST /v2/oauth2/token":                                       {{"", false}, {`{"grant_type":"client_credentials","client_id":` + L + `,"client_secret":` + L + `}`, true}},
		"POST /transition":                                            {{`{"apiKey":` + L + `}`, false}},
		"POST /authentication/login":                                  {{"", false}},
		"POST /authentication/authorizeClientApplication":             {{"", false}},
		"POST /admin/companies": {{`{"name":"x","owner":{"email":` + E + `}}`, true}, {`{"name":` + L + `,"owner":{"email":"o@example.com"}}`, true},
			{`{"name":"x","owner":{"email":"o@example.com","password":` + L + `}}`, true}, {`{"name":"x","owner":{"email":"o@example.com"},"mailbox":{"name":` + L + `}}`, true}},
		"POST /admin/companies/:companyId/mailboxes":                    {{`{"name":` + L + `,"email":"m@example.com"}`, true}, {`{"name":"x","email":` + E + `}`, true}},
		"PATCH /admin/companies/:companyId/mailboxes/:mailboxId":        {{`{"name":` + L + `}`, true}, {`{"email":` + E + `}`, true}},
		"POST /admin/companies/:companyId/mailboxes/:mailboxId/fields":  {{`{"name":` + L + `,"type":"number"}`, true}, {`{"name":"x","type":"dropdown","options":[` + L + `]}`, true}},
		"POST /admin/companies/:companyId/mailboxes/:mailboxId/widgets": {{`{"id":` + L + `}`, true}},
	}
	for _, k := range []string{"emails", "phones", "chats", "social-profiles", "websites"} {
		body := `{"value":` + L + `}`
		if k == "emails" {
			body = `{"value":` + E + `}`
		}
		cases["POST /v2/customers/:customerId/"+k] = []probe{{body, true}}
		cases["PUT /v2/customers/:customerId/"+k+"/:entryId"] = []probe{{body, true}}
		cases["DELETE /v2/customers/:customerId/"+k+"/:entryId"] = []probe{{"", false}}
		pathIDs["entryId"] = entry[k] // the last kind's id; the others answer 404, never 5xx
	}

	param := regexp.MustCompile(`:[A-Za-z]+`)
	fill := func(route string) string {
		return param.ReplaceAllStringFunc(route, func(p string) string { return pathIDs[p[1:]] })
	}
	for _, r := range w.server.Routes() {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			continue
		}
		probes, ok := cases[r.Method+" "+r.Path]
		if !assert.True(t, ok, "write route %s %s has no over-long case", r.Method, r.Path) {
			continue
		}
		for i, p := range probes {
			t.Run(fmt.Sprintf("%s %s #%d", r.Method, r.Path, i), func(t *testing.T) {
				req := request{method: r.Method, path: fill(r.Path), token: ownerToken, body: p.body}
				if strings.HasPrefix(r.Path, "/admin/") {
					req.token = operatorToken
				}
				if strings.HasPrefix(r.Path, "/v2/widgets/") {
					req.token = ""
					req.header = map[string]string{"X-Visitor-Token": v.token}
				}
				rec := w.do(req)
				assert.Less(t, rec.Code, 500, rec.Body.String())
				if p.mustFail {
					assert.GreaterOrEqual(t, rec.Code, 400, "an over-long value is refused")
				}
				assert.LessOrEqual(t, rec.Body.Len(), 8<<10, "a refused value is not echoed whole")
			})
		}
	}
	// Every route that reads a JSON body refuses `null` and trailing
	// garbage with a 4xx, never acting on them (a `null` PUT once wiped a
	// customer) nor failing with a 5xx.
	for _, r := range w.server.Routes() {
		probes := cases[r.Method+" "+r.Path]
		if len(probes) == 0 || probes[0].body == "" && len(probes) == 1 {
			continue // reads no body
		}
		for _, body := range []string{"null", `{"name":"x"}}garbage`, `{} {}`} {
			t.Run(fmt.Sprintf("%s %s %s", r.Method, r.Path, body), func(t *testing.T) {
				req := request{method: r.Method, path: fill(r.Path), token: ownerToken, body: body}
				if strings.HasPrefix(r.Path, "/v2/widgets/") {
					req.token = ""
					req.header = map[string]string{"X-Visitor-Token": v.token}
				}
				rec := w.do(req)
				assert.GreaterOrEqual(t, rec.Code, 400, rec.Body.String())
				assert.Less(t, rec.Code, 500, rec.Body.String())
			})
		}
	}

	// Nothing of a refused write was kept: no tag of the 10,000, no long e-mail.
	assert.NotContains(t, w.get("/v2/tags").Body.String(), `"tag-0"`)
	assert.Empty(t, ids(t, w.get("/v2/customers?query="+url.QueryEscape("email:"+email[:30]+"*")), "customers"))
}
