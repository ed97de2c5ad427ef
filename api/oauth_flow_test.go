package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/golden"
)

const (
	flowRedirect = "https://client.example/callback?app=1"
	ownerPass    = "owner-password-123"
)

// browser is a cookie-keeping HTTPS client of the authorization pages
// served by the real handler; it never follows redirects by itself.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

// newFlowWorld gives the seeded app a redirect URL and the owner a
// password, and serves the handler over TLS.
func newFlowWorld(t *testing.T) (*world, *browser) {
	w := newWorld(t)
	hash, err := bcrypt.GenerateFromPassword([]byte(ownerPass), bcrypt.MinCost)
	require.NoError(t, err)
	_, err = w.store.Update(context.Background(), func(tx parley.Tx) error {
		app, err := tx.App(appClientID)
		if err != nil {
			return err
		}
		app.RedirectURI = flowRedirect
		if err := tx.PutApp(app); err != nil {
			return err
		}
		u, err := tx.User(acmeID, ownerID)
		if err != nil {
			return err
		}
		u.PasswordHash = string(hash)
		return tx.PutUser(u)
	})
	require.NoError(t, err)
	return w, newBrowser(t, w)
}

func newBrowser(t *testing.T, w *world) *browser {
	srv := httptest.NewTLSServer(w.server)
	t.Cleanup(srv.Close)
	client := srv.Client()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client.Jar = jar
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: t, base: srv.URL, client: client}
}

// call makes one request and returns the response with its body read.
func (b *browser) call(method, path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	return res, string(data)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	return m[1]
}

func authorizeURL(clientID, state string) string {
	return "/authentication/authorizeClientApplication?" + url.Values{"client_id": {clientID}, "state": {state}}.Encode()
}

// signIn follows the authorization link, signing in when the browser has
// no session, and returns the consent page.
func (b *browser) signIn(email, password, state string) string {
	b.t.Helper()
	return b.signInTo(testAppRequest(state), "Test app", email, password)
}

// testAppRequest is an authorization request of the test app.
func testAppRequest(state string) url.Values {
	return url.Values{"client_id": {appClientID}, "state": {state}}
}

// signInTo is signIn for the authorization request req (client_id, state
// and perhaps a PKCE challenge) of the application named appName.
func (b *browser) signInTo(req url.Values, appName, email, password string) string {
	b.t.Helper()
	authorize := "/authentication/authorizeClientApplication?" + req.Encode()
	res, page := b.call(http.MethodGet, authorize, nil)
	require.Equal(b.t, http.StatusOK, res.StatusCode, page)
	if strings.Contains(page, "Authorize "+appName) {
		return page // signed in already: the session cookie was sent
	}
	require.Contains(b.t, page, `action="/authentication/login"`)
	form := withFields(req, url.Values{"csrf": {csrfOf(b.t, page)}, "email": {email}, "password": {password}})
	res, page = b.call(http.MethodPost, "/authentication/login", form)
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode, page)
	require.Equal(b.t, authorize, res.Header.Get("Location"))
	res, page = b.call(http.MethodGet, res.Header.Get("Location"), nil)
	require.Equal(b.t, http.StatusOK, res.StatusCode)
	require.Contains(b.t, page, "Authorize "+appName)
	return page
}

// withFields is a copy of req with fields added.
func withFields(req, fields url.Values) url.Values {
	out := url.Values{}
	for _, v := range []url.Values{req, fields} {
		for k, vs := range v {
			out[k] = vs
		}
	}
	return out
}

// decide posts the consent form and returns the redirect's URL.
func (b *browser) decide(page, state, decision string) *url.URL {
	b.t.Helper()
	return b.decideFor(testAppRequest(state), page, decision)
}

// decideFor is decide for the authorization request req.
func (b *browser) decideFor(req url.Values, page, decision string) *url.URL {
	b.t.Helper()
	res, body := b.call(http.MethodPost, "/authentication/authorizeClientApplication",
		withFields(req, url.Values{"csrf": {csrfOf(b.t, page)}, "decision": {decision}}))
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode, body)
	u, err := url.Parse(res.Header.Get("Location"))
	require.NoError(b.t, err)
	return u
}

