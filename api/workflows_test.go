package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// threadActions lists the line items of a conversation, newest first.
func (w *world) threadActions(id int64) []string {
	var out []string
	for _, th := range w.conv(id)["_embedded"].(map[string]any)["threads"].([]any) {
		if a, ok := th.(map[string]any)["action"].(map[string]any); ok {
			out = append(out, a["text"].(string))
		}
	}
	return out
}

func convTags(conv map[string]any) []string {
	var out []string
	for _, t := range conv["tags"].([]any) {
		out = append(out, t.(map[string]any)["tag"].(string))
	}
	return out
}

func TestWorkflows(t *testing.T) {
	w := newWorld(t)
	escalate := fmt.Sprintf(`{"mailboxId":%d,"name":"Escalate refunds","type":"manual",
		"conditions":["subject:refund"],
		"actions":[{"type":"status","status":"pending"},{"type":"assign","userId":%d},{"type":"add-tags","tags":["escalated"]},
			{"type":"note","text":"Escalated by a workflow"}]}`, supportID, agentID)
	rec := w.do(request{method: "POST", path: "/v2/workflows", token: ownerToken, body: escalate})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Resource-ID"))
	assert.Equal(t, "https://api.parley.test/v2/workflows/1", rec.Header().Get("Location"))
	w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"Tag urgent","type":"automatic","order":1,
		"conditions":["subject:urgent","NOT tag:urgent"],"actions":[{"type":"add-tags","tags":["urgent"]},{"type":"assign","userId":%d}]}`, supportID, ownerID), http.StatusCreated)
	w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"Close spam","type":"manual","status":"inactive",
		"conditions":[],"actions":[{"type":"status","status":"closed"}]}`, billingID), http.StatusCreated)

	goldenJSON(t, "workflows/list", w.get("/v2/workflows").Body.Bytes())
	goldenJSON(t, "workflows/get", w.get("/v2/workflows/1").Body.Bytes())
	assert.Equal(t, []int64{2}, ids(t, w.get("/v2/workflows?type=automatic"), "workflows"))
	assert.Equal(t, []int64{3}, ids(t, w.get(fmt.Sprintf("/v2/workflows?mailboxId=%d", billingID)), "workflows"))
	assert.Equal(t, []int64{1, 2}, ids(t, w.do(request{method: "GET", path: "/v2/workflows", token: userToken}), "workflows"), "Billing is not Uma's")
	assert.Equal(t, []int64{}, ids(t, w.do(request{method: "GET", path: "/v2/workflows", token: globexToken}), "workflows"))

	t.Run("a manual run acts on the conversations that match", func(t *testing.T) {
		refund := w.create(convJSON(map[string]any{"subject": "Refund please"}))
		other := w.create(convJSON(map[string]any{"subject": "Where is my parcel?"}))
		w.send("POST", "/v2/workflows/1/run", fmt.Sprintf(`{"conversationIds":[%d,%d]}`, refund, other), http.StatusNoContent)
		conv := w.conv(refund)
		assert.Equal(t, "pending", conv["status"])
		assert.Equal(t, float64(agentID), conv["assignee"].(map[string]any)["id"])
		assert.Equal(t, []string{"escalated"}, convTags(conv))
		assert.Equal(t, "Workflow Escalate refunds ran", w.threadActions(refund)[0])
		assert.NotContains(t, w.threadActions(other), "Workflow Escalate refunds ran")
		runs := decode(t, w.get("/v2/workflows/1/runs"))
		items := runs["_embedded"].(map[string]any)["runs"].([]any)
		require.Len(t, items, 2)
		assert.Equal(t, map[string]any{"id": float64(1), "conversationId": float64(refund), "trigger": "manual", "matched": true, "at": "2026-11-21T12:00:00Z"}, items[0])
		assert.Equal(t, false, items[1].(map[string]any)["matched"])
		// The search finds what the workflow matched.
		assert.Equal(t, []int64{refund}, ids(t, w.get("/v2/conversations?status=all&query="+urlQuery("subject:refund")), "conversations"))
	})
	t.Run("an automatic workflow runs on create and on reply, once per write", func(t *testing.T) {
		id := w.create(convJSON(map[string]any{"subject": "Urgent: site down"}))
		conv := w.conv(id)
		assert.Equal(t, []string{"urgent"}, convTags(conv))
		assert.Equal(t, float64(ownerID), conv["assignee"].(map[string]any)["id"])
		assert.Equal(t, "Workflow Tag urgent ran", w.threadActions(id)[0])
		// Its condition no longer holds (tagged): a reply does not run it again.
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/customer", id), `{"customer":{"email":"alice@example.com"},"text":"Still down"}`, http.StatusCreated)
		n := 0
		for _, a := range w.threadActions(id) {
			if a == "Workflow Tag urgent ran" {
				n++
			}
		}
		assert.Equal(t, 1, n)
		// Removing the tag is a tags change: the workflow runs again.
		w.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", id), `{"tags":[]}`, http.StatusNoContent)
		assert.Equal(t, []string{"urgent"}, convTags(w.conv(id)))
	})
	t.Run("status patch, replace and delete", func(t *testing.T) {
		w.send("PATCH", "/v2/workflows/3", `{"op":"replace","path":"/status","value":"active"}`, http.StatusNoContent)
		assert.Equal(t, "active", decode(t, w.get("/v2/workflows/3"))["status"])
		w.send("PUT", "/v2/workflows/3", fmt.Sprintf(`{"mailboxId":%d,"name":"Close all","type":"manual","actions":[{"type":"status","status":"closed"}]}`, billingID), http.StatusNoContent)
		got := decode(t, w.get("/v2/workflows/3"))
		assert.Equal(t, "Close all", got["name"])
		assert.Equal(t, "active", got["status"], "a replace without status makes it active")
		w.send("DELETE", "/v2/workflows/3", "", http.StatusNoContent)
		w.send("GET", "/v2/workflows/3", "", http.StatusNotFound)
	})

	rec = w.do(request{method: "POST", path: "/v2/workflows", token: ownerToken,
		body: fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","conditions":["status:active AND sbject:refund"],"actions":[{"type":"note","text":"x"}]}`, supportID)})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	goldenError(t, "workflows/invalid_condition", rec)

	billingConv := w.create(convJSON(map[string]any{"mailboxId": billingID}))
	supportConv := w.create(convJSON(nil))
	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprint(supportConv)
	}
	for _, tc := range []struct {
		name, token, method, path, body string
		status                          int
		want                            []string
	}{
		{"no name", ownerToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"type":"manual","actions":[{"type":"note","text":"x"}]}`, supportID), 400, []string{"name: Null value"}},
		{"unknown type", ownerToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"sometimes","actions":[{"type":"note","text":"x"}]}`, supportID), 400, []string{"type: Enum Value"}},
		{"no actions", ownerToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual"}`, supportID), 400, []string{"actions: Empty value"}},
		{"automatic without conditions", ownerToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"automatic","actions":[{"type":"note","text":"x"}]}`, supportID), 400, []string{"conditions: Empty value"}},
		{"bad targets", ownerToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","actions":[
			{"type":"assign","userId":%d},{"type":"move","mailboxId":99},{"type":"status","status":"gone"},{"type":"set-field","fieldId":999,"value":"x"},
			{"type":"add-tags"},{"type":"note"},{"type":"webhook"},{"type":"teleport"}]}`, supportID, globexOwnerID), 400,
			[]string{"actions[0].userId: Valid Conversation Owner", "actions[1].mailboxId: Invalid identifier", "actions[2].status: Enum Value",
				"actions[3].fieldId: Invalid identifier", "actions[4].tags: Empty value", "actions[5].text: Empty value",
				"actions[6].webhookId: Invalid identifier", "actions[7].type: Enum Value"}},
		{"another company's mailbox", globexToken, "POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","actions":[{"type":"note","text":"x"}]}`, supportID), 400, []string{"mailboxId: Invalid identifier"}},
		{"another company's workflow", globexToken, "GET", "/v2/workflows/1", "", 404, nil},
		{"a mailbox the user may not use", userToken, "GET", "/v2/workflows/3", "", 404, nil},
		{"bad list type", ownerToken, "GET", "/v2/workflows?type=sometimes", "", 400, []string{"type: Enum Value"}},
		{"patch another path", ownerToken, "PATCH", "/v2/workflows/1", `{"op":"replace","path":"/name","value":"x"}`, 400, []string{"[0]: Allowed Patch Operations"}},
		{"patch a bad status", ownerToken, "PATCH", "/v2/workflows/1", `{"op":"replace","path":"/status","value":"paused"}`, 400, []string{"[0].value: Enum Value"}},
		{"run an automatic workflow", ownerToken, "POST", "/v2/workflows/2/run", fmt.Sprintf(`{"conversationIds":[%d]}`, supportConv), 400, []string{": Cannot Run Workflow"}},
		{"run on another mailbox's conversation", ownerToken, "POST", "/v2/workflows/1/run", fmt.Sprintf(`{"conversationIds":[%d,%d]}`, supportConv, billingConv), 400, []string{"conversationIds[1]: Cannot Run Workflow"}},
		{"run on no conversation", ownerToken, "POST", "/v2/workflows/1/run", `{"conversationIds":[]}`, 400, []string{"conversationIds: Cannot Run Workflow"}},
		{"run on 51 conversations", ownerToken, "POST", "/v2/workflows/1/run", `{"conversationIds":[` + strings.Join(many, ",") + `]}`, 400, []string{"conversationIds: Cannot Run Workflow"}},
		{"run on a missing conversation", ownerToken, "POST", "/v2/workflows/1/run", `{"conversationIds":[999999]}`, 400, []string{"conversationIds[0]: Cannot Run Workflow"}},
		{"run a missing workflow", ownerToken, "POST", "/v2/workflows/99/run", fmt.Sprintf(`{"conversationIds":[%d]}`, supportConv), 404, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: tc.method, path: tc.path, token: tc.token, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
	t.Run("an inactive workflow cannot run", func(t *testing.T) {
		w.send("PATCH", "/v2/workflows/1", `[{"op":"replace","path":"/status","value":"inactive"}]`, http.StatusNoContent)
		rec := w.do(request{method: "POST", path: "/v2/workflows/1/run", token: ownerToken, body: fmt.Sprintf(`{"conversationIds":[%d]}`, supportConv)})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		goldenError(t, "workflows/cannot_run", rec)
	})
}

func urlQuery(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(" ", "%20", ":", "%3A").Replace(string(b[1 : len(b)-1]))
}

// TestWorkflowNoteSkippedAtThreadLimit: automatic "tag -> note"
// workflows whose notes would take a conversation past its 100 threads do
// not fail the user's PUT tags: the notes that fit are added, the one that
// does not is skipped, and its workflow's line item says why.
func TestWorkflowNoteSkippedAtThreadLimit(t *testing.T) {
	onEachBackend(t, testWorkflowNoteSkippedAtThreadLimit)
}

func testWorkflowNoteSkippedAtThreadLimit(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	for i := 1; i <= 3; i++ {
		w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"VIP note %d","type":"automatic","order":%d,
			"conditions":["tag:vip"],"actions":[{"type":"note","text":"VIP %d"}]}`, supportID, i, i, i), http.StatusCreated)
	}
	threads := make([]any, 97)
	for i := range threads {
		threads[i] = thread("customer", fmt.Sprintf("Message %d", i+1))
	}
	id := w.create(convJSON(map[string]any{"threads": threads}))

	w.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", id), `{"tags":["vip"]}`, http.StatusNoContent)
	conv := w.conv(id)
	assert.Equal(t, []string{"vip"}, convTags(conv))
	var notes []string
	for _, th := range conv["_embedded"].(map[string]any)["threads"].([]any) {
		if th := th.(map[string]any); th["type"] == "note" {
			notes = append(notes, th["body"].(string))
		}
	}
	assert.ElementsMatch(t, []string{"VIP 1", "VIP 2"}, notes, "two notes fit: 99 threads")
	assert.ElementsMatch(t, []string{"Workflow VIP note 1 ran", "Workflow VIP note 2 ran",
		"Workflow VIP note 3 ran; skipped note: the conversation has 99 threads; at most 100 are allowed"}, w.threadActions(id))
}

