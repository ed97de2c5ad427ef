package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// send makes a write as the owner and requires its status.
func (w *world) send(method, path, body string, status int) map[string]any {
	w.t.Helper()
	rec := w.do(request{method: method, path: path, token: ownerToken, body: body})
	require.Equal(w.t, status, rec.Code, "%s %s: %s", method, path, rec.Body.String())
	if rec.Body.Len() > 0 {
		return decode(w.t, rec)
	}
	return nil
}

// conv reads a conversation with its threads.
func (w *world) conv(id int64) map[string]any {
	w.t.Helper()
	rec := w.get(fmt.Sprintf("/v2/conversations/%d?embed=threads", id))
	require.Equal(w.t, http.StatusOK, rec.Code, rec.Body.String())
	return decode(w.t, rec)
}

// found reports whether a search of every status finds the conversation.
func (w *world) found(id int64, q string) bool {
	w.t.Helper()
	for _, got := range ids(w.t, w.get("/v2/conversations?status=all&query="+url.QueryEscape(q)), "conversations") {
		if got == id {
			return true
		}
	}
	return false
}

// wake runs the scheduler once at the test clock's time.
func (w *world) wake() int {
	w.t.Helper()
	report, err := w.workflows.Wake(context.Background(), w.store, w.clock.Now())
	require.NoError(w.t, err)
	require.Empty(w.t, report.Failed)
	w.indexed(report.Seq)
	return report.Woken
}

// company changes the seeded company's settings.
func (w *world) company(id int64, change func(*parley.Company)) {
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		c, err := tx.Company(id)
		if err != nil {
			return err
		}
		change(c)
		return tx.PutCompany(c)
	})
	require.NoError(w.t, err)
}

func threadTypes(c map[string]any) []string {
	var out []string
	for _, t := range c["_embedded"].(map[string]any)["threads"].([]any) {
		out = append(out, t.(map[string]any)["type"].(string))
	}
	return out
}