func (w *world) tokenRequest(form url.Values) (int, map[string]any) {
	w.t.Helper()
	rec := w.do(request{method: http.MethodPost, path: "/v2/oauth2/token", body: form.Encode(), contentType: "application/x-www-form-urlencoded"})
	return rec.Code, decode(w.t, rec)
}

func codeGrant(code string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "client_id": {appClientID}, "client_secret": {appSecret}, "code": {code}}
}

func TestAuthorizationCodeFlow(t *testing.T) {
	w, b := newFlowWorld(t)
	var secrets []string

	// Approve: the redirect carries a code and the state; the code buys
	// an access token and a refresh token acting as the signed-in user.
	page := b.signIn("olivia@acme.test", ownerPass, "xyz 1")
	back := b.decide(page, "xyz 1", "approve")
	assert.Equal(t, "client.example", back.Host)
	assert.Equal(t, "/callback", back.Path)
	assert.Equal(t, "1", back.Query().Get("app"), "the redirect URL's own query is kept")
	assert.Equal(t, "xyz 1", back.Query().Get("state"))
	code := back.Query().Get("code")
	require.NotEmpty(t, code)
	status, body := w.tokenRequest(codeGrant(code))
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "bearer", body["token_type"])
	assert.Equal(t, float64(172800), body["expires_in"])
	access, refresh := body["access_token"].(string), body["refresh_token"].(string)
	require.NotEmpty(t, refresh)
	me := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: access})
	require.Equal(t, http.StatusOK, me.Code)
	assert.Equal(t, "olivia@acme.test", decode(t, me)["email"])
	secrets = append(secrets, code, access, refresh)

	// Reused code: invalid_grant, and what it was exchanged for is revoked.
	status, body = w.tokenRequest(codeGrant(code))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, map[string]any{"error": "invalid_grant",
		"error_description": "the authorization code was already used; the tokens issued for it are revoked"}, body)
	assert.Equal(t, http.StatusUnauthorized, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: access}).Code)

	// Deny: back to the application with access_denied and the state.
	page = b.signIn("olivia@acme.test", ownerPass, "s2")
	back = b.decide(page, "s2", "deny")
	assert.Equal(t, "https://client.example/callback?app=1&error=access_denied&state=s2", back.String())

	// Wrong state: a consent form whose state was altered is refused, and
	// nothing is sent to the application.
	res, html := b.call(http.MethodPost, "/authentication/authorizeClientApplication", url.Values{
		"csrf": {csrfOf(t, page)}, "client_id": {appClientID}, "state": {"forged"}, "decision": {"approve"}})
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Empty(t, res.Header.Get("Location"))
	assert.Contains(t, html, "This form has expired or was altered")

	// Expired code: codes live five minutes.
	page = b.signIn("olivia@acme.test", ownerPass, "s3")
	code = b.decide(page, "s3", "approve").Query().Get("code")
	w.clock.advance(parley.AuthCodeLifetime)
	status, body = w.tokenRequest(codeGrant(code))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, map[string]any{"error": "invalid_grant", "error_description": "the authorization code has expired"}, body)

	// A code only works for the application it was issued to.
	page = b.signIn("olivia@acme.test", ownerPass, "s4")
	code = b.decide(page, "s4", "approve").Query().Get("code")
	status, body = w.tokenRequest(url.Values{"grant_type": {"authorization_code"}, "client_id": {appClientID}, "client_secret": {"wrong"}, "code": {code}})
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "invalid_client", body["error"])
	status, body = w.tokenRequest(codeGrant("not-a-code"))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", body["error"])
	secrets = append(secrets, code, ownerPass, appSecret)

	// The pages come over TLS with HSTS; the session cookie is HttpOnly,
	// Secure and SameSite.
	res, _ = b.call(http.MethodGet, authorizeURL(appClientID, "s5"), nil)
	assert.Equal(t, "max-age=31536000", res.Header.Get("Strict-Transport-Security"))
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))

	for _, s := range secrets {
		assert.NotContains(t, w.logs.String(), s, "no secret, code or token in the logs")
	}
}

