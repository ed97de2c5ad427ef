package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
	"github.com/parley/parley/query"
)

func TestEdgeErrors(t *testing.T) {
	w := newWorld(t)
	big := `{"firstName":"` + strings.Repeat("a", api.MaxBodyBytes) + `"}`
	cases := []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"invalid_uri_escape", request{method: http.MethodGet, path: "/v2/users?email=%zz", token: ownerToken}, 400, "Invalid URI"},
		{"invalid_uri_too_long", request{method: http.MethodGet, path: "/v2/users?email=" + strings.Repeat("a", api.MaxURIBytes), token: ownerToken}, 400, "Invalid URI"},
		{"body_too_large", request{method: http.MethodPost, path: "/v2/users", token: ownerToken, body: big}, 413, "Request too large"},
		{"not_json", request{method: http.MethodPost, path: "/v2/users", token: ownerToken, body: "x=1", contentType: "application/x-www-form-urlencoded"}, 415, "Invalid media type"},
		{"wrong_method", request{method: http.MethodDelete, path: "/v2/users/status", token: ownerToken}, 405, "Invalid HTTP method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(tc.req)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			assert.NotEmpty(t, rec.Header().Get("X-Request-ID"))
			assert.Equal(t, tc.code, errorCode(t, decode(t, rec)))
		})
	}
	goldenError(t, "auth/invalid_uri", w.do(cases[0].req))
}

// TestEdgeLongQueryWords: a query word of any length the query allows,
// alone, quoted, under a field or as a prefix, finds nothing and is
// offered no suggestion; never a 500 (the spelling suggestions failed on
// words of 2,499 letters). A longer query is a 400.
func TestEdgeLongQueryWords(t *testing.T) {
	w := newWorld(t)
	w.create(convJSON(nil)) // the company has words, so suggestions are looked for
	long, longest := strings.Repeat("q", 2499), strings.Repeat("q", query.MaxLength)
	cases := []struct {
		name, list, query string
		status            int
	}{
		{"word", "conversations", long, http.StatusOK},
		{"longest_query", "conversations", longest, http.StatusOK},
		{"quoted", "conversations", `"` + long + `"`, http.StatusOK},
		{"field", "conversations", "subject:" + long, http.StatusOK},
		{"group", "conversations", "body:(" + long + " OR refund)", http.StatusOK},
		{"prefix", "conversations", long + "*", http.StatusOK},
		{"keyword_prefix", "conversations", "email:" + long + "*", http.StatusOK},
		{"too_long", "conversations", longest + "q", http.StatusBadRequest},
		{"word", "customers", long, http.StatusOK},
		{"longest_query", "customers", longest, http.StatusOK},
		{"field", "customers", "firstName:" + long, http.StatusOK},
		{"quoted", "customers", `firstName:"` + long + `"`, http.StatusOK},
		{"contains", "customers", "email:" + long + "*", http.StatusOK},
		{"too_long", "customers", longest + "q", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.list+"_"+tc.name, func(t *testing.T) {
			rec := w.get("/v2/" + tc.list + "?query=" + url.QueryEscape(tc.query))
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			body := decode(t, rec)
			if tc.status != http.StatusOK {
				assert.Equal(t, "Invalid query", errorCode(t, body))
				return
			}
			assert.Equal(t, float64(0), field(t, body, "page", "totalElements"))
			assert.NotContains(t, body, "suggestions")
		})
	}
}

func TestInternalTimeout(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.RequestTimeout = 1 })
	rec := w.do(request{method: http.MethodGet, path: "/v2/conversations", token: ownerToken})
	require.Equal(t, http.StatusGatewayTimeout, rec.Code, rec.Body.String())
	goldenError(t, "auth/internal_timeout", rec)
}

func TestClientAbortIsLogged(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodGet, "https://api.parley.test/v2/conversations", nil).WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+ownerToken)
	rec := httptest.NewRecorder()
	w.server.ServeHTTP(rec, req)
	assert.Contains(t, w.logs.String(), `msg="Client Abort" code="Client Abort"`)
	assert.NotContains(t, w.logs.String(), ownerToken)
}
