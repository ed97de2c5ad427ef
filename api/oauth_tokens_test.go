package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// issueCode approves the test app for a user, as the consent page does.
func (w *world) issueCode(userID int64) string {
	w.t.Helper()
	var code string
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		app, err := tx.App(appClientID)
		if err != nil {
			return err
		}
		app.RedirectURI = flowRedirect
		u, err := tx.User(acmeID, userID)
		if err != nil {
			return err
		}
		code, err = parley.IssueAuthCode(tx, app, u, parley.PKCE{}, w.clock.Now())
		return err
	})
	require.NoError(w.t, err)
	return code
}

// tokenPair exchanges a fresh code of the owner.
func (w *world) tokenPair() (access, refresh string) {
	w.t.Helper()
	status, body := w.tokenRequest(codeGrant(w.issueCode(ownerID)))
	require.Equal(w.t, http.StatusOK, status, body)
	return body["access_token"].(string), body["refresh_token"].(string)
}

func refreshGrant(token string) url.Values {
	return url.Values{"grant_type": {"refresh_token"}, "client_id": {appClientID}, "client_secret": {appSecret}, "refresh_token": {token}}
}

func (w *world) me(token string) int {
	return w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token}).Code
}

func TestRefreshRotationAndReplay(t *testing.T) {
	w := newWorld(t)
	access1, refresh1 := w.tokenPair()

	status, body := w.tokenRequest(refreshGrant(refresh1))
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, []string{"access_token", "expires_in", "refresh_token", "token_type"}, keys(body))
	access2, refresh2 := body["access_token"].(string), body["refresh_token"].(string)
	assert.NotEqual(t, refresh1, refresh2, "a new refresh token is issued")
	assert.Equal(t, http.StatusOK, w.me(access1), "rotation leaves the older access token to expire on its own")
	assert.Equal(t, http.StatusOK, w.me(access2))

	// The rotated token is replayed (someone copied it): the whole chain
	// is revoked, the legitimate newest tokens included.
	status, body = w.tokenRequest(refreshGrant(refresh1))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, map[string]any{"error": "invalid_grant",
		"error_description": "the refresh token was already used; every token of its grant is revoked"}, body)
	for _, tok := range []string{access1, access2} {
		assert.Equal(t, http.StatusUnauthorized, w.me(tok))
	}
	status, body = w.tokenRequest(refreshGrant(refresh2))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "the refresh token was revoked", body["error_description"])

	// Another chain is untouched; an unknown refresh token is invalid_grant.
	_, refresh3 := w.tokenPair()
	status, _ = w.tokenRequest(refreshGrant(refresh3))
	assert.Equal(t, http.StatusOK, status)
	status, body = w.tokenRequest(refreshGrant("nope"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", body["error"])
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTokenEndpointInputs sends every grant's errors as a form, JSON,
// query parameters and with HTTP Basic client credentials.
func TestTokenEndpointInputs(t *testing.T) {
	w := newWorld(t)
	_, refresh := w.tokenPair()
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(appClientID+":"+appSecret))
	send := func(how string, fields map[string]string) request {
		r := request{method: http.MethodPost, path: "/v2/oauth2/token"}
		form := url.Values{}
		for k, v := range fields {
			form.Set(k, v)
		}
		switch how {
		case "json":
			b, _ := json.Marshal(fields)
			r.body = string(b)
		case "form":
			r.body, r.contentType = form.Encode(), "application/x-www-form-urlencoded"
		case "query":
			r.path += "?" + form.Encode()
		case "basic":
			form.Del("client_id")
			form.Del("client_secret")
			r.body, r.contentType = form.Encode(), "application/x-www-form-urlencoded"
			r.header = map[string]string{"Authorization": basic}
		}
		return r
	}
	client := map[string]string{"client_id": appClientID, "client_secret": appSecret}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range client {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name   string
		fields map[string]string
		status int
		want   string
	}{
		{"unknown code", with(map[string]string{"grant_type": "authorization_code", "code": "nope"}), 400,
			`{"error":"invalid_grant","error_description":"the authorization code is invalid"}`},
		{"missing code", with(map[string]string{"grant_type": "authorization_code"}), 400,
			`{"error":"invalid_request","error_description":"code is required"}`},
		{"missing refresh token", with(map[string]string{"grant_type": "refresh_token"}), 400,
			`{"error":"invalid_request","error_description":"refresh_token is required"}`},
		{"unsupported grant", with(map[string]string{"grant_type": "password"}), 400,
			`{"error":"unsupported_grant_type","error_description":"supported grant types: authorization_code, client_credentials, refresh_token"}`},
		{"refresh works", with(map[string]string{"grant_type": "refresh_token", "refresh_token": refresh}), 200, ""},
		{"rotated refresh", with(map[string]string{"grant_type": "refresh_token", "refresh_token": refresh}), 400,
			`{"error":"invalid_grant","error_description":"the refresh token was already used; every token of its grant is revoked"}`},
	}
	for _, how := range []string{"form", "json", "query", "basic"} {
		_, refresh = w.tokenPair()
		cases[4].fields["refresh_token"], cases[5].fields["refresh_token"] = refresh, refresh
		for _, tc := range cases {
			t.Run(how+"/"+tc.name, func(t *testing.T) {
				rec := w.do(send(how, tc.fields))
				require.Equal(t, tc.status, rec.Code, rec.Body.String())
				assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
				if tc.want != "" {
					assert.JSONEq(t, tc.want, rec.Body.String())
				}
			})
		}
	}
	rec := w.do(request{method: http.MethodPost, path: "/v2/oauth2/token", body: `{"grant_type":`})
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.JSONEq(t, `{"error":"invalid_request","error_description":"the request body is malformed"}`, rec.Body.String())
}

// giveOwnerV1Key gives Acme's account owner the V1 API key
// "olivia-v1-key", for the V1 key exchange.
func (w *world) giveOwnerV1Key() {
	w.t.Helper()
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		u, err := tx.User(acmeID, ownerID)
		if err != nil {
			return err
		}
		u.V1KeyHash = parley.HashToken("olivia-v1-key")
		return tx.PutUser(u)
	})
	require.NoError(w.t, err)
}

