package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// jsonOf marshals a request body.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// call makes a request as token with a JSON body (nil: none).
func (w *world) call(token, method, path string, body any) *httptest.ResponseRecorder {
	w.t.Helper()
	r := request{method: method, path: path, token: token}
	if body != nil {
		if s, ok := body.(string); ok {
			r.body = s
		} else {
			r.body = jsonOf(body)
		}
	}
	return w.do(r)
}

// must makes an owner request and requires its status.
func (w *world) must(method, path string, body any, status int) *httptest.ResponseRecorder {
	w.t.Helper()
	rec := w.call(ownerToken, method, path, body)
	require.Equal(w.t, status, rec.Code, "%s %s: %s", method, path, rec.Body.String())
	return rec
}

// resourceID reads the Resource-ID header of a 201.
func resourceID(t *testing.T, rec *httptest.ResponseRecorder) int64 {
	t.Helper()
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var id int64
	_, err := fmt.Sscan(rec.Header().Get("Resource-ID"), &id)
	require.NoError(t, err)
	return id
}

// newCustomer creates a customer as the owner and returns its id.
func (w *world) newCustomer(body map[string]any) int64 {
	w.t.Helper()
	return resourceID(w.t, w.call(ownerToken, http.MethodPost, "/v2/customers", body))
}

// newOrganization creates an organization as the owner and returns its id.
func (w *world) newOrganization(body map[string]any) int64 {
	w.t.Helper()
	return resourceID(w.t, w.call(ownerToken, http.MethodPost, "/v2/organizations", body))
}

// readCustomer reads a customer as the owner.
func (w *world) readCustomer(id int64) map[string]any {
	w.t.Helper()
	rec := w.get(fmt.Sprintf("/v2/customers/%d", id))
	require.Equal(w.t, http.StatusOK, rec.Code, rec.Body.String())
	return decode(w.t, rec)
}

// firstError is the first item of an error body.
func firstError(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	items, _ := field(t, decode(t, rec), "_embedded", "errors").([]any)
	require.NotEmpty(t, items, rec.Body.String())
	return items[0].(map[string]any)
}

// errorSummary lists "path: code" of every error item.
func errorSummary(t *testing.T, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	var out []string
	items, _ := field(t, decode(t, rec), "_embedded", "errors").([]any)
	for _, it := range items {
		m := it.(map[string]any)
		out = append(out, fmt.Sprintf("%s: %s", m["path"], m["code"]))
	}
	return out
}

// entryIDs lists the ids of an embedded entry collection of a customer read.
func entryIDs(t *testing.T, cu map[string]any, name string) []int64 {
	t.Helper()
	var out []int64
	for _, e := range field(t, cu, "_embedded", name).([]any) {
		out = append(out, int64(e.(map[string]any)["id"].(float64)))
	}
	return out
}

// entryValues lists "type:value" (or value) of an embedded collection.
func entryValues(t *testing.T, cu map[string]any, name string) []string {
	t.Helper()
	out := []string{}
	for _, e := range field(t, cu, "_embedded", name).([]any) {
		m := e.(map[string]any)
		if typ, ok := m["type"]; ok {
			out = append(out, fmt.Sprintf("%s:%s", typ, m["value"]))
		} else {
			out = append(out, m["value"].(string))
		}
	}
	return out
}

// addConversations stores n conversations of a customer directly in
// storage (no threads), one transaction: a cheap way to reach the 100 and
// 5,000 limits with real records.
func (w *world) addConversations(customerID int64, n int) {
	w.t.Helper()
	now := w.clock.Now()
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		for i := 0; i < n; i++ {
			c := &parley.Conversation{CompanyID: acmeID, Type: parley.TypeEmail, MailboxID: supportID, Status: parley.StatusActive,
				State: parley.StatePublished, Subject: fmt.Sprintf("Bulk %d", i), CreatedAt: now, ModifiedAt: now, CustomerID: customerID,
				CreatedBy: parley.Party{ID: customerID, Type: parley.PartyCustomer}}
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(w.t, err)
}

// defineProperty defines a customer property as the owner.
func (w *world) defineProperty(slug, name, typ string, options ...string) int64 {
	w.t.Helper()
	body := map[string]any{"slug": slug, "name": name, "type": typ}
	if len(options) > 0 {
		body["options"] = options
	}
	return resourceID(w.t, w.call(ownerToken, http.MethodPost, "/v2/customer-properties", body))
}

// longText is a string of n letters.
func longText(n int) string { return strings.Repeat("a", n) }
