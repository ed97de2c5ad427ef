package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assigneeOf reads a conversation's assignee id (0 when unassigned).
func (w *world) assigneeOf(id int64) int64 {
	w.t.Helper()
	a, ok := w.conv(id)["assignee"].(map[string]any)
	if !ok {
		return 0
	}
	return int64(a["id"].(float64))
}

// The shapes follow Help Scout's Get and Update Routing configuration
// (developer.helpscout.com/mailbox-api/endpoints/inboxes/routing/).
func TestRouting(t *testing.T) {
	w := newWorld(t)
	path := fmt.Sprintf("/v2/mailboxes/%d/routing", supportID)
	rec := w.get(path)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "routing/disabled", rec.Body.Bytes())
	unrouted := w.create(convJSON(nil))
	assert.Equal(t, int64(0), w.assigneeOf(unrouted), "disabled routing assigns nobody")

	w.must(http.MethodPut, path, map[string]any{"state": "enabled", "assignmentLimit": 2, "assignmentMethod": "round_robin",
		"userIds": []int64{ownerID, agentID}}, http.StatusNoContent)
	first, second, third := w.create(convJSON(nil)), w.create(convJSON(nil)), w.create(convJSON(nil))
	assert.Equal(t, []int64{ownerID, agentID, ownerID}, []int64{w.assigneeOf(first), w.assigneeOf(second), w.assigneeOf(third)}, "round robin")
	explicit := w.create(convJSON(map[string]any{"assignTo": adminID}))
	assert.Equal(t, int64(adminID), w.assigneeOf(explicit), "an explicit assignee wins")
	closed := w.create(convJSON(map[string]any{"status": "closed"}))
	assert.Equal(t, int64(0), w.assigneeOf(closed), "a closed conversation is not routed")

	// Olivia holds 2 open conversations: at capacity; Uma goes away.
	w.must(http.MethodPut, fmt.Sprintf("/v2/users/%d/status", agentID), map[string]any{"status": "away"}, http.StatusNoContent)
	rec = w.get(path)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "routing/enabled", rec.Body.Bytes())
	nobody := w.create(convJSON(nil))
	assert.Equal(t, int64(0), w.assigneeOf(nobody), "nobody eligible: unassigned")

	t.Run("closing frees capacity", func(t *testing.T) {
		w.must(http.MethodPatch, fmt.Sprintf("/v2/conversations/%d", first), map[string]any{"op": "replace", "path": "/status", "value": "closed"}, http.StatusNoContent)
		next := w.create(convJSON(nil))
		assert.Equal(t, int64(ownerID), w.assigneeOf(next))
	})
	t.Run("balanced takes the least loaded", func(t *testing.T) {
		w.must(http.MethodPut, fmt.Sprintf("/v2/users/%d/status", agentID), map[string]any{"status": "active"}, http.StatusNoContent)
		w.must(http.MethodPut, path, map[string]any{"state": "enabled", "assignmentLimit": "10", "assignmentMethod": "balanced",
			"userIds": []any{ownerID, agentID}}, http.StatusNoContent)
		// Olivia holds 2, Uma 1: Uma; then 2 each, and the tie goes to the
		// one after the last assigned: Olivia; then Uma holds fewer.
		a, b, c := w.create(convJSON(nil)), w.create(convJSON(nil)), w.create(convJSON(nil))
		assert.Equal(t, []int64{agentID, ownerID, agentID}, []int64{w.assigneeOf(a), w.assigneeOf(b), w.assigneeOf(c)})
	})
	t.Run("disabled keeps the configuration", func(t *testing.T) {
		w.must(http.MethodPut, path, map[string]any{"state": "disabled", "userIds": []int64{}}, http.StatusNoContent)
		body := decode(t, w.get(path))
		assert.Equal(t, "disabled", body["state"])
		assert.Equal(t, int64(0), w.assigneeOf(w.create(convJSON(nil))))
	})
}

func TestRoutingValidation(t *testing.T) {
	w := newWorld(t)
	path := fmt.Sprintf("/v2/mailboxes/%d/routing", supportID)
	ok := map[string]any{"state": "enabled", "assignmentLimit": 5, "assignmentMethod": "balanced", "userIds": []int64{agentID}}
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range ok {
			out[key] = val
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name, token, path string
		body              any
		status            int
		want              []string
	}{
		{"valid", ownerToken, path, ok, 204, nil},
		{"state", ownerToken, path, with("state", "on"), 400, []string{"state: Enum Value"}},
		{"limit 0", ownerToken, path, with("assignmentLimit", 0), 400, []string{"assignmentLimit: Size"}},
		{"limit 101", ownerToken, path, with("assignmentLimit", 101), 400, []string{"assignmentLimit: Size"}},
		{"limit 100", ownerToken, path, with("assignmentLimit", 100), 204, nil},
		{"limit required", ownerToken, path, with("assignmentLimit", nil), 400, []string{"assignmentLimit: Null value"}},
		{"method", ownerToken, path, with("assignmentMethod", "random"), 400, []string{"assignmentMethod: Enum Value"}},
		{"users required", ownerToken, path, with("userIds", []int64{}), 400, []string{"userIds: Empty value"}},
		{"unknown user", ownerToken, path, with("userIds", []int64{99}), 400, []string{"userIds[0]: Invalid identifier"}},
		{"another company's user", ownerToken, path, with("userIds", []int64{globexOwnerID}), 400, []string{"userIds[0]: Invalid identifier"}},
		{"invited user", ownerToken, path, with("userIds", []int64{inactiveID}), 400, []string{"userIds[0]: Invalid identifier"}},
		{"user without the mailbox", ownerToken, fmt.Sprintf("/v2/mailboxes/%d/routing", billingID), ok, 400, []string{"userIds[0]: Invalid identifier"}},
		{"twice", ownerToken, path, with("userIds", []int64{agentID, agentID}), 400, []string{"userIds[1]: Conflict"}},
		{"disabled needs nothing more", ownerToken, path, map[string]any{"state": "disabled"}, 204, nil},
		{"users may read", userToken, path, nil, 200, nil},
		{"users may not configure", userToken, path, ok, 403, nil},
		{"another company's mailbox", globexToken, path, ok, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodPut
			if tc.body == nil {
				method = http.MethodGet
			}
			rec := w.call(tc.token, method, tc.path, tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
}