func TestThreadTransitions(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	min := func(n int) string { return parley.FormatTime(epoch.Add(time.Duration(n) * time.Minute)) }

	c := w.conv(id)
	assert.Equal(t, float64(1), c["threads"])
	assert.Equal(t, min(0), field(t, c, "customerWaitingSince", "time"))
	assert.True(t, w.found(id, "status:active AND assigned:Unassigned"))

	// An agent's reply closing the conversation: the customer no longer waits.
	w.clock.advance(5 * time.Minute)
	w.send("POST", path+"/reply", `{"text":"Your parcel left today.","status":"closed"}`, http.StatusCreated)
	c = w.conv(id)
	assert.Equal(t, "closed", c["status"])
	assert.Equal(t, float64(2), c["threads"])
	assert.Equal(t, map[string]any{"time": min(5), "friendly": "just now", "latestReplyFrom": "user"}, c["customerWaitingSince"],
		"answered: the object stays, with the last user action")
	assert.Equal(t, min(5), c["userUpdatedAt"])
	assert.Equal(t, min(5), c["closedAt"])
	assert.Equal(t, "Your parcel left today.", c["preview"])
	assert.Equal(t, []string{"message", "customer"}, threadTypes(c), "newest first")
	assert.Equal(t, "closed", c["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["status"])
	assert.Equal(t, float64(folderID(t, w, supportID, "closed")), c["folderId"])
	assert.True(t, w.found(id, "status:closed AND replyUserIds:1"))
	assert.False(t, w.found(id, "status:active"))

	// Help Scout's docs: a customer thread reopens a closed conversation.
	w.clock.advance(5 * time.Minute)
	w.send("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"It has not arrived."}`, http.StatusCreated)
	c = w.conv(id)
	assert.Equal(t, "active", c["status"])
	assert.Nil(t, c["closedAt"])
	assert.Equal(t, min(10), field(t, c, "customerWaitingSince", "time"))
	assert.Equal(t, min(10), c["userUpdatedAt"], "no user acted since the customer")
	assert.True(t, w.found(id, "status:active"))

	// Phone and chat threads are customer kinds too.
	for _, kind := range []string{"phones", "chats"} {
		w.send("PATCH", path, `{"op":"replace","path":"/status","value":"closed"}`, http.StatusNoContent)
		w.send("POST", path+"/"+kind, `{"customer":{"email":"alice@example.com"},"text":"Hello again"}`, http.StatusCreated)
		assert.Equal(t, "active", w.conv(id)["status"], kind)
	}

	// An imported customer thread does not reopen.
	w.send("PATCH", path, `[{"op":"replace","path":"/status","value":"closed"}]`, http.StatusNoContent)
	w.send("POST", path+"/customer", `{"customer":{"email":"alice@example.com"},"text":"Old mail","imported":true,"createdAt":"2026-01-01T00:00:00Z"}`, http.StatusCreated)
	c = w.conv(id)
	assert.Equal(t, "closed", c["status"])
	assert.True(t, w.found(id, "status:closed"))

	// Notes are not counted and do not change the preview.
	before := c["threads"]
	w.send("POST", path+"/notes", `{"text":"Internal: check the courier."}`, http.StatusCreated)
	c = w.conv(id)
	assert.Equal(t, before, c["threads"])
	assert.Equal(t, "Hello again", c["preview"])

	// A reply without a status follows the inbox setting.
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		m, err := tx.Mailbox(acmeID, supportID)
		if err != nil {
			return err
		}
		m.DefaultStatus = parley.StatusPending
		return tx.PutMailbox(m)
	})
	require.NoError(t, err)
	w.send("POST", path+"/reply", `{"text":"Following up."}`, http.StatusCreated)
	assert.Equal(t, "pending", w.conv(id)["status"])

	// The thread list shows line items with their action, newest first.
	rec := w.get(path + "/threads")
	require.Equal(t, http.StatusOK, rec.Code)
	threads := field(t, decode(t, rec), "_embedded", "threads").([]any)
	var actions []string
	for _, th := range threads {
		if a, ok := th.(map[string]any)["action"]; ok {
			actions = append(actions, a.(map[string]any)["text"].(string))
		}
	}
	assert.Equal(t, []string{"Marked as closed", "Marked as closed", "Marked as closed"}, actions)
}

func TestThreadAuthorsAndErrors(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	w.send("POST", path+"/reply", fmt.Sprintf(`{"text":"Hi","user":%d}`, adminID), http.StatusCreated)
	assert.Equal(t, float64(adminID), w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["createdBy"].(map[string]any)["id"])
	for _, tc := range []struct {
		name, kind, body string
		status           int
		code             string
	}{
		{"inactive author", "reply", fmt.Sprintf(`{"text":"x","user":%d}`, inactiveID), http.StatusForbidden, "Invalid Thread Author"},
		{"author of another company", "notes", fmt.Sprintf(`{"text":"x","user":%d}`, globexOwnerID), http.StatusForbidden, "Invalid Thread Author"},
		{"createdAt without imported", "customer", `{"customer":{"email":"alice@example.com"},"text":"x","createdAt":"2026-01-01T00:00:00Z"}`, http.StatusBadRequest, "Valid Imported Thread"},
		{"missing text", "reply", `{}`, http.StatusBadRequest, "Null value"},
		{"bad status", "reply", `{"text":"x","status":"done"}`, http.StatusBadRequest, "Enum Value"},
		{"assignTo one", "reply", `{"text":"x","assignTo":1}`, http.StatusBadRequest, "Invalid number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: "POST", path: path + "/" + tc.kind, token: ownerToken, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			assert.Equal(t, tc.code, errorCode(t, decode(t, rec)))
		})
	}
	rec := w.do(request{method: "POST", path: path + "/reply", token: globexToken, body: `{"text":"x"}`})
	assert.Equal(t, http.StatusNotFound, rec.Code, "another company's conversation")
}

