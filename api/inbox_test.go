package api_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webPath is the path of a conversation's web link: the world's WebURL is
// another host name for the same Parley.
func webPath(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	require.Equal(t, "app.parley.test", u.Host)
	return u.Path
}

// TestConversationWebLink: a conversation's web link (Web-Location,
// _links.web) opens the inbox, an HTML page; and the page of a
// conversation the agent may not see, of another company's or in a
// mailbox without access, is the very page of one that does not exist,
// while the API the page reads answers the agent the same 404 for all.
func TestConversationWebLink(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		w := newWorldOn(t, on)
		created := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: convJSON(nil)})
		require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
		seen := webPath(t, created.Header().Get("Web-Location"))
		id := created.Header().Get("Resource-ID")
		body := decode(t, w.get("/v2/conversations/"+id))
		assert.Equal(t, seen, webPath(t, field(t, body, "_links", "web", "href").(string)), "_links.web and Web-Location agree")

		billing := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken, body: convJSON(map[string]any{"mailboxId": billingID})})
		require.Equal(t, http.StatusCreated, billing.Code, billing.Body.String())
		globex := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: globexToken, body: convJSON(map[string]any{"mailboxId": globexMailboxID})})
		require.Equal(t, http.StatusCreated, globex.Code, globex.Body.String())

		page := w.do(request{method: http.MethodGet, path: seen})
		require.Equal(t, http.StatusOK, page.Code)
		assert.Equal(t, "text/html; charset=utf-8", page.Header().Get("Content-Type"))
		assert.Contains(t, page.Body.String(), `<script type="module" src="../../inbox/assets/main.js"></script>`)
		assert.Equal(t, "no-referrer", page.Header().Get("Referrer-Policy"))

		// The user has access to Support only: Billing's conversation and
		// Globex's are hidden from them as one that does not exist.
		for _, hidden := range []struct{ name, path, apiPath string }{
			{"a mailbox without access", webPath(t, billing.Header().Get("Web-Location")), "/v2/conversations/" + billing.Header().Get("Resource-ID")},
			{"another company's", webPath(t, globex.Header().Get("Web-Location")), "/v2/conversations/" + globex.Header().Get("Resource-ID")},
			{"one that does not exist", "/conversation/999999/999999", "/v2/conversations/999999"},
		} {
			other := w.do(request{method: http.MethodGet, path: hidden.path})
			assert.Equal(t, http.StatusOK, other.Code, hidden.name)
			assert.Equal(t, page.Body.String(), other.Body.String(), "%s: the page is the same for every conversation", hidden.name)
			for _, h := range []http.Header{page.Header(), other.Header()} {
				h.Del("X-Request-Id") // each request's own
			}
			assert.Equal(t, page.Header(), other.Header(), hidden.name)
			asUser := w.do(request{method: http.MethodGet, path: hidden.apiPath, token: userToken})
			assert.Equal(t, "404 Not found: conversation not found", apiError(t, asUser), "%s: what the page reads", hidden.name)
		}
		asUser := w.do(request{method: http.MethodGet, path: "/v2/conversations/" + id, token: userToken})
		assert.Equal(t, http.StatusOK, asUser.Code, "the user sees Support's conversation")
	})
}

func TestInboxFiles(t *testing.T) {
	t.Parallel()
	checkWebAppFiles(t, newWorld(t), "/inbox", []webAppFile{
		{"main.js", "text/javascript; charset=utf-8", "import"},
		{"inbox.css", "text/css; charset=utf-8", ":root"},
		{"handoff.js", "text/javascript; charset=utf-8", "finishSignIn"},
	})
	signin := newWorld(t).do(request{method: http.MethodGet, path: "/inbox/signin"})
	assert.Equal(t, http.StatusSeeOther, signin.Code)
}