func TestV1Exchange(t *testing.T) {
	w := newWorld(t)
	w.giveOwnerV1Key()
	exchange := func(body string) (int, map[string]any) {
		rec := w.do(request{method: http.MethodPost, path: "/transition", body: body})
		return rec.Code, decode(t, rec)
	}
	status, first := exchange(`{"apiKey":"olivia-v1-key","clientId":"acme-app"}`)
	require.Equal(t, http.StatusOK, status, first)
	assert.Equal(t, []string{"accessToken", "expiresIn", "refreshToken"}, keys(first))
	assert.Equal(t, float64(172800), first["expiresIn"])
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, first["refreshToken"])
	assert.Equal(t, http.StatusOK, w.me(first["accessToken"].(string)))

	// The same key returns the existing token, with the time it has left.
	w.clock.advance(3600e9)
	status, again := exchange(`{"apiKey":"olivia-v1-key","clientId":"acme-app"}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, first["accessToken"], again["accessToken"])
	assert.Equal(t, first["refreshToken"], again["refreshToken"])
	assert.Equal(t, float64(172800-3600), again["expiresIn"])

	// The refresh token is a real refresh token of the application.
	code, body := w.tokenRequest(refreshGrant(first["refreshToken"].(string)))
	require.Equal(t, http.StatusOK, code, body)
	status, third := exchange(`{"apiKey":"olivia-v1-key","clientId":"acme-app"}`)
	require.Equal(t, http.StatusOK, status)
	assert.NotEqual(t, first["refreshToken"], third["refreshToken"], "a rotated exchange is made afresh")

	cases := []struct{ name, body, want string }{
		{"bad key", `{"apiKey":"nope","clientId":"acme-app"}`, `{"status":400,"message":"the apiKey is invalid or does not exist"}`},
		{"bad client", `{"apiKey":"olivia-v1-key","clientId":"nope"}`, `{"status":400,"message":"the clientId is invalid or does not exist"}`},
		{"missing key", `{"clientId":"acme-app"}`, `{"status":400,"message":"apiKey is required"}`},
		{"malformed", `{"apiKey":`, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodPost, path: "/transition", body: tc.body})
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			if tc.want != "" {
				assert.JSONEq(t, tc.want, rec.Body.String())
			} else {
				assert.Equal(t, float64(400), decode(t, rec)["status"])
			}
		})
	}
	assert.NotContains(t, w.logs.String(), "olivia-v1-key")
	assert.NotContains(t, w.logs.String(), first["accessToken"])
}

// TestTokensStopWorking: a deactivated user's, a revoked app's tokens
// answer 401 from the next request.
func TestTokensStopWorking(t *testing.T) {
	w := newWorld(t)
	status, body := w.tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {appClientID}, "client_secret": {appSecret}})
	require.Equal(t, http.StatusOK, status)
	cc := body["access_token"].(string)
	access, _ := w.tokenPair()
	require.Equal(t, http.StatusOK, w.me(cc))
	update := func(fn func(tx parley.Tx) error) {
		_, err := w.store.Update(context.Background(), fn)
		require.NoError(t, err)
	}
	update(func(tx parley.Tx) error {
		u, _ := tx.User(acmeID, ownerID)
		u.Active, u.Deactivated = false, true
		return tx.PutUser(u)
	})
	for _, tok := range []string{cc, access, ownerToken} {
		rec := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: tok})
		assert.Equal(t, http.StatusUnauthorized, rec.Code)
		assert.Equal(t, "the token's user is not an active user of the account", decode(t, rec)["message"])
	}
	status, body = w.tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {appClientID}, "client_secret": {appSecret}})
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "invalid_client", body["error"])

	update(func(tx parley.Tx) error {
		u, _ := tx.User(acmeID, ownerID)
		u.Active, u.Deactivated = true, false
		return tx.PutUser(u)
	})
	require.Equal(t, http.StatusOK, w.me(cc))
	update(func(tx parley.Tx) error {
		a, _ := tx.App(appClientID)
		now := w.clock.Now()
		a.RevokedAt = &now
		return tx.PutApp(a)
	})
	rec := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: cc})
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Equal(t, "the application was revoked", decode(t, rec)["message"])
	assert.Equal(t, http.StatusUnauthorized, w.me(access))
	assert.Equal(t, http.StatusOK, w.me(ownerToken), "tokens of other applications keep working")
}
