package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrictBodies: a body is exactly one JSON value, not null, and its
// strings hold no control characters but tab, CR and LF; numbers and
// booleans sent as strings are read as the real service reads them.
func TestStrictBodies(t *testing.T) {
	w := newWorld(t)
	cu := w.newCustomer(map[string]any{"firstName": "Keep", "lastName": "Me"})
	conv := w.create(convJSON(nil))
	valid := convJSON(nil)
	withText := func(text string) string {
		return strings.Replace(valid, `"Hello, my order has not arrived."`, text, 1)
	}
	for _, tc := range []struct {
		name, method, path, body string
		golden                   string // the whole error body, when set
		path0                    string // the first error's path
	}{
		{"trailing garbage after an object", "POST", "/v2/conversations", valid + "}garbage", "errors/body_trailing_garbage", ""},
		{"two values", "POST", "/v2/conversations", valid + " " + valid, "", ""},
		{"null instead of an object", "PUT", fmt.Sprintf("/v2/customers/%d", cu), "null", "errors/body_null", ""},
		{"null on a create", "POST", "/v2/conversations", " null ", "", ""},
		{"NUL in a thread", "POST", "/v2/conversations", withText(`"a\u0000b"`), "errors/body_control_char", "threads[0].text"},
		{"escape character", "POST", "/v2/conversations", withText(`"\u001b[31mred"`), "", "threads[0].text"},
		{"backspace escape", "POST", "/v2/conversations", withText(`"oops\b"`), "", "threads[0].text"},
		{"DEL", "POST", "/v2/conversations", withText("\"del\x7f\""), "", "threads[0].text"},
		{"control character in a customer name", "PUT", fmt.Sprintf("/v2/customers/%d", cu), `{"firstName":"Bad\u0007","lastName":"Me"}`, "", "firstName"},
		{"control character in a patch", "PATCH", fmt.Sprintf("/v2/conversations/%d", conv), `{"op":"replace","path":"/subject","value":"x\u0000"}`, "", "value"},
		{"control character in the public widget", "POST", "/v2/widgets/" + supportWidget + "/chats", `{"name":"V","email":"v@example.com","message":"hi\u0000"}`, "", "message"},
		{"a string that is no number", "POST", "/v2/conversations", strings.Replace(valid, fmt.Sprintf(`"mailboxId":%d`, supportID), `"mailboxId":"one"`, 1), "", "mailboxId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token := ownerToken
			if strings.HasPrefix(tc.path, "/v2/widgets/") {
				token = ""
			}
			rec := w.do(request{method: tc.method, path: tc.path, token: token, body: tc.body})
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			first := firstError(t, rec)
			assert.Equal(t, "Invalid JSON", first["code"])
			if tc.path0 != "" {
				assert.Equal(t, tc.path0, first["path"])
			}
			if tc.golden != "" {
				goldenJSON(t, tc.golden, rec.Body.Bytes())
			}
		})
	}
	assert.Equal(t, "Keep", decode(t, w.get(fmt.Sprintf("/v2/customers/%d", cu)))["firstName"], "a refused null changed nothing")

	t.Run("tab, CR and LF are text", func(t *testing.T) {
		id := w.create(withText(`"line one\r\n\tline two"`))
		assert.Contains(t, w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["body"], "\tline two")
	})
	t.Run("numbers and booleans sent as strings", func(t *testing.T) {
		body := strings.Replace(valid, fmt.Sprintf(`"mailboxId":%d`, supportID), fmt.Sprintf(`"mailboxId":"%d","autoReply":"false"`, supportID), 1)
		require.Contains(t, body, `"mailboxId":"1"`)
		id := w.create(body)
		w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", id), fmt.Sprintf(`{"op":"replace","path":"/assignTo","value":"%d"}`, agentID), http.StatusNoContent)
		assert.Equal(t, float64(agentID), field(t, w.conv(id), "assignee", "id"))
	})
}
