package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSavedReplies(t *testing.T) {
	w := newWorld(t)
	base := fmt.Sprintf("/v2/mailboxes/%d/saved-replies", supportID)
	w.send("POST", base, `{"name":"Refund policy","text":"<p>Hi,</p><p>Refunds take <b>5 days</b>.</p>","chatText":"Refunds take 5 days."}`, http.StatusCreated)
	rec := w.do(request{method: "POST", path: base, token: ownerToken, body: `{"name":"Chat greeting","chatText":"Hello! How can I help?"}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, "2", rec.Header().Get("Resource-ID"))
	assert.Equal(t, "https://api.parley.test"+base+"/2", rec.Header().Get("Location"))

	list := w.do(request{method: "GET", path: base, token: ownerToken})
	require.Equal(t, http.StatusOK, list.Code)
	goldenJSON(t, "saved_replies/list", list.Body.Bytes())
	goldenJSON(t, "saved_replies/list_with_chat", w.do(request{method: "GET", path: base + "?includeChatReplies=true", token: ownerToken}).Body.Bytes())
	goldenJSON(t, "saved_replies/get", w.do(request{method: "GET", path: base + "/1", token: ownerToken}).Body.Bytes())

	t.Run("a reply written from one records it", func(t *testing.T) {
		id := w.create(convJSON(nil))
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"Refunds take 5 days.","savedReplyId":1}`, http.StatusCreated)
		reply := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)
		assert.Equal(t, float64(1), reply["savedReplyId"])
		body := w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), `{"text":"x","savedReplyId":99}`, http.StatusBadRequest)
		assert.Equal(t, "Invalid identifier", errorCode(t, body))
		other := w.create(convJSON(map[string]any{"mailboxId": billingID}))
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", other), `{"text":"x","savedReplyId":1}`, http.StatusBadRequest)
	})
	t.Run("update replaces, delete removes", func(t *testing.T) {
		w.send("PUT", base+"/2", `{"name":"Chat hello","text":"Hello by e-mail"}`, http.StatusNoContent)
		got := decode(t, w.do(request{method: "GET", path: base + "/2", token: ownerToken}))
		assert.Equal(t, map[string]any{"id": float64(2), "name": "Chat hello", "text": "Hello by e-mail", "chatText": ""}, got)
		w.send("DELETE", base+"/2", "", http.StatusNoContent)
		w.send("GET", base+"/2", "", http.StatusNotFound)
		w.send("DELETE", base+"/2", "", http.StatusNotFound)
	})
	for _, tc := range []struct {
		name, token, method, path, body string
		status                          int
		want                            []string
	}{
		{"no name", ownerToken, "POST", base, `{"text":"x"}`, http.StatusBadRequest, []string{"name: Null value"}},
		{"no text at all", ownerToken, "POST", base, `{"name":"x","text":"  "}`, http.StatusBadRequest, []string{"text: Empty value"}},
		{"name too long", ownerToken, "POST", base, fmt.Sprintf(`{"name":%q,"text":"x"}`, longText(256)), http.StatusBadRequest, []string{"name: Size"}},
		{"text too long", ownerToken, "POST", base, fmt.Sprintf(`{"name":"x","text":%q}`, longText(50001)), http.StatusBadRequest, []string{"text: Size"}},
		{"a mailbox the user may not use", userToken, "GET", fmt.Sprintf("/v2/mailboxes/%d/saved-replies", billingID), "", http.StatusNotFound, nil},
		{"another company", globexToken, "GET", base + "/1", "", http.StatusNotFound, nil},
		{"another company's mailbox", globexToken, "POST", base, `{"name":"x","text":"y"}`, http.StatusNotFound, nil},
		{"the reply of another mailbox", ownerToken, "GET", fmt.Sprintf("/v2/mailboxes/%d/saved-replies/1", billingID), "", http.StatusNotFound, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: tc.method, path: tc.path, token: tc.token, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
}
