package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

func TestErrorBodies(t *testing.T) {
	w := newListWorld(t)
	post := func(body string) request {
		return request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: body}
	}
	get := func(path string) request { return request{method: http.MethodGet, path: path, token: ownerToken} }
	manyThreads := make([]any, 101)
	for i := range manyThreads {
		manyThreads[i] = thread("customer", "again")
	}
	cases := []struct {
		name   string
		req    request
		status int
		allow  string
	}{
		{"bad_json", post(`{"subject": "x",`), http.StatusBadRequest, ""},
		{"json_structure_mismatch", post(convJSON(map[string]any{"mailboxId": "one"})), http.StatusBadRequest, ""},
		{"json_not_an_object", post(`[1,2]`), http.StatusBadRequest, ""},
		{"wrong_media_type", request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: convJSON(nil), contentType: "text/plain"}, http.StatusUnsupportedMediaType, ""},
		{"unknown_enum", post(convJSON(map[string]any{"type": "fax", "status": "open"})), http.StatusBadRequest, ""},
		{"missing_required_fields", post(`{"threads": []}`), http.StatusBadRequest, ""},
		{"empty_subject_and_text", post(convJSON(map[string]any{"subject": " ", "threads": []any{thread("customer", "")}})), http.StatusBadRequest, ""},
		{"bad_email", post(convJSON(map[string]any{"customer": customer("not-an-address")})), http.StatusBadRequest, ""},
		{"customer_name_too_long", post(convJSON(map[string]any{"customer": map[string]any{"email": "long@example.com", "firstName": strings.Repeat("a", 41)}})), http.StatusBadRequest, ""},
		{"assign_to_one", post(convJSON(map[string]any{"assignTo": 1})), http.StatusBadRequest, ""},
		{"assign_to_unknown_user", post(convJSON(map[string]any{"assignTo": 999})), http.StatusBadRequest, ""},
		{"assign_to_other_company_user", post(convJSON(map[string]any{"assignTo": globexOwnerID})), http.StatusBadRequest, ""},
		{"thread_created_at_not_imported", post(convJSON(map[string]any{"threads": []any{map[string]any{"type": "customer", "text": "x", "createdAt": "2024-01-01T00:00:00Z"}}})), http.StatusBadRequest, ""},
		{"bad_date_in_body", post(convJSON(map[string]any{"imported": true, "createdAt": "01/02/2024"})), http.StatusBadRequest, ""},
		{"closed_at_not_imported", post(convJSON(map[string]any{"status": "closed", "closedAt": "2024-01-01T00:00:00Z"})), http.StatusBadRequest, ""},
		{"unknown_mailbox", post(convJSON(map[string]any{"mailboxId": 999})), http.StatusBadRequest, ""},
		{"other_company_mailbox", post(convJSON(map[string]any{"mailboxId": globexMailboxID})), http.StatusBadRequest, ""},
		{"bad_custom_field_values", post(convJSON(map[string]any{"fields": []any{
			map[string]any{"id": w.fields["Priority"].ID, "value": "999"},
			map[string]any{"id": w.fields["Account value"].ID, "value": "lots"},
			map[string]any{"id": w.fields["Renewal date"].ID, "value": "2027-13-01"},
			map[string]any{"id": 12345, "value": "x"}}})), http.StatusBadRequest, ""},
		{"inactive_author", post(convJSON(map[string]any{"user": inactiveID})), http.StatusForbidden, ""},
		{"other_company_author", post(convJSON(map[string]any{"user": globexOwnerID})), http.StatusForbidden, ""},
		{"too_many_threads", post(convJSON(map[string]any{"threads": manyThreads})), http.StatusPreconditionFailed, ""},
		{"negative_id", get("/v2/conversations/-5"), http.StatusBadRequest, ""},
		{"non_numeric_id", get("/v2/conversations/abc"), http.StatusBadRequest, ""},
		{"other_company_conversation", get(fmt.Sprintf("/v2/conversations/%d", w.globex)), http.StatusNotFound, ""},
		{"missing_conversation", get("/v2/conversations/999"), http.StatusNotFound, ""},
		{"bad_list_parameters", get("/v2/conversations?status=bogus&sortField=size&sortOrder=up&page=0&mailbox=x&modifiedSince=yesterday&embed=customers"), http.StatusBadRequest, ""},
		{"missing_token", request{method: http.MethodGet, path: "/v2/conversations"}, http.StatusUnauthorized, ""},
		{"unknown_token", request{method: http.MethodGet, path: "/v2/conversations", token: "nope"}, http.StatusUnauthorized, ""},
		{"expired_token", request{method: http.MethodGet, path: "/v2/conversations", token: expiredToken}, http.StatusUnauthorized, ""},
		{"inactive_user_token", request{method: http.MethodGet, path: "/v2/conversations", token: inactiveToken}, http.StatusUnauthorized, ""},
		{"wrong_method", request{method: http.MethodDelete, path: "/v2/mailboxes", token: ownerToken}, http.StatusMethodNotAllowed, "GET"},
		{"unknown_route", get("/v2/nothing-here"), http.StatusNotFound, ""},
		{"other_company_mailbox_read", get(fmt.Sprintf("/v2/mailboxes/%d", globexMailboxID)), http.StatusNotFound, ""},
		{"user_without_mailbox_access", request{method: http.MethodGet, path: fmt.Sprintf("/v2/conversations/%d", w.invoice), token: userToken}, http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(tc.req)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json;charset=UTF-8", rec.Header().Get("Content-Type"))
			assert.Equal(t, tc.allow, rec.Header().Get("Allow"))
			goldenError(t, "errors/"+tc.name, rec)
		})
	}
}

// TestUnknownParametersIgnored: parameters an endpoint does not read are
// ignored (clients of this API family send their own, such as pageSize)
// and named in a header, so a typo can still be seen.
func TestUnknownParametersIgnored(t *testing.T) {
	w := newListWorld(t)
	var customers struct {
		Embedded struct {
			Customers []struct{ ID int64 } `json:"customers"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.Unmarshal(w.get("/v2/customers").Body.Bytes(), &customers))
	require.NotEmpty(t, customers.Embedded.Customers)
	aliceID := customers.Embedded.Customers[0].ID
	for _, tc := range []struct{ path, plain, ignored string }{
		{"/v2/conversations?stauts=closed&pageSize=10", "/v2/conversations", "pageSize, stauts"},
		{fmt.Sprintf("/v2/customers/%d?embed=threads", aliceID), fmt.Sprintf("/v2/customers/%d", aliceID), "embed"},
		{"/v2/mailboxes?page=1&pageSize=10", "/v2/mailboxes?page=1", "pageSize"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, plain := w.get(tc.path), w.get(tc.plain)
			require.Equal(t, http.StatusOK, got.Code, got.Body.String())
			assert.Equal(t, tc.ignored, got.Header().Get(api.IgnoredParametersHeader))
			assert.Empty(t, plain.Header().Get(api.IgnoredParametersHeader))
			// The same answer; only the links echo the query string as sent.
			assert.Equal(t, withoutLinks(t, plain.Body.Bytes()), withoutLinks(t, got.Body.Bytes()))
		})
	}
	t.Run("an invalid value of a known parameter is still an error", func(t *testing.T) {
		got := w.get("/v2/conversations?status=bogus&pageSize=10")
		assert.Equal(t, http.StatusBadRequest, got.Code)
	})
}

func withoutLinks(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	delete(m, "_links")
	return m
}
