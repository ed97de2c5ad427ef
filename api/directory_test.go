package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDirectoryEndpoints(t *testing.T) { onEachBackend(t, testDirectoryEndpoints) }

func testDirectoryEndpoints(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	cases := []struct {
		name, path, token string
	}{
		{"users_me", "/v2/users/me", ownerToken},
		{"users_me_agent", "/v2/users/me", userToken},
		{"user", fmt.Sprintf("/v2/users/%d", agentID), ownerToken},
		{"users", "/v2/users", ownerToken},
		{"users_by_email", "/v2/users?email=UMA@acme.test", ownerToken},
		{"users_by_mailbox", fmt.Sprintf("/v2/users?mailbox=%d", billingID), ownerToken},
		{"teams", "/v2/teams", ownerToken},
		{"team_members", fmt.Sprintf("/v2/teams/%d/members", teamID), ownerToken},
		{"mailboxes", "/v2/mailboxes", ownerToken},
		{"mailboxes_of_agent", "/v2/mailboxes", userToken},
		{"mailbox", fmt.Sprintf("/v2/mailboxes/%d", supportID), ownerToken},
		{"mailbox_fields", fmt.Sprintf("/v2/mailboxes/%d/fields", supportID), ownerToken},
		{"mailbox_fields_empty", fmt.Sprintf("/v2/mailboxes/%d/fields", billingID), ownerToken},
		{"mailbox_folders", fmt.Sprintf("/v2/mailboxes/%d/folders", supportID), ownerToken},
		{"tags", "/v2/tags", ownerToken},
		{"tags_globex", "/v2/tags", globexToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: tc.path, token: tc.token})
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
			goldenJSON(t, "directory/"+tc.name, rec.Body.Bytes())
		})
	}
}

func TestDirectoryIsolation(t *testing.T) { onEachBackend(t, testDirectoryIsolation) }

func testDirectoryIsolation(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	for path, want := range map[string]string{
		fmt.Sprintf("/v2/users/%d", ownerID):               "404 Not found: user not found",
		fmt.Sprintf("/v2/teams/%d/members", teamID):        "404 Not found: team not found",
		fmt.Sprintf("/v2/mailboxes/%d", supportID):         "404 Not found: mailbox not found",
		fmt.Sprintf("/v2/mailboxes/%d/fields", supportID):  "404 Not found: mailbox not found",
		fmt.Sprintf("/v2/mailboxes/%d/folders", supportID): "404 Not found: mailbox not found",
	} {
		t.Run(path, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: path, token: globexToken})
			assert.Equal(t, want, apiError(t, rec))
			assert.NotContains(t, rec.Body.String(), "acme")
		})
	}
}

func TestHealthz(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: http.MethodGet, path: "/healthz"})
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"status":"ok"}`, rec.Body.String())
}