func TestLoginPage(t *testing.T) {
	w, b := newFlowWorld(t)
	res, page := b.call(http.MethodGet, authorizeURL(appClientID, "st"), nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	csrf := csrfOf(t, page)
	var cookie string
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "parley_csrf=") {
			cookie = c
		}
	}
	assert.Contains(t, cookie, "HttpOnly")
	assert.Contains(t, cookie, "Secure")
	assert.Contains(t, cookie, "SameSite=Lax")
	form := func(csrf, email, password string) url.Values {
		return url.Values{"csrf": {csrf}, "client_id": {appClientID}, "state": {"st"}, "email": {email}, "password": {password}}
	}
	cases := []struct {
		name   string
		form   url.Values
		status int
		text   string
	}{
		{"missing csrf", form("", "olivia@acme.test", ownerPass), http.StatusBadRequest, "This form has expired or was altered"},
		{"forged csrf", form("AAAA"+csrf[4:], "olivia@acme.test", ownerPass), http.StatusBadRequest, "This form has expired or was altered"},
		{"wrong password", form(csrf, "olivia@acme.test", "nope"), http.StatusUnauthorized, "Wrong e-mail or password."},
		{"unknown user", form(csrf, "nobody@acme.test", ownerPass), http.StatusUnauthorized, "Wrong e-mail or password."},
		{"user without password", form(csrf, "adam@acme.test", ""), http.StatusUnauthorized, "Wrong e-mail or password."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, page := b.call(http.MethodPost, "/authentication/login", tc.form)
			assert.Equal(t, tc.status, res.StatusCode)
			assert.Contains(t, page, tc.text)
			assert.Empty(t, res.Header.Get("Location"))
		})
	}
	// An unknown application gets an error page, never a redirect.
	res, page = b.call(http.MethodGet, authorizeURL("nobody", "st"), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "This application is unknown or cannot ask for access.")
	// Consent without a session goes back to the sign-in form.
	fresh := newBrowser(t, w)
	res, page = fresh.call(http.MethodPost, "/authentication/authorizeClientApplication", url.Values{"client_id": {appClientID}, "decision": {"approve"}})
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Contains(t, page, "Your session has ended. Sign in again.")
	// An HTML value is escaped.
	_, page = fresh.call(http.MethodGet, authorizeURL(appClientID, `"><script>x</script>`), nil)
	assert.NotContains(t, page, "<script>x")
}

// TestConsentPageNamesTheMaker: the consent page names the application and
// the company that made it, and warns when that is not the user's
// company; an application whose company cannot be told gets no consent
// page. The whole page is golden, its CSRF token aside.
func TestConsentPageNamesTheMaker(t *testing.T) {
	w, b := newFlowWorld(t)
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		for _, app := range []*parley.App{
			{ClientID: "globex-crm", CompanyID: globexID, UserID: globexOwnerID, Name: "Globex CRM", RedirectURI: flowRedirect, CreatedAt: epoch},
			{ClientID: "orphan", CompanyID: 99, UserID: 1, Name: "Orphan", RedirectURI: flowRedirect, CreatedAt: epoch},
		} {
			if err := tx.PutApp(app); err != nil {
				return err
			}
		}
		_, err := parley.FirstPartyApp(tx, parley.DashboardClientID, dashboardAppName, "/reports/callback", epoch)
		return err
	})
	require.NoError(t, err)
	b.signIn("olivia@acme.test", ownerPass, "s")
	for _, tc := range []struct{ golden, clientID string }{
		{"consent_own_company", appClientID},
		{"consent_other_company", "globex-crm"},
		{"consent_parley", parley.DashboardClientID},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			res, page := b.call(http.MethodGet, authorizeURL(tc.clientID, "s"), nil)
			require.Equal(t, http.StatusOK, res.StatusCode, page)
			golden.Assert(t, "auth/"+tc.golden+".html", strings.Replace(page, csrfOf(t, page), "<csrf>", 1))
		})
	}
	res, page := b.call(http.MethodGet, authorizeURL("orphan", "s"), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "This application is unknown or cannot ask for access.")
}