// TestWorkflowTeamAndSavedReply: `assign` takes a team (the conversation
// goes to one of its members, as PATCH replace /assignTo takes users only)
// and `saved-reply` sends a saved reply of the mailbox as a reply; every
// target is checked when the workflow is saved.
func TestWorkflowTeamAndSavedReply(t *testing.T) {
	w := newWorld(t)
	// The API itself refuses to assign a conversation to a team.
	conv := w.create(convJSON(nil))
	rec := w.do(request{method: "PATCH", path: fmt.Sprintf("/v2/conversations/%d", conv), token: ownerToken,
		body: fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":%d}`, teamID)})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"[0].value: Valid Conversation Owner"}, errorSummary(t, rec))

	savedReply := func(mailboxID int64, body string) int64 {
		rec := w.do(request{method: "POST", path: fmt.Sprintf("/v2/mailboxes/%d/saved-replies", mailboxID), token: ownerToken, body: body})
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		var id int64
		fmt.Sscan(rec.Header().Get("Resource-ID"), &id)
		return id
	}
	refund := savedReply(supportID, `{"name":"Refund timing","text":"Refunds take 5 days."}`)
	billing := savedReply(billingID, `{"name":"Invoice","text":"Your invoice is attached."}`)
	chatOnly := savedReply(supportID, `{"name":"Hi","chatText":"Hi there!"}`)
	var emptyTeam int64
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		team := &parley.Team{CompanyID: acmeID, Name: "Nobody here", MemberIDs: []int64{inactiveID}, CreatedAt: epoch, UpdatedAt: epoch}
		err := tx.PutTeam(team)
		emptyTeam = team.ID
		return err
	})
	require.NoError(t, err)

	rec = w.do(request{method: "POST", path: "/v2/workflows", token: ownerToken, body: fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual","actions":[
		{"type":"assign","userId":999999},{"type":"assign","userId":%d},
		{"type":"saved-reply","savedReplyId":999999},{"type":"saved-reply","savedReplyId":%d},{"type":"saved-reply","savedReplyId":%d},
		{"type":"saved-reply"}]}`, supportID, emptyTeam, billing, chatOnly)})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	goldenError(t, "workflows/invalid_targets", rec)

	w.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"Hand to Tier 2","type":"manual",
		"actions":[{"type":"assign","userId":%d},{"type":"saved-reply","savedReplyId":%d}]}`, supportID, teamID, refund), http.StatusCreated)
	first, second := w.create(convJSON(nil)), w.create(convJSON(nil))
	w.send("POST", "/v2/workflows/1/run", fmt.Sprintf(`{"conversationIds":[%d,%d]}`, first, second), http.StatusNoContent)
	// Tier 2 is Adam and the agent, in that order: they take turns.
	for id, want := range map[int64]int64{first: adminID, second: agentID} {
		c := w.conv(id)
		assert.Equal(t, float64(want), c["assignee"].(map[string]any)["id"], "conversation %d", id)
		var replies []string
		for _, th := range c["_embedded"].(map[string]any)["threads"].([]any) {
			if th := th.(map[string]any); th["type"] == "message" {
				replies = append(replies, th["body"].(string))
			}
		}
		assert.Equal(t, []string{"Refunds take 5 days."}, replies, "conversation %d", id)
	}
}

