package api

import (
	"bytes"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/dashboard"
	"github.com/parley/parley/inbox"
	"github.com/parley/parley/internal/webassets"
)

// webApp is one of Parley's first-party web pages: static files embedded
// in the binary that call the public API with the token of the user who
// signed in through Parley's own authorization page. The reports
// dashboard (docs/reports.md, "Reports dashboard") and the agents' inbox
// are the two.
type webApp struct {
	// path is where the page is served; its files are under path/assets/,
	// its sign-in starts at path/signin and comes back to path/callback.
	path     string
	clientID string
	// appName is the application's name on the consent page; noun names
	// the page in its sign-in's messages.
	appName, noun string
	// stateCookie holds the state of a sign-in under way, which the
	// callback must be given back (a code sent to someone else's browser,
	// login CSRF, is refused), and the PKCE verifier the callback exchanges
	// the code with (a code stolen on its way back cannot be exchanged).
	stateCookie string
	asset       func(name string) (webassets.Asset, bool)
}

var (
	reportsDashboard = webApp{path: "/reports", clientID: parley.DashboardClientID,
		appName: "Parley reports dashboard", noun: "the reports dashboard",
		stateCookie: "parley_dashboard_state", asset: dashboard.AssetNamed}
	agentsInbox = webApp{path: "/inbox", clientID: parley.InboxClientID,
		appName: "Parley inbox", noun: "the inbox",
		stateCookie: "parley_inbox_state", asset: inbox.AssetNamed}
)

// callbackPath is the application's redirect URL. It is a path, not an
// absolute URL: the page is served by the same Parley as the authorization
// page, so the browser stays on the origin it signed in on, whatever host
// name it used.
func (a webApp) callbackPath() string { return a.path + "/callback" }

// webAppStateMaxAge is the seconds a user has to sign in and approve.
const webAppStateMaxAge = 10 * 60

// Content-Security-Policy of the web apps' pages and of their hand-off
// page: scripts and styles from Parley itself, calls to Parley only.
const (
	webAppPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	handoffPolicy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
)

// handoffPage ends a web app's sign-in: it hands the access token to the
// page's script (assets/handoff.js), which keeps it in the tab's session
// storage. With a Message instead, it says why the sign-in failed.
var handoffPage = htmlPage(`{{define "title"}}Signing in to {{.App}}{{end}}{{define "body"}}
{{- if .Token}}<main id="handoff" data-token="{{.Token}}"><p>Signing in…</p></main>
<script type="module" src="assets/handoff.js"></script>
{{- else}}<h1>Cannot sign in</h1>
<p class="message" role="alert">{{.Message}}</p>
<p><a href="..{{.Home}}">Back to {{.App}}</a></p>{{end}}{{end}}`)

// webAppPage answers a web app's HTML page. It is the same for everyone;
// the data comes from the API, with the signed-in user's token.
func webAppPage(c *gin.Context, page []byte) {
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", webAppPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	c.Data(http.StatusOK, "text/html; charset=utf-8", page)
}

// dashboardPage handles GET /reports: the reports dashboard.
func (s *Server) dashboardPage(c *gin.Context) error {
	webAppPage(c, dashboard.Page())
	return nil
}

// webAppAsset handles GET {path}/assets/{file}: the app's scripts and
// style sheets, revalidated by ETag.
func (s *Server) webAppAsset(a webApp) handler {
	return func(c *gin.Context) error {
		f, ok := a.asset(c.Param("file"))
		if !ok {
			return parley.NotFound("asset")
		}
		h := c.Writer.Header()
		h.Set("ETag", f.ETag)
		h.Set("Content-Type", f.ContentType)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(c.Writer, c.Request, f.Name, time.Time{}, bytes.NewReader(f.Content))
		return nil
	}
}

// webAppSignIn handles GET {path}/signin: it sends the browser to the
// authorization page as the app's application (made on first use), with a
// fresh state and a PKCE challenge whose verifier is kept in a cookie for
// the callback.
func (s *Server) webAppSignIn(a webApp) handler {
	return func(c *gin.Context) error {
		err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			_, err := tx.App(a.clientID)
			return err
		})
		if parley.IsNotFound(err) {
			err = s.write(c, func(tx parley.Tx) error {
				_, err := parley.FirstPartyApp(tx, a.clientID, a.appName, a.callbackPath(), s.now())
				return err
			})
		}
		if err != nil {
			return err
		}
		state, verifier := parley.NewSecret(), parley.NewSecret()
		s.setCookieOn(c, a.path, a.stateCookie, state+"."+verifier, webAppStateMaxAge)
		c.Header("Cache-Control", "no-store")
		req := authRequest{ClientID: a.clientID, State: state,
			CodeChallenge: parley.S256Challenge(verifier), CodeChallengeMethod: parley.PKCEMethodS256}
		c.Redirect(http.StatusSeeOther, req.authorizeURL())
		return nil
	}
}

// webAppCallback handles GET {path}/callback, where the authorization page
// sends the browser back. Given the state the sign-in set, it exchanges
// the code for the user's access token itself (the application has no
// secret to give a page) and answers the hand-off page. The refresh token
// issued with it is never handed out: when the access token expires, the
// user signs in again. Failed exchanges spend the client address's budget
// of failures, as at the token endpoint.
func (s *Server) webAppCallback(a webApp) handler {
	return func(c *gin.Context) error {
		failed := func(status int, message string) error {
			return s.page(c, status, handoffPage, pageData{App: a.noun, Home: a.path, Message: message})
		}
		cookie, _ := c.Cookie(a.stateCookie)
		want, verifier, _ := strings.Cut(cookie, ".")
		s.setCookieOn(c, a.path, a.stateCookie, "", -1)
		c.Header("Referrer-Policy", "no-referrer")
		if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(c.Query("state"))) != 1 {
			return failed(http.StatusBadRequest, "This sign-in was not started in this browser, or has expired. Sign in again from "+a.noun+".")
		}
		if c.Query("error") != "" {
			return failed(http.StatusForbidden, "You did not authorize "+a.noun+".")
		}
		now, failKey := s.now(), budgetTokenFail+c.ClientIP()
		if d := s.limits.take(failKey, s.cfg.TokenRateLimit, 1, now); !s.setRateHeaders(c, d) {
			return failed(http.StatusTooManyRequests, "Too many failed sign-ins from this address. Wait a minute and try again.")
		}
		var issued parley.Issued
		err := s.writeCommittingRefusal(c, func(tx parley.Tx) error {
			app, err := tx.App(a.clientID)
			if err != nil {
				return err
			}
			issued, err = parley.ExchangeAuthCode(tx, app, c.Query("code"), verifier, now)
			return err
		})
		if err != nil && !parley.IsFailure(err) {
			why := "the application of " + a.noun + " is unknown"
			if e, ok := parley.AsOAuthError(err); ok {
				why = e.Message
			}
			return failed(http.StatusBadRequest, "The sign-in could not be completed: "+why+". Sign in again from "+a.noun+".")
		}
		s.limits.refund(failKey, 1, now) // a success, or our own failure
		if err != nil {
			return err
		}
		return s.pageWithPolicy(c, http.StatusOK, handoffPage, pageData{App: a.noun, Home: a.path, Token: issued.AccessToken}, handoffPolicy)
	}
}
