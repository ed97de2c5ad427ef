package api_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

const dashboardAppName = "Parley reports dashboard"

var handoffToken = regexp.MustCompile(`data-token="([^"]+)"`)

// startDashboardSignIn follows GET /reports/signin and returns the
// authorization request it links to: its state (also in its cookie) and
// its S256 PKCE challenge (whose verifier is in the cookie).
func (b *browser) startDashboardSignIn() url.Values {
	b.t.Helper()
	res, _ := b.call(http.MethodGet, "/reports/signin", nil)
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode)
	next, err := url.Parse(res.Header.Get("Location"))
	require.NoError(b.t, err)
	require.Equal(b.t, "/authentication/authorizeClientApplication", next.Path)
	require.Equal(b.t, parley.DashboardClientID, next.Query().Get("client_id"))
	req := next.Query()
	require.NotEmpty(b.t, req.Get("state"))
	require.Equal(b.t, "S256", req.Get("code_challenge_method"))
	require.Len(b.t, req.Get("code_challenge"), 43)
	return req
}

// dashboardCallbackURL signs in (or reuses the session), decides, and
// returns where the authorization page sends the browser back.
func (b *browser) dashboardCallbackURL(req url.Values, decision string) *url.URL {
	b.t.Helper()
	page := b.signInTo(req, dashboardAppName, "olivia@acme.test", ownerPass)
	return b.decideFor(req, page, decision)
}

func TestDashboardSignIn(t *testing.T) {
	w, b := newFlowWorld(t)

	// The sign-in makes the dashboard's application on first use: no
	// company, no secret, a redirect URL on the same origin.
	req := b.startDashboardSignIn()
	app := dashboardApp(t, w)
	assert.Equal(t, "/reports/callback", app.RedirectURI)
	assert.Empty(t, app.SecretHash)
	assert.Zero(t, app.CompanyID)

	// Approval comes back to the callback with a code and the state; the
	// callback answers the hand-off page with a token acting as the user.
	back := b.dashboardCallbackURL(req, "approve")
	assert.Equal(t, "", back.Host, "the redirect stays on the origin the user signed in on")
	assert.Equal(t, "/reports/callback", back.Path)
	assert.Equal(t, req.Get("state"), back.Query().Get("state"))
	res, page := b.call(http.MethodGet, back.String(), nil)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
	assert.Contains(t, page, `<script type="module" src="assets/handoff.js"></script>`)
	m := handoffToken.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	token := m[1]
	me := w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token})
	require.Equal(t, http.StatusOK, me.Code)
	assert.Equal(t, "olivia@acme.test", decode(t, me)["email"])
	report := w.do(request{method: http.MethodGet, path: "/v2/reports/conversations?start=2026-11-01T00:00:00Z&end=2026-11-22T00:00:00Z", token: token})
	assert.Equal(t, http.StatusOK, report.Code, "the token reads the reports")

	// The state is good once: the same callback again is refused.
	res, page = b.call(http.MethodGet, back.String(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "This sign-in was not started in this browser, or has expired.")
	assert.NotRegexp(t, handoffToken, page)

	// A code given back with a fresh state is a replay: refused, and the
	// token it bought is revoked.
	fresh := b.startDashboardSignIn()
	res, page = b.call(http.MethodGet, "/reports/callback?"+url.Values{"code": {back.Query().Get("code")}, "state": {fresh.Get("state")}}.Encode(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "the authorization code was already used")
	assert.Equal(t, http.StatusUnauthorized, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: token}).Code)

	// A state that is not this browser's is refused before the code is
	// spent (login CSRF: an attacker's code in the victim's browser).
	req = b.startDashboardSignIn()
	back = b.dashboardCallbackURL(req, "approve")
	code := back.Query().Get("code")
	forged := back.Query()
	forged.Set("state", "forged")
	res, page = b.call(http.MethodGet, "/reports/callback?"+forged.Encode(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "This sign-in was not started in this browser")
	assert.Nil(t, authCode(t, w, code).UsedAt, "the code was not spent by the forged callback")

	// The code is bound to its sign-in's PKCE verifier: given back to
	// another sign-in of the same browser (another verifier), it is
	// refused and still unspent.
	fresh = b.startDashboardSignIn()
	res, page = b.call(http.MethodGet, "/reports/callback?"+url.Values{"code": {code}, "state": {fresh.Get("state")}}.Encode(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "the code_verifier does not match the code_challenge")
	assert.NotRegexp(t, handoffToken, page)
	assert.Nil(t, authCode(t, w, code).UsedAt)

	// Denial.
	back = b.dashboardCallbackURL(b.startDashboardSignIn(), "deny")
	assert.Equal(t, "access_denied", back.Query().Get("error"))
	res, page = b.call(http.MethodGet, back.String(), nil)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, page, "You did not authorize the reports dashboard.")

	// An expired code.
	back = b.dashboardCallbackURL(b.startDashboardSignIn(), "approve")
	w.clock.advance(parley.AuthCodeLifetime)
	res, page = b.call(http.MethodGet, back.String(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "the authorization code has expired")

	// Nobody gets a token as the application itself: it has no secret.
	status, body := w.tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {parley.DashboardClientID}, "client_secret": {"guess"}})
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "invalid_client", body["error"])

	// The state cookie is HttpOnly, Secure, SameSite and on /reports only.
	res, _ = b.call(http.MethodGet, "/reports/signin", nil)
	var cookie string
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "parley_dashboard_state=") {
			cookie = c
		}
	}
	for _, attr := range []string{"Path=/reports", "HttpOnly", "Secure", "SameSite=Lax", "Max-Age=600"} {
		assert.Contains(t, cookie, attr)
	}
	assert.NotContains(t, w.logs.String(), token, "no token in the logs")
}