func TestCustomerAndChatThreadsNameTheirCustomer(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	alice := field(t, w.conv(id), "primaryCustomer", "id")
	for _, tc := range []struct {
		kind, body string
		status     int
		errors     []string
	}{
		{"customer", `{"text":"Any news?"}`, http.StatusBadRequest, []string{"customer: Null value"}},
		{"chats", `{"text":"Any news?"}`, http.StatusBadRequest, []string{"customer: Null value"}},
		{"customer", `{"text":"Any news?","customer":null}`, http.StatusBadRequest, []string{"customer: Null value"}},
		{"customer", `{"text":"Any news?","customer":{"email":"alice@example.com"}}`, http.StatusCreated, nil},
		{"chats", fmt.Sprintf(`{"text":"Any news?","customer":{"id":%v}}`, alice), http.StatusCreated, nil},
		{"phones", `{"text":"Called"}`, http.StatusCreated, nil}, // a user logs the call; the docs do not require it
	} {
		t.Run(tc.kind+" "+tc.body, func(t *testing.T) {
			before := w.conv(id)["threads"]
			rec := w.do(request{method: "POST", path: path + "/" + tc.kind, token: ownerToken, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.errors == nil {
				return
			}
			assert.Equal(t, tc.errors, errorSummary(t, rec))
			assert.Equal(t, "may not be null: name the customer who wrote the thread (id or email)", firstError(t, rec)["message"])
			assert.Equal(t, before, w.conv(id)["threads"], "no thread written")
		})
	}
}

func TestThreadLimitOnAdd(t *testing.T) {
	w := newWorld(t)
	withThreads := func(n int) int64 {
		threads := make([]any, n)
		for i := range threads {
			threads[i] = thread("customer", fmt.Sprintf("Message %d", i))
		}
		return w.create(convJSON(map[string]any{"threads": threads}))
	}
	add := func(id int64) int {
		return w.do(request{method: "POST", path: fmt.Sprintf("/v2/conversations/%d/notes", id), token: ownerToken, body: `{"text":"one more"}`}).Code
	}
	at98 := withThreads(98)
	assert.Equal(t, http.StatusCreated, add(at98), "98 threads: a 99th may be added")
	assert.Equal(t, http.StatusPreconditionFailed, add(at98), "99 threads: the API refuses adding")
	assert.Equal(t, http.StatusPreconditionFailed, add(withThreads(99)), "created with 99: adding is refused")
	assert.Equal(t, http.StatusPreconditionFailed, add(withThreads(100)), "created with 100: adding is refused")
	rec := w.do(request{method: "POST", path: fmt.Sprintf("/v2/conversations/%d/notes", at98), token: ownerToken, body: `{"text":"x"}`})
	assert.Equal(t, "Conversation Locked - Too many threads", errorCode(t, decode(t, rec)))
}

func TestOldConversationLock(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	w.company(acmeID, func(c *parley.Company) { c.LockAfterDays = 30 })
	w.clock.advance(30 * 24 * time.Hour)
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/notes", id), `{"text":"still fine"}`, http.StatusCreated)
	w.clock.advance(time.Minute)
	body := w.send("POST", fmt.Sprintf("/v2/conversations/%d/notes", id), `{"text":"too late"}`, http.StatusPreconditionFailed)
	assert.Equal(t, "Conversation Locked - Conversation is too old", errorCode(t, body))
}

func TestPatchConversation(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"fields": []any{map[string]any{"id": w.fields["Account value"].ID, "value": "10"}}}))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	patch := func(body string) { w.send("PATCH", path, body, http.StatusNoContent) }

	patch(`{"op":"replace","path":"/subject","value":"Parcel lost in transit"}`)
	assert.True(t, w.found(id, "subject:transit"))

	patch(fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, agentID))
	c := w.conv(id)
	assert.Equal(t, float64(agentID), field(t, c, "assignee", "id"))
	assert.Equal(t, float64(folderID(t, w, supportID, "assigned")), c["folderId"])
	assert.True(t, w.found(id, `assigned:"Uma Agent"`))

	patch(`{"op":"remove","path":"/assignTo"}`)
	assert.Nil(t, w.conv(id)["assignee"])
	assert.True(t, w.found(id, "assigned:Unassigned"))

	patch(fmt.Sprintf(`{"op":"move","path":"/mailboxId","value":%d}`, billingID))
	c = w.conv(id)
	assert.Equal(t, float64(billingID), c["mailboxId"])
	assert.Equal(t, []any{}, c["customFields"], "Billing defines no custom fields")
	assert.Equal(t, float64(folderID(t, w, billingID, "unassigned")), c["folderId"])
	assert.True(t, w.found(id, "mailboxid:2 AND mailbox:billing"))
	patch(fmt.Sprintf(`{"op":"replace","path":"/mailboxId","value":%d}`, supportID))

	other := w.create(convJSON(map[string]any{"customer": customer("zoe@example.com")}))
	zoe := field(t, w.conv(other), "primaryCustomer", "id")
	patch(fmt.Sprintf(`{"op":"replace","path":"/primaryCustomer.id","value":%v}`, zoe))
	assert.True(t, w.found(id, "email:zoe@example.com"))

	patch(`[{"op":"replace","path":"/status","value":"spam"},{"op":"replace","path":"/subject","value":"Spam!"}]`)
	c = w.conv(id)
	assert.Equal(t, "spam", c["status"])
	assert.Equal(t, float64(folderID(t, w, supportID, "spam")), c["folderId"])
	assert.Equal(t, []int64{id}, ids(t, w.get("/v2/conversations?status=spam"), "conversations"))

	for _, tc := range []struct{ name, body, code string }{
		{"add is not allowed", `{"op":"add","path":"/subject","value":"x"}`, "Allowed Patch Operations"},
		{"unknown path", `{"op":"replace","path":"/number","value":5}`, "Allowed Patch Operations"},
		{"bad status", `{"op":"replace","path":"/status","value":"done"}`, "Enum Value"},
		{"unknown assignee", `{"op":"replace","path":"/assignTo","value":999}`, "Valid Conversation Owner"},
		{"empty subject", `{"op":"replace","path":"/subject","value":" "}`, "Empty value"},
		{"not a patch", `"subject"`, "Invalid JSON"},
		{"empty array", `[]`, "Empty value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := w.send("PATCH", path, tc.body, http.StatusBadRequest)
			assert.Equal(t, tc.code, errorCode(t, body))
		})
	}
	assert.Equal(t, "Spam!", w.conv(id)["subject"], "a refused patch changes nothing")
}