func TestInvitedUserAcceptsBySigningIn(t *testing.T) {
	w, b := newFlowWorld(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("invited-pass"), bcrypt.MinCost)
	require.NoError(t, err)
	_, err = w.store.Update(context.Background(), func(tx parley.Tx) error {
		u, err := tx.User(acmeID, inactiveID)
		if err != nil {
			return err
		}
		u.PasswordHash = string(hash)
		return tx.PutUser(u)
	})
	require.NoError(t, err)
	assert.Equal(t, "401 Unauthorized: the token's user is not an active user of the account", apiError(t, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: inactiveToken})))
	b.signIn("ian@acme.test", "invited-pass", "s")
	me := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: inactiveToken})
	require.Equal(t, http.StatusOK, me.Code, "signing in accepted the invitation: %s", me.Body.String())
	assert.Equal(t, "ian@acme.test", decode(t, me)["email"])
}

// TestAuthorizationCodePKCE: an authorization request with an S256
// challenge carries it through the sign-in and consent forms to the code,
// which the token endpoint then exchanges only with its verifier.
func TestAuthorizationCodePKCE(t *testing.T) {
	w, b := newFlowWorld(t)
	// RFC 7636 appendix B's example.
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	req := withFields(testAppRequest("p1"), url.Values{"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
		"code_challenge_method": {"S256"}})
	page := b.signInTo(req, "Test app", "olivia@acme.test", ownerPass)
	assert.Contains(t, page, `<input type="hidden" name="code_challenge" value="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM">`)
	assert.Contains(t, page, `<input type="hidden" name="code_challenge_method" value="S256">`)

	// A consent form whose challenge was dropped or altered is refused.
	for _, altered := range []url.Values{testAppRequest("p1"), withFields(req, url.Values{"code_challenge": {parley.S256Challenge("mine")}})} {
		res, html := b.call(http.MethodPost, "/authentication/authorizeClientApplication",
			withFields(altered, url.Values{"csrf": {csrfOf(t, page)}, "decision": {"approve"}}))
		assert.Equal(t, http.StatusBadRequest, res.StatusCode)
		assert.Empty(t, res.Header.Get("Location"))
		assert.Contains(t, html, "This form has expired or was altered")
	}

	code := b.decideFor(req, page, "approve").Query().Get("code")
	require.NotEmpty(t, code)
	cases := []struct {
		name     string
		verifier string
		status   int
		body     map[string]any // the whole answer; nil for tokens
	}{
		{"no verifier", "", http.StatusBadRequest, map[string]any{"error": "invalid_grant",
			"error_description": "the authorization code was issued with a code_challenge: code_verifier is required"}},
		{"another verifier", verifier[1:] + "x", http.StatusBadRequest, map[string]any{"error": "invalid_grant",
			"error_description": "the code_verifier does not match the code_challenge"}},
		{"its verifier", verifier, http.StatusOK, nil},
	}
	for _, tc := range cases {
		grant := codeGrant(code)
		if tc.verifier != "" {
			grant.Set("code_verifier", tc.verifier)
		}
		status, body := w.tokenRequest(grant)
		assert.Equal(t, tc.status, status, tc.name)
		if tc.body != nil {
			assert.Equal(t, tc.body, body, tc.name)
			continue
		}
		assert.Equal(t, "bearer", body["token_type"], tc.name)
		assert.Equal(t, http.StatusOK, w.me(body["access_token"].(string)), tc.name)
	}

	// A verifier sent for a code issued without a challenge is refused.
	grant := codeGrant(w.issueCode(ownerID))
	grant.Set("code_verifier", verifier)
	status, body := w.tokenRequest(grant)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, map[string]any{"error": "invalid_grant",
		"error_description": "the authorization code was issued without a code_challenge: send no code_verifier"}, body)

	// A challenge Parley cannot verify is refused before anyone signs in.
	for _, bad := range []url.Values{
		{"code_challenge_method": {"plain"}},
		{"code_challenge_method": {""}},
		{"code_challenge": {"too-short"}},
		{"code_challenge": {""}},
	} {
		res, html := b.call(http.MethodGet, "/authentication/authorizeClientApplication?"+withFields(req, bad).Encode(), nil)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, bad)
		assert.Contains(t, html, "This application&#39;s request is malformed:", bad)
	}
}
