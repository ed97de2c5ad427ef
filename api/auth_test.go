package api_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenClientCredentialsForms(t *testing.T) {
	w := newWorld(t)
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {appClientID}, "client_secret": {appSecret}}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(appClientID+":"+appSecret))
	cases := []struct {
		name string
		req  request
	}{
		{"json body", request{method: http.MethodPost, path: "/v2/oauth2/token",
			body: `{"grant_type":"client_credentials","client_id":"acme-app","client_secret":"acme-app-secret"}`}},
		{"form body", request{method: http.MethodPost, path: "/v2/oauth2/token", body: form.Encode(), contentType: "application/x-www-form-urlencoded"}},
		{"query parameters, no body, no content type", request{method: http.MethodPost, path: "/v2/oauth2/token?" + form.Encode()}},
		{"basic auth with grant_type in the form", request{method: http.MethodPost, path: "/v2/oauth2/token", body: "grant_type=client_credentials",
			contentType: "application/x-www-form-urlencoded", header: map[string]string{"Authorization": basic}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(tc.req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			body := decode(t, rec)
			assert.Equal(t, "bearer", body["token_type"])
			assert.Equal(t, float64(172800), body["expires_in"])
			assert.NotContains(t, body, "refresh_token")
			token := body["access_token"].(string)
			assert.GreaterOrEqual(t, len(token), 40)
			me := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token})
			require.Equal(t, http.StatusOK, me.Code)
			assert.Equal(t, "olivia@acme.test", decode(t, me)["email"])
		})
	}
}

func TestTokenErrors(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"wrong secret", "grant_type=client_credentials&client_id=acme-app&client_secret=wrong", http.StatusUnauthorized,
			`{"error":"invalid_client","error_description":"unknown client or wrong secret"}`},
		{"unknown client", "grant_type=client_credentials&client_id=nobody&client_secret=x", http.StatusUnauthorized,
			`{"error":"invalid_client","error_description":"unknown client or wrong secret"}`},
		{"missing grant type", "client_id=acme-app&client_secret=x", http.StatusBadRequest,
			`{"error":"invalid_request","error_description":"grant_type is required"}`},
		{"unsupported grant type", "grant_type=password&client_id=acme-app&client_secret=x", http.StatusBadRequest,
			`{"error":"unsupported_grant_type","error_description":"supported grant types: authorization_code, client_credentials, refresh_token"}`},
		{"missing secret", "grant_type=client_credentials&client_id=acme-app", http.StatusBadRequest,
			`{"error":"invalid_request","error_description":"client_id and client_secret are required"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodPost, path: "/v2/oauth2/token", body: tc.body, contentType: "application/x-www-form-urlencoded"})
			assert.Equal(t, tc.status, rec.Code)
			assert.JSONEq(t, tc.want, rec.Body.String())
		})
	}
	// No secret or token reaches the logs.
	assert.NotContains(t, w.logs.String(), "acme-app-secret")
}

func TestExpiredIssuedToken(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: http.MethodPost, path: "/v2/oauth2/token", body: "grant_type=client_credentials&client_id=acme-app&client_secret=acme-app-secret",
		contentType: "application/x-www-form-urlencoded"})
	require.Equal(t, http.StatusOK, rec.Code)
	token := decode(t, rec)["access_token"].(string)
	w.clock.advance(172799e9)
	me := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token})
	require.Equal(t, http.StatusOK, me.Code, me.Body.String())
	assert.Equal(t, "olivia@acme.test", decode(t, me)["email"], "the token acts for the application's user")
	w.clock.advance(1e9)
	assert.Equal(t, "401 Unauthorized: the token has expired", apiError(t, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token})))
}
