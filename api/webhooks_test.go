package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhookConfiguration(t *testing.T) {
	h := newHooks(t)
	url := h.recv.srv.URL + "/hook"
	host := strings.TrimPrefix(h.recv.srv.URL, "http://")
	id := h.hook(map[string]any{"events": []string{"convo.created", "convo.created", "customer.created"}, "mailboxIds": []int{billingID}})
	rec := h.get(fmt.Sprintf("/v2/webhooks/%d", id))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	self := fmt.Sprintf("https://api.parley.test/v2/webhooks/%d", id)
	assert.Equal(t, map[string]any{
		"id": float64(id), "url": url, "label": host, "events": []any{"convo.created", "customer.created"},
		"mailboxIds": []any{float64(billingID)}, "notification": false, "payloadVersion": "V2", "state": "enabled",
		"createdAt": "2026-11-21T12:00:00Z", "updatedAt": "2026-11-21T12:00:00Z",
		"_links": map[string]any{"self": map[string]any{"href": self}, "deliveries": map[string]any{"href": self + "/deliveries"}},
	}, decode(t, rec), "label falls back to the URL's host; the secret is never shown; events deduplicated")

	created := h.call(ownerToken, http.MethodPost, "/v2/webhooks", map[string]any{"url": url, "secret": "x", "events": []string{"tag.created"}, "label": "CRM", "notification": true, "payloadVersion": "V2"})
	second := resourceID(t, created)
	assert.Equal(t, fmt.Sprintf("https://api.parley.test/v2/webhooks/%d", second), created.Header().Get("Location"))

	h.clock.advance(60e9)
	h.must(http.MethodPut, fmt.Sprintf("/v2/webhooks/%d", second), map[string]any{"url": "https://hooks.example.com/x", "secret": "y", "events": []string{"tag.created"}}, http.StatusNoContent)
	got := decode(t, h.get(fmt.Sprintf("/v2/webhooks/%d", second)))
	assert.Equal(t, []any{"hooks.example.com", false, "2026-11-21T12:01:00Z"}, []any{got["label"], got["notification"], got["updatedAt"]}, "PUT overwrites: absent label and notification take their defaults")

	list := decode(t, h.get("/v2/webhooks"))
	assert.Len(t, list["_embedded"].(map[string]any)["webhooks"], 2)
	assert.Equal(t, float64(2), list["page"].(map[string]any)["totalElements"])

	assert.Equal(t, http.StatusNotFound, h.call(globexToken, http.MethodGet, fmt.Sprintf("/v2/webhooks/%d", id), nil).Code, "another company's webhook")
	assert.Equal(t, http.StatusForbidden, h.call(userToken, http.MethodGet, "/v2/webhooks", nil).Code, "only owners and administrators")
	h.must(http.MethodDelete, fmt.Sprintf("/v2/webhooks/%d", second), nil, http.StatusNoContent)
	assert.Equal(t, http.StatusNotFound, h.get(fmt.Sprintf("/v2/webhooks/%d", second)).Code)
	assert.Equal(t, http.StatusNotFound, h.get(fmt.Sprintf("/v2/webhooks/%d/deliveries", second)).Code)
}

