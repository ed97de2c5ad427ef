package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matchEvents compares delivered events with wanted "kind id" strings in
// any order (deliveries about different records may arrive in any
// order); an id "*" matches any.
func matchEvents(t *testing.T, want []string, hits []hit) {
	t.Helper()
	got := events(hits)
	left := append([]string(nil), got...)
	for _, w := range want {
		kind, id, _ := strings.Cut(w, " ")
		found := -1
		for i, g := range left {
			gk, gid, _ := strings.Cut(g, " ")
			if gk == kind && (id == "*" || id == gid) {
				found = i
				break
			}
		}
		if !assert.GreaterOrEqual(t, found, 0, "missing %q in %q", w, got) {
			continue
		}
		left = append(left[:found], left[found+1:]...)
	}
	assert.Empty(t, left, "unexpected deliveries")
}

// replyID finds the id of a conversation's (last) reply thread.
func replyID(t *testing.T, w *world, conv int64) any {
	t.Helper()
	var reply any
	for _, th := range decode(t, w.get(fmt.Sprintf("/v2/conversations/%d/threads", conv)))["_embedded"].(map[string]any)["threads"].([]any) {
		if th.(map[string]any)["type"] == "message" {
			reply = th.(map[string]any)["id"]
		}
	}
	require.NotNil(t, reply, "conversation %d has no reply", conv)
	return reply
}

