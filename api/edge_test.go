package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
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