// TestWorkflowCallsAWebhook: the webhook action delivers the conversation
// to the one webhook it names, signed and logged as any delivery, whatever
// that webhook subscribes to; no other webhook receives the call.
func TestWorkflowCallsAWebhook(t *testing.T) {
	h := newHooks(t)
	called := h.hook(map[string]any{"events": []string{"convo.tags"}})
	h.hook(map[string]any{"events": []string{"convo.tags"}}) // a second webhook, never called
	conv := h.create(convJSON(nil))
	h.deliver()
	assert.Equal(t, []string{"helpscout.test ", "helpscout.test "}, events(h.recv.take()),
		"each webhook's test delivery; neither subscribes to convo.created")

	h.send("POST", "/v2/workflows", fmt.Sprintf(`{"mailboxId":%d,"name":"Tell the CRM","type":"manual",
		"actions":[{"type":"webhook","webhookId":%d}]}`, supportID, called), http.StatusCreated)
	h.send("POST", "/v2/workflows/1/run", fmt.Sprintf(`{"conversationIds":[%d]}`, conv), http.StatusNoContent)
	h.deliver()
	hits := h.recv.take()
	assert.Equal(t, []string{fmt.Sprintf("convo.workflow.webhook %d", conv)}, events(hits))
	var logged []string
	for _, d := range h.deliveries(called) {
		logged = append(logged, fmt.Sprint(d["event"], " ", d["status"]))
	}
	assert.Equal(t, []string{"convo.workflow.webhook delivered", "helpscout.test delivered"}, logged, "the call is in the webhook's delivery log")

	rec := h.do(request{method: "POST", path: "/v2/workflows", token: ownerToken, body: fmt.Sprintf(`{"mailboxId":%d,"name":"x","type":"manual",
		"actions":[{"type":"webhook","webhookId":999999},{"type":"webhook"}]}`, supportID)})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"actions[0].webhookId: Invalid identifier", "actions[1].webhookId: Invalid identifier"}, errorSummary(t, rec))
}
