package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/storage"
)

// eventKinds lists the events recorded since from.
func (w *world) eventKinds(from int) []string {
	var kinds []string
	require.NoError(w.t, w.bolt().View(func(tx *storage.Tx) error {
		all, err := tx.Events()
		for _, e := range all[from:] {
			kinds = append(kinds, e.Kind+" "+e.ResourceID)
		}
		return err
	}))
	return kinds
}

func (w *world) eventCount() int { return len(w.eventKinds(0)) }

func TestUpdateAndDeleteTags(t *testing.T) {
	w := newWorld(t)
	a := w.create(convJSON(map[string]any{"tags": []string{"Shipping", "vip"}}))
	b := w.create(convJSON(map[string]any{"tags": []string{"shipping"}}))
	start := w.eventCount()

	w.send("PUT", "/v2/tags/1", `{"name":"Delivery","color":"#112233"}`, http.StatusNoContent)
	assert.True(t, w.found(a, "tag:delivery AND tag:vip"), "conversations are reindexed under the new name")
	assert.True(t, w.found(b, "tag:delivery"))
	assert.False(t, w.found(a, "tag:shipping"))
	tag := w.conv(a)["tags"].([]any)[0].(map[string]any)
	assert.Equal(t, "delivery", tag["tag"])
	assert.Equal(t, "#112233", tag["color"])

	w.send("DELETE", "/v2/tags/1", "", http.StatusNoContent)
	assert.Len(t, w.conv(a)["tags"], 1, "only vip is left")
	assert.Empty(t, w.conv(b)["tags"])
	assert.False(t, w.found(a, "tag:delivery"))
	assert.Equal(t, []string{"tag.updated 1", "tag.deleted 1"}, w.eventKinds(start))
	w.send("DELETE", "/v2/tags/1", "", http.StatusNotFound)

	for _, tc := range []struct {
		name, token, method, path, body string
		status                          int
		code                            string
	}{
		{"its own name again", ownerToken, "PUT", "/v2/tags/2", `{"name":"Vip"}`, http.StatusNoContent, ""},
		{"bad colour", ownerToken, "PUT", "/v2/tags/2", `{"color":"red"}`, http.StatusBadRequest, "Value not supported"},
		{"nothing to change", ownerToken, "PUT", "/v2/tags/2", `{}`, http.StatusBadRequest, "Null value"},
		{"a user may not", userToken, "DELETE", "/v2/tags/2", "", http.StatusForbidden, "Access denied"},
		{"another company's tag", globexToken, "PUT", "/v2/tags/2", `{"name":"x"}`, http.StatusNotFound, "Not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: tc.method, path: tc.path, token: tc.token, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.code != "" {
				assert.Equal(t, tc.code, errorCode(t, decode(t, rec)))
			}
		})
	}
	w.create(convJSON(map[string]any{"tags": []string{"other"}}))
	body := w.send("PUT", "/v2/tags/2", `{"name":"other"}`, http.StatusConflict)
	assert.Equal(t, "Conflict", errorCode(t, body))
}

func TestRateReply(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"threads": []any{thread("customer", "Help"), thread("reply", "Done!")}}))
	path := fmt.Sprintf("/v2/conversations/%d/threads", id)
	start := w.eventCount()
	w.send("PUT", path+"/2/rating", `{"rating":"great","comments":"Fast and kind"}`, http.StatusNoContent)
	reply := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"id": float64(1), "rating": "great", "comments": "Fast and kind", "customerId": float64(1),
		"createdAt": "2026-11-21T12:00:00Z"}, reply["rating"])
	assert.Equal(t, []string{fmt.Sprintf("satisfaction.ratings %d", id), "message.survey.response.received 1"}, w.eventKinds(start))

	for _, tc := range []struct{ name, path, body, code string }{
		{"a customer thread cannot be rated", path + "/1/rating", `{"rating":"okay"}`, "Value not supported"},
		{"unknown rating", path + "/2/rating", `{"rating":"meh"}`, "Enum Value"},
	} {
		body := w.send("PUT", tc.path, tc.body, http.StatusBadRequest)
		assert.Equal(t, tc.code, errorCode(t, body), tc.name)
	}
	assert.Equal(t, http.StatusNotFound, w.do(request{method: "PUT", path: path + "/2/rating", token: globexToken, body: `{"rating":"great"}`}).Code)
}

func TestGetTag(t *testing.T) {
	w := newWorld(t)
	w.create(convJSON(map[string]any{"tags": []string{"Shipping"}}))
	w.create(convJSON(map[string]any{"tags": []string{"shipping", "vip"}}))
	rec := w.do(request{method: "GET", path: "/v2/tags/1", token: ownerToken})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "tag_shipping", rec.Body.Bytes())
	for _, tc := range []struct {
		name, token, path string
		status            int
	}{
		{"an unknown tag", ownerToken, "/v2/tags/999", http.StatusNotFound},
		{"another company's tag", globexToken, "/v2/tags/1", http.StatusNotFound},
		{"not an id", ownerToken, "/v2/tags/shipping", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.status, w.do(request{method: "GET", path: tc.path, token: tc.token}).Code)
		})
	}
}

func TestGetRating(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(map[string]any{"threads": []any{thread("customer", "Help"), thread("reply", "Done!")}}))
	path := fmt.Sprintf("/v2/conversations/%d/threads/2/rating", id)
	w.send("PUT", path, `{"rating":"okay"}`, http.StatusNoContent)
	w.send("PUT", path, `{"rating":"great","comments":"Fast and kind"}`, http.StatusNoContent)
	rec := w.do(request{method: "GET", path: "/v2/ratings/1", token: ownerToken})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "rating_great", rec.Body.Bytes())

	for _, tc := range []struct {
		name, token, path string
		status            int
	}{
		{"an unknown rating", ownerToken, "/v2/ratings/2", http.StatusNotFound},
		{"another company's rating", globexToken, "/v2/ratings/1", http.StatusNotFound},
		{"not an id", ownerToken, "/v2/ratings/great", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.status, w.do(request{method: "GET", path: tc.path, token: tc.token}).Code)
		})
	}
	t.Run("the rating follows its reply into a merge", func(t *testing.T) {
		into := w.create(convJSON(map[string]any{"subject": "Target"}))
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/merge", id), fmt.Sprintf(`{"targetId":%d}`, into), http.StatusNoContent)
		moved := decode(t, w.do(request{method: "GET", path: "/v2/ratings/1", token: ownerToken}))
		assert.Equal(t, float64(into), moved["conversationId"])
	})
	t.Run("a deleted conversation's rating is gone", func(t *testing.T) {
		moved := decode(t, w.do(request{method: "GET", path: "/v2/ratings/1", token: ownerToken}))
		w.send("DELETE", fmt.Sprintf("/v2/conversations/%v", moved["conversationId"]), "", http.StatusNoContent)
		assert.Equal(t, http.StatusNotFound, w.do(request{method: "GET", path: "/v2/ratings/1", token: ownerToken}).Code)
	})
}