func TestWebhookValidation(t *testing.T) {
	h := newHooks(t)
	secure := newWorld(t)
	local := h.recv.srv.URL + "/hook"
	valid := func(change func(m map[string]any)) map[string]any {
		m := map[string]any{"url": local, "secret": hookSecret, "events": []string{"convo.created"}}
		change(m)
		return m
	}
	cases := []struct {
		name     string
		w        *world
		token    string
		body     map[string]any
		status   int
		path     string
		code     string
		contains string
	}{
		{"no url", h.world, ownerToken, valid(func(m map[string]any) { delete(m, "url") }), 400, "url", "Null value", ""},
		{"plain http to another host", h.world, ownerToken, valid(func(m map[string]any) { m["url"] = "http://example.com/hook" }), 400, "url", "Value not supported", "https"},
		{"loopback http when not insecure", secure, ownerToken, valid(func(m map[string]any) {}), 400, "url", "Value not supported", "https"},
		{"not a URL", h.world, ownerToken, valid(func(m map[string]any) { m["url"] = "hooks" }), 400, "url", "Value not supported", ""},
		{"no events", h.world, ownerToken, valid(func(m map[string]any) { m["events"] = []string{} }), 400, "events", "Empty value", ""},
		{"unknown event", h.world, ownerToken, valid(func(m map[string]any) { m["events"] = []string{"convo.created", "convo.exploded"} }), 400, "events[1]", "List Of Enum Values", ""},
		{"the test event cannot be subscribed", h.world, ownerToken, valid(func(m map[string]any) { m["events"] = []string{"helpscout.test"} }), 400, "events[0]", "List Of Enum Values", ""},
		{"no secret", h.world, ownerToken, valid(func(m map[string]any) { delete(m, "secret") }), 400, "secret", "Null value", ""},
		{"secret too long", h.world, ownerToken, valid(func(m map[string]any) { m["secret"] = strings.Repeat("s", 41) }), 400, "secret", "Size", ""},
		{"payload V1 is retired", h.world, ownerToken, valid(func(m map[string]any) { m["payloadVersion"] = "V1" }), 400, "payloadVersion", "Value not supported", "retired"},
		{"payload V3", h.world, ownerToken, valid(func(m map[string]any) { m["payloadVersion"] = "V3" }), 400, "payloadVersion", "Value not supported", ""},
		{"another company's mailbox", h.world, ownerToken, valid(func(m map[string]any) { m["mailboxIds"] = []int{globexMailboxID} }), 400, "mailboxIds[0]", "Invalid identifier", ""},
		{"a user may not", h.world, userToken, valid(func(m map[string]any) {}), 403, "", "Access denied", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.w.call(tc.token, http.MethodPost, "/v2/webhooks", tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			item := decode(t, rec)["_embedded"].(map[string]any)["errors"].([]any)[0].(map[string]any)
			assert.Equal(t, tc.code, item["code"])
			if tc.path != "" {
				assert.Equal(t, tc.path, item["path"])
			}
			assert.Contains(t, item["message"], tc.contains)
			assert.NotContains(t, rec.Body.String(), strings.Repeat("s", 41), "a secret is never echoed")
		})
	}
	rec := secure.call(ownerToken, http.MethodPost, "/v2/webhooks", valid(func(m map[string]any) { m["url"] = "https://hooks.example.com/parley" }))
	assert.Equal(t, http.StatusCreated, rec.Code, "https is accepted without insecure mode")
}

// helpScoutEvents is the list of events Help Scout's Create Webhook and
// Update Webhook docs accept.
var helpScoutEvents = []string{"beacon.chat.created", "beacon.chat.customer.replied", "convo.agent.reply.created",
	"convo.assigned", "convo.created", "convo.custom-fields", "convo.customer.reply.created", "convo.deleted",
	"convo.merged", "convo.moved", "convo.note.created", "convo.status", "convo.tags", "customer.created",
	"customer.deleted", "customer.updated", "message.survey.response.received", "satisfaction.ratings",
	"tag.created", "tag.deleted", "tag.updated"}

func TestWebhookAcceptsEveryDocumentedEvent(t *testing.T) {
	h := newHooks(t)
	for _, event := range helpScoutEvents {
		t.Run(event, func(t *testing.T) {
			body := map[string]any{"url": h.recv.srv.URL + "/hook", "secret": hookSecret, "events": []string{event}}
			rec := h.call(ownerToken, http.MethodPost, "/v2/webhooks", body)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			h.must(http.MethodPut, "/v2/webhooks/"+rec.Header().Get("Resource-ID"), body, http.StatusNoContent)
		})
	}
	t.Run("all at once", func(t *testing.T) {
		rec := h.call(ownerToken, http.MethodPost, "/v2/webhooks", map[string]any{"url": h.recv.srv.URL + "/hook", "secret": hookSecret, "events": helpScoutEvents})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	})
}