func TestWebhookEventsFromWritePaths(t *testing.T) {
	h := newHooks(t)
	hookID := h.hook(nil)
	h.deliver()
	matchEvents(t, []string{"helpscout.test *"}, h.recv.take())

	var conv, conv2, cust, bo, org, rated int64
	var chat *visitor
	tagID := func(name string) string {
		for _, it := range decode(t, h.get("/v2/tags"))["_embedded"].(map[string]any)["tags"].([]any) {
			if tag := it.(map[string]any); tag["name"] == name {
				return fmt.Sprint(tag["id"])
			}
		}
		return "?"
	}
	c := func() string { return fmt.Sprint(conv) }
	path := func() string { return fmt.Sprintf("/v2/conversations/%d", conv) }
	rows := []struct {
		name  string
		write func()
		want  func() []string
	}{
		{"create a conversation (new customer, new tag)", func() {
			conv = h.create(convJSON(map[string]any{"customer": customer("wh@example.com"), "tags": []string{"vip"}}))
			cust = int64(decode(t, h.get(path()))["primaryCustomer"].(map[string]any)["id"].(float64))
		}, func() []string {
			return []string{"customer.created " + fmt.Sprint(cust), "tag.created " + tagID("vip"), "convo.created " + c()}
		}},
		{"reply", func() { h.send("POST", path()+"/reply", `{"text":"On its way"}`, 201) },
			func() []string { return []string{"convo.agent.reply.created " + c()} }},
		{"note", func() { h.send("POST", path()+"/notes", `{"text":"Check the carrier"}`, 201) },
			func() []string { return []string{"convo.note.created " + c()} }},
		{"customer thread", func() {
			h.send("POST", path()+"/customer", `{"customer":{"email":"wh@example.com"},"text":"Thanks"}`, 201)
		},
			func() []string { return []string{"convo.customer.reply.created " + c()} }},
		{"status", func() { h.send("PATCH", path(), `{"op":"replace","path":"/status","value":"closed"}`, 204) },
			func() []string { return []string{"convo.status " + c()} }},
		{"a closed conversation reopened by a customer reply", func() {
			h.send("POST", path()+"/customer", `{"customer":{"email":"wh@example.com"},"text":"Still broken"}`, 201)
		},
			func() []string { return []string{"convo.customer.reply.created " + c(), "convo.status " + c()} }},
		{"assign", func() {
			h.send("PATCH", path(), fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, adminID), 204)
		},
			func() []string { return []string{"convo.assigned " + c()} }},
		{"unassign emits convo.assigned too", func() { h.send("PATCH", path(), `{"op":"remove","path":"/assignTo"}`, 204) },
			func() []string { return []string{"convo.assigned " + c()} }},
		{"custom fields", func() {
			h.send("PUT", path()+"/fields", fmt.Sprintf(`{"fields":[{"id":%d,"value":"2027-01-01"}]}`, h.fields["Renewal date"].ID), 204)
		}, func() []string { return []string{"convo.custom-fields " + c()} }},
		{"tags (one new)", func() { h.clock.advance(60e9); h.send("PUT", path()+"/tags", `{"tags":["vip","refund"]}`, 204) },
			func() []string { return []string{"tag.created " + tagID("refund"), "convo.tags " + c()} }},
		{"the same tags again change nothing", func() { h.send("PUT", path()+"/tags", `{"tags":["refund","vip"]}`, 204) },
			func() []string { return nil }},
		{"move", func() {
			h.send("PATCH", path(), fmt.Sprintf(`{"op":"move","path":"/mailboxId","value":%d}`, billingID), 204)
		},
			func() []string { return []string{"convo.moved " + c()} }},
		{"another conversation of the customer", func() {
			conv2 = h.create(convJSON(map[string]any{"customer": customer("wh@example.com"), "mailboxId": billingID}))
		}, func() []string { return []string{"convo.created " + fmt.Sprint(conv2)} }},
		{"merge it into the first", func() {
			h.send("POST", fmt.Sprintf("/v2/conversations/%d/merge", conv2), fmt.Sprintf(`{"targetId":%d}`, conv), 204)
		},
			func() []string { return []string{"convo.merged " + c()} }},
		{"delete the conversation", func() { h.send("DELETE", path(), "", 204) },
			func() []string { return []string{"convo.deleted " + c()} }},
		{"create a customer", func() {
			bo = h.newCustomer(map[string]any{"firstName": "Bo", "emails": []any{map[string]any{"type": "work", "value": "bo@example.com"}}})
		},
			func() []string { return []string{"customer.created " + fmt.Sprint(bo)} }},
		{"overwrite the customer", func() { h.must("PUT", fmt.Sprintf("/v2/customers/%d", bo), map[string]any{"firstName": "Bob"}, 204) },
			func() []string { return []string{"customer.updated " + fmt.Sprint(bo)} }},
		{"patch the customer (creating an organization by name)", func() {
			h.must("PATCH", fmt.Sprintf("/v2/customers/%d", bo), `[{"op":"replace","path":"/organization","value":"Hooli"}]`, 204)
		}, func() []string { return []string{"customer.updated " + fmt.Sprint(bo), "organization.created *"} }},
		{"add a customer phone", func() {
			h.must("POST", fmt.Sprintf("/v2/customers/%d/phones", bo), map[string]any{"type": "work", "value": "555-0100"}, 201)
		},
			func() []string { return []string{"customer.updated " + fmt.Sprint(bo)} }},
		{"create an organization", func() { org = h.newOrganization(map[string]any{"name": "Initech"}) },
			func() []string { return []string{"organization.created " + fmt.Sprint(org)} }},
		{"update the organization", func() {
			h.must("PUT", fmt.Sprintf("/v2/organizations/%d", org), map[string]any{"name": "Initrode"}, 204)
		},
			func() []string { return []string{"organization.updated " + fmt.Sprint(org)} }},
		{"delete the organization", func() { h.must("DELETE", fmt.Sprintf("/v2/organizations/%d", org), nil, 204) },
			func() []string { return []string{"organization.deleted " + fmt.Sprint(org)} }},
		{"delete a customer", func() { h.must("DELETE", fmt.Sprintf("/v2/customers/%d", cust), nil, 204) },
			func() []string { return []string{"customer.deleted " + fmt.Sprint(cust)} }},
		{"user status", func() {
			h.must("PUT", fmt.Sprintf("/v2/users/%d/status", agentID), map[string]any{"status": "away"}, 204)
		},
			func() []string { return []string{fmt.Sprintf("user.status.changed %d", agentID)} }},
		{"a visitor starts a chat", func() {
			chat = h.startChat(supportWidget, `{"name":"Vi Visitor","email":"vi@example.com","message":"Hello"}`)
		},
			func() []string { return []string{"customer.created *", "beacon.chat.created " + chat.chat} }},
		{"the visitor writes", func() { require.Equal(t, 201, chat.do("POST", "/messages", `{"body":"Anyone?"}`).code) },
			func() []string { return []string{"beacon.chat.customer.replied " + chat.chat} }},
		{"an agent ends the chat", func() {
			code, _ := h.agent(ownerToken, "PUT", "/v2/chats/"+chat.chat+"/end", `{"status":"closed"}`)
			require.Equal(t, http.StatusOK, code)
		}, func() []string { return []string{"widget.chat.ended " + chat.chat, "convo.created *"} }},
		{"a satisfaction rating of a reply", func() {
			rated = h.create(convJSON(map[string]any{"customer": customer("wh@example.com"),
				"threads": []any{thread("customer", "Hi"), thread("reply", "Hello")}}))
			h.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", rated, replyID(t, h.world, rated)), `{"rating":"great","comments":"Quick and kind"}`, 204)
		}, func() []string {
			// the customer of the table was deleted by an earlier row: created anew
			return []string{"customer.created *", "convo.created " + fmt.Sprint(rated), "satisfaction.ratings " + fmt.Sprint(rated),
				"message.survey.response.received "}
		}},
		{"rename a tag", func() { h.send("PUT", "/v2/tags/"+tagID("vip"), `{"name":"very important"}`, 204) },
			func() []string { return []string{"tag.updated " + tagID("very important")} }},
		{"delete a tag", func() { h.send("DELETE", "/v2/tags/"+tagID("very important"), "", 204) },
			func() []string { return []string{"tag.deleted *"} }},
	}
	for _, row := range rows {
		row.write()
		h.deliver()
		hits := h.recv.take()
		matchEvents(t, row.want(), hits)
		switch row.name {
		case "create a conversation (new customer, new tag)":
			for _, hit := range hits {
				switch hit.Event {
				case "convo.created":
					var want map[string]any
					require.NoError(t, json.Unmarshal(h.get(path()+"?embed=threads").Body.Bytes(), &want))
					assert.Equal(t, want, hit.Body, "the payload is the conversation as GET renders it, threads embedded")
				case "customer.created":
					assert.Equal(t, h.readCustomer(cust), hit.Body, "the payload is the customer as GET renders it")
				}
			}
		case "tags (one new)":
			assert.Equal(t, []int64{conv}, ids(t, h.get("/v2/conversations?status=all&modifiedSince=2026-11-21T12:01:00Z"), "conversations"),
				"a tag change bumps modifiedAt")
		case "a satisfaction rating of a reply":
			for _, hit := range hits {
				if hit.Event == "message.survey.response.received" {
					goldenJSON(t, "webhooks/survey_response", []byte(hit.Raw))
				}
			}
		case "delete the conversation", "delete the organization", "delete a customer":
			require.Len(t, hits, 1)
			assert.JSONEq(t, fmt.Sprintf(`{"id":%s}`, strings.Fields(row.want()[0])[1]), hits[0].Raw, "delete events carry only the id")
		}
		if t.Failed() {
			t.Fatalf("row %q", row.name)
		}
	}
	for _, d := range h.deliveries(hookID) {
		assert.Equal(t, "delivered", d["status"])
	}
}