func TestPublishDraft(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"threads": []any{map[string]any{"type": "reply", "text": "Draft", "draft": true}}}))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	assert.Equal(t, "draft", w.conv(id)["state"])
	w.send("PATCH", path, `{"op":"replace","path":"/draft","value":false}`, http.StatusNoContent)
	c := w.conv(id)
	assert.Equal(t, "published", c["state"])
	assert.Equal(t, float64(1), c["threads"])
	assert.Equal(t, "Draft", c["preview"])
}

func TestTagsAndFields(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"tags": []string{"old"}}))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	w.send("PUT", path+"/tags", `{"tags":["Urgent","vip"]}`, http.StatusNoContent)
	assert.True(t, w.found(id, "tag:urgent AND tag:vip AND NOT tag:old"))
	w.send("PUT", path+"/tags", `{"tags":[]}`, http.StatusNoContent)
	assert.Equal(t, []any{}, w.conv(id)["tags"])

	f := w.fields
	body := func(values ...string) string {
		return fmt.Sprintf(`{"fields":[%s]}`, join(values))
	}
	w.send("PUT", path+"/fields", body(fmt.Sprintf(`{"id":%d,"value":"2027-03-01"}`, f["Renewal date"].ID),
		fmt.Sprintf(`{"id":%d,"value":"%d"}`, f["Priority"].ID, f["Priority"].Options[1].ID)), http.StatusNoContent)
	assert.True(t, w.found(id, fmt.Sprintf("cf%d:%d", f["Priority"].ID, f["Priority"].Options[1].ID)))
	assert.Len(t, w.conv(id)["customFields"], 2)

	for _, tc := range []struct{ name, body, code string }{
		{"required field missing", body(fmt.Sprintf(`{"id":%d,"value":"5"}`, f["Account value"].ID)), "Empty value"},
		{"bad dropdown", body(fmt.Sprintf(`{"id":%d,"value":"2027-03-01"}`, f["Renewal date"].ID), fmt.Sprintf(`{"id":%d,"value":"0"}`, f["Priority"].ID)), "Value not supported"},
		{"bad date", body(fmt.Sprintf(`{"id":%d,"value":"March"}`, f["Renewal date"].ID)), "Malformed date"},
		{"no fields", `{}`, "Null value"},
		{"empty tag", `{"tags":[" "]}`, "Empty value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := path + "/fields"
			if tc.name == "empty tag" {
				target = path + "/tags"
			}
			resp := w.send("PUT", target, tc.body, http.StatusBadRequest)
			assert.Equal(t, tc.code, errorCode(t, resp))
		})
	}
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}