// authCode loads the stored record of an authorization code.
func authCode(t *testing.T, w *world, code string) *parley.AuthCode {
	t.Helper()
	var rec *parley.AuthCode
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) (err error) {
		rec, err = tx.AuthCode(parley.HashToken(code))
		return err
	}))
	return rec
}

func dashboardApp(t *testing.T, w *world) *parley.App {
	t.Helper()
	var app *parley.App
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) (err error) {
		app, err = tx.App(parley.DashboardClientID)
		return err
	}))
	return app
}

// TestDashboardSignInRevoked: `parley app revoke` turns the dashboard's
// sign-in off; the sign-in does not make the application again.
func TestDashboardSignInRevoked(t *testing.T) {
	w, b := newFlowWorld(t)
	req := b.startDashboardSignIn()
	app := dashboardApp(t, w)
	revoked := w.clock.Now()
	app.RevokedAt = &revoked
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error { return tx.PutApp(app) })
	require.NoError(t, err)
	res, page := b.call(http.MethodGet, "/authentication/authorizeClientApplication?"+req.Encode(), nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, page, "This application is unknown or cannot ask for access.")
	b.startDashboardSignIn()
	assert.NotNil(t, dashboardApp(t, w).RevokedAt)
}

// webAppFile is one of a web app's assets and what it must answer.
type webAppFile struct{ file, contentType, text string }

// checkWebAppFiles checks a web app's page at path and its assets under
// path/assets/: the page's headers and script, each file's type, content
// and ETag revalidation, and a missing file's 404.
func checkWebAppFiles(t *testing.T, w *world, path string, files []webAppFile) {
	t.Helper()
	page := w.do(request{method: http.MethodGet, path: path})
	require.Equal(t, http.StatusOK, page.Code)
	assert.Equal(t, "text/html; charset=utf-8", page.Header().Get("Content-Type"))
	assert.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "+
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'", page.Header().Get("Content-Security-Policy"))
	assert.Contains(t, page.Body.String(), `<script type="module" src="`+strings.TrimPrefix(path, "/")+`/assets/main.js"></script>`)

	for _, tc := range files {
		rec := w.do(request{method: http.MethodGet, path: path + "/assets/" + tc.file})
		require.Equal(t, http.StatusOK, rec.Code, tc.file)
		assert.Equal(t, tc.contentType, rec.Header().Get("Content-Type"), tc.file)
		assert.Contains(t, rec.Body.String(), tc.text, tc.file)
		etag := rec.Header().Get("ETag")
		require.NotEmpty(t, etag)
		again := w.do(request{method: http.MethodGet, path: path + "/assets/" + tc.file, header: map[string]string{"If-None-Match": etag}})
		assert.Equal(t, http.StatusNotModified, again.Code, tc.file)
	}

	missing := w.do(request{method: http.MethodGet, path: path + "/assets/nothing.js"})
	assert.Equal(t, "404 Not found: asset not found", apiError(t, missing))
}

func TestDashboardFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	checkWebAppFiles(t, w, "/reports", []webAppFile{
		{"main.js", "text/javascript; charset=utf-8", "import"},
		{"dashboard.css", "text/css; charset=utf-8", ":root"},
		{"chart.umd.js", "text/javascript; charset=utf-8", "Chart.js v4.6.1"},
		{"chart.LICENSE.md", "text/plain; charset=utf-8", "The MIT License"},
	})

	// The sign-in's two steps answer as the OpenAPI document says (w.do
	// holds every answer to it).
	signin := w.do(request{method: http.MethodGet, path: "/reports/signin"})
	assert.Equal(t, http.StatusSeeOther, signin.Code)
	callback := w.do(request{method: http.MethodGet, path: "/reports/callback?code=x&state=y"})
	assert.Equal(t, http.StatusBadRequest, callback.Code)
	assert.Contains(t, callback.Body.String(), "This sign-in was not started in this browser")
}

// TestDashboardCallbackFailuresAreLimited: failed code exchanges spend the
// client address's budget of failures, as at the token endpoint.
func TestDashboardCallbackFailuresAreLimited(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.TokenRateLimit = 2 })
	b := newBrowser(t, w)
	for i, want := range []int{http.StatusBadRequest, http.StatusBadRequest, http.StatusTooManyRequests} {
		state := b.startDashboardSignIn().Get("state")
		res, _ := b.call(http.MethodGet, "/reports/callback?"+url.Values{"code": {"junk"}, "state": {state}}.Encode(), nil)
		assert.Equal(t, want, res.StatusCode, "attempt %d", i+1)
	}
}
