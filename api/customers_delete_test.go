package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeleteCustomer(t *testing.T) {
	w := newWorld(t)
	first := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "gone@example.com", "firstName": "Gone"}}))
	second := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "gone@example.com"}, "subject": "Another"}))
	kept := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "kept@example.com"}}))
	cid := ids(t, w.get("/v2/customers?query=email:gone"), "customers")[0]
	assert.Equal(t, float64(2), w.readCustomer(cid)["conversationCount"])

	w.must(http.MethodDelete, fmt.Sprintf("/v2/customers/%d", cid), nil, http.StatusNoContent)
	assert.Equal(t, http.StatusNotFound, w.get(fmt.Sprintf("/v2/customers/%d", cid)).Code)
	for _, id := range []int64{first, second} {
		assert.Equal(t, http.StatusNotFound, w.get(fmt.Sprintf("/v2/conversations/%d", id)).Code, "its conversations go with it")
	}
	assert.Equal(t, []int64{kept}, ids(t, w.get("/v2/conversations?status=all"), "conversations"), "and leave the index")
	assert.Empty(t, ids(t, w.get("/v2/customers?query=email:gone"), "customers"))
	// The e-mail is free again.
	w.newCustomer(map[string]any{"emails": []any{map[string]any{"value": "gone@example.com"}}})
	assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodDelete, fmt.Sprintf("/v2/customers/%d", cid), nil).Code)

	t.Run("at most 100 conversations", func(t *testing.T) {
		at := w.newCustomer(map[string]any{"firstName": "Hundred"})
		w.addConversations(at, 100)
		over := w.newCustomer(map[string]any{"firstName": "HundredOne"})
		w.addConversations(over, 101)
		rec := w.call(ownerToken, http.MethodDelete, fmt.Sprintf("/v2/customers/%d", over), nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		item := firstError(t, rec)
		assert.Equal(t, "the customer has 101 conversations; only customers with at most 100 conversations can be deleted permanently", item["message"])
		assert.Equal(t, "customerId", item["path"])
		assert.Equal(t, float64(101), w.readCustomer(over)["conversationCount"])
		w.must(http.MethodDelete, fmt.Sprintf("/v2/customers/%d", at), nil, http.StatusNoContent)
	})
}

func TestCustomerLocked(t *testing.T) {
	t.Parallel() // the heaviest test: 5,001 real conversations
	w := newWorld(t)
	id := w.newCustomer(map[string]any{"firstName": "Busy", "emails": []any{map[string]any{"value": "busy@example.com"}}})
	base := fmt.Sprintf("/v2/customers/%d", id)
	w.addConversations(id, 5000)
	w.must(http.MethodPatch, base, []any{map[string]any{"op": "replace", "path": "/jobTitle", "value": "Busier"}}, http.StatusNoContent)
	w.addConversations(id, 1)
	cu := w.readCustomer(id)
	assert.Equal(t, float64(5001), cu["conversationCount"], "reads still work")
	assert.Equal(t, "Busier", cu["jobTitle"], "5,000 conversations are still modifiable")
	email := entryIDs(t, cu, "emails")[0]
	cases := []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, base, map[string]any{"firstName": "Calm"}},
		{http.MethodPatch, base, []any{map[string]any{"op": "replace", "path": "/firstName", "value": "Calm"}}},
		{http.MethodPost, base + "/phones", map[string]any{"value": "1"}},
		{http.MethodPut, fmt.Sprintf("%s/emails/%d", base, email), map[string]any{"value": "calm@example.com"}},
		{http.MethodDelete, fmt.Sprintf("%s/emails/%d", base, email), nil},
		{http.MethodPut, base + "/address", map[string]any{"city": "Oslo"}},
		{http.MethodDelete, base + "/address", nil},
		{http.MethodPatch, base + "/properties", []any{map[string]any{"op": "remove", "path": "/x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := w.call(ownerToken, tc.method, tc.path, tc.body)
			require.Equal(t, http.StatusLocked, rec.Code, rec.Body.String())
			assert.Equal(t, "Customer Locked - Too Many Conversations", firstError(t, rec)["code"])
		})
	}
	assert.Equal(t, cu, w.readCustomer(id), "nothing changed")
	rec := w.call(ownerToken, http.MethodDelete, base, nil)
	assert.Equal(t, http.StatusBadRequest, rec.Code, "too many conversations to delete")
}