func TestDeleteConversation(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	keep := w.create(convJSON(nil))
	customerPath := fmt.Sprintf("/v2/customers/%v", field(t, w.conv(id), "primaryCustomer", "id"))
	assert.Equal(t, float64(2), decode(t, w.get(customerPath))["conversationCount"])
	w.send("DELETE", fmt.Sprintf("/v2/conversations/%d", id), "", http.StatusNoContent)
	assert.Equal(t, http.StatusNotFound, w.get(fmt.Sprintf("/v2/conversations/%d", id)).Code)
	assert.Equal(t, []int64{keep}, ids(t, w.get("/v2/conversations?status=all"), "conversations"))
	assert.False(t, w.found(id, fmt.Sprintf("id:%d", id)))
	assert.Equal(t, float64(1), decode(t, w.get(customerPath))["conversationCount"])
	w.send("DELETE", fmt.Sprintf("/v2/conversations/%d", id), "", http.StatusNotFound)
}

// TestLineItemThreads checks the fields the real thread object carries on
// line items: the status a status change set, the assignee an assignment
// made, and nochange/null otherwise.
func TestLineItemThreads(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	w.send("PATCH", path, fmt.Sprintf(`[{"op":"replace","path":"/status","value":"pending"},{"op":"replace","path":"/assignTo","value":%d},{"op":"remove","path":"/assignTo"}]`, agentID), http.StatusNoContent)
	type item struct {
		Action               string
		Status               any
		AssignedTo           any
		LinkedConversationID any
	}
	var got []item
	for _, th := range w.conv(id)["_embedded"].(map[string]any)["threads"].([]any) {
		m := th.(map[string]any)
		it := item{Status: m["status"], LinkedConversationID: m["linkedConversationId"]}
		if a, ok := m["action"].(map[string]any); ok {
			it.Action = a["type"].(string)
		}
		if p, ok := m["assignedTo"].(map[string]any); ok {
			it.AssignedTo = p["id"]
		} else {
			it.AssignedTo = m["assignedTo"]
		}
		got = append(got, it)
	}
	assert.Equal(t, []item{ // newest first; equal times by id, descending
		{"assigned", "nochange", nil, nil},
		{"assigned", "nochange", float64(agentID), nil},
		{"changed-ticket-status", "pending", nil, nil},
		{"", "active", nil, nil}, // the thread that created the conversation set its status
	}, got)
}

func TestThreadsV3(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	v2 := w.get(fmt.Sprintf("/v2/conversations/%d/threads", id))
	v3 := w.get(fmt.Sprintf("/v3/conversations/%d/threads", id))
	require.Equal(t, http.StatusOK, v3.Code, v3.Body.String())
	assert.Equal(t, strings.ReplaceAll(v2.Body.String(), "/v2/conversations", "/v3/conversations"), v3.Body.String())
	assert.Equal(t, http.StatusNotFound, w.do(request{method: "GET", path: fmt.Sprintf("/v3/conversations/%d/threads", id), token: globexToken}).Code)
}
