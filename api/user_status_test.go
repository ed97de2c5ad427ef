package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

func TestUserStatus(t *testing.T) {
	w := newWorld(t)
	status := func(id int, token string) map[string]any {
		rec := w.do(request{method: http.MethodGet, path: "/v2/users/" + strconv.Itoa(id) + "/status", token: token})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
		return decode(t, rec)
	}
	assert.Equal(t, map[string]any{"userId": float64(agentID),
		"email":  map[string]any{"status": "active", "updatedAt": "2026-11-21T12:00:00Z", "performedBy": float64(agentID), "source": "ui"},
		"chat":   map[string]any{"status": "unavailable", "mailboxStatuses": map[string]any{}},
		"_links": map[string]any{"self": map[string]any{"href": "https://api.parley.test/v2/users/3/status"}, "user": map[string]any{"href": "https://api.parley.test/v2/users/3"}},
	}, status(agentID, ownerToken), "defaults: active, and chat unavailable for a user who cannot chat")

	put := func(id int, token, body string) int {
		return w.do(request{method: http.MethodPut, path: "/v2/users/" + strconv.Itoa(id) + "/status", token: token, body: body}).Code
	}
	w.clock.advance(60e9)
	assert.Equal(t, http.StatusNoContent, put(agentID, userToken, `{"status":"away"}`), "users set their own status")
	got := status(agentID, userToken)
	assert.Equal(t, map[string]any{"status": "away", "updatedAt": "2026-11-21T12:01:00Z", "performedBy": float64(agentID), "source": "api"}, got["email"])
	assert.Equal(t, http.StatusNoContent, put(agentID, ownerToken, `{"chat":"available"}`), "owners set anyone's")
	assert.Equal(t, "available", status(agentID, ownerToken)["chat"].(map[string]any)["status"])
	assert.Equal(t, http.StatusNoContent, put(agentID, ownerToken, `{"chat":"available"}`), "no change, no event")

	assert.Equal(t, http.StatusForbidden, put(ownerID, userToken, `{"status":"away"}`))
	assert.Equal(t, http.StatusBadRequest, put(agentID, userToken, `{"status":"busy"}`))
	assert.Equal(t, http.StatusBadRequest, put(agentID, userToken, `{}`))
	assert.Equal(t, http.StatusNotFound, put(globexOwnerID, ownerToken, `{"status":"away"}`))

	var events []parley.Event
	require.NoError(t, w.bolt().View(func(tx *storage.Tx) (err error) { events, err = tx.Events(); return err }))
	assert.Equal(t, []parley.Event{
		{Kind: "user.status.changed", CompanyID: acmeID, ResourceID: "3", At: epoch.Add(60e9)},
		{Kind: "user.status.changed", CompanyID: acmeID, ResourceID: "3", At: epoch.Add(60e9)},
	}, events)

	rec := w.do(request{method: http.MethodGet, path: "/v2/users/status", token: ownerToken})
	require.Equal(t, http.StatusOK, rec.Code)
	list := decode(t, rec)
	assert.Len(t, list["_embedded"].(map[string]any)["userStatuses"], 4)
	assert.Equal(t, map[string]any{"size": float64(50), "totalElements": float64(4), "totalPages": float64(1), "number": float64(1)}, list["page"])
}
