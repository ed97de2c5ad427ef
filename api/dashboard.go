package api

import (
	"bytes"
	"crypto/subtle"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/dashboard"
)

// Paths and cookie of the reports dashboard (docs/reports.md, "Reports dashboard").
const (
	dashboardPath = "/reports"
	// dashboardCallbackPath is the dashboard application's redirect URL. It
	// is a path, not an absolute URL: the dashboard is served by the same
	// Parley as the authorization page, so the browser stays on the origin
	// it signed in on, whatever host name it used.
	dashboardCallbackPath = dashboardPath + "/callback"
	// dashboardStateCookie holds the state of a sign-in under way, which
	// the callback must be given back: a code sent to someone else's
	// browser (login CSRF) is refused.
	dashboardStateCookie = "parley_dashboard_state"
	dashboardStateMaxAge = 10 * 60 // seconds to sign in and approve
)

// Content-Security-Policy of the dashboard and of its hand-off page:
// scripts and styles from Parley itself, calls to Parley only.
const (
	dashboardPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	handoffPolicy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
)

// handoffPage ends the dashboard's sign-in: it hands the access token to
// the page's script (handoff.js), which keeps it in the tab's session
// storage. With a Message instead, it says why the sign-in failed.
var handoffPage = htmlPage(`{{define "title"}}Reports dashboard{{end}}{{define "body"}}
{{- if .Token}}<main id="handoff" data-token="{{.Token}}"><p>Signing in…</p></main>
<script type="module" src="assets/handoff.js"></script>
{{- else}}<h1>Cannot sign in</h1>
<p class="message" role="alert">{{.Message}}</p>
<p><a href="../reports">Back to the reports dashboard</a></p>{{end}}{{end}}`)

// dashboardPage handles GET /reports: the dashboard. It is the same for
// everyone; the data comes from the API, with the signed-in user's token.
func (s *Server) dashboardPage(c *gin.Context) error {
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", dashboardPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	c.Data(http.StatusOK, "text/html; charset=utf-8", dashboard.Page())
	return nil
}

// dashboardAsset handles GET /reports/assets/{file}: the dashboard's
// scripts, style sheet and Chart.js, revalidated by ETag.
func (s *Server) dashboardAsset(c *gin.Context) error {
	a, ok := dashboard.AssetNamed(c.Param("file"))
	if !ok {
		return parley.NotFound("asset")
	}
	h := c.Writer.Header()
	h.Set("ETag", a.ETag)
	h.Set("Content-Type", a.ContentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(c.Writer, c.Request, a.Name, time.Time{}, bytes.NewReader(a.Content))
	return nil
}

// dashboardSignIn handles GET /reports/signin: it sends the browser to the
// authorization page as the dashboard's application (made on first use),
// with a fresh state kept in a cookie for the callback to check.
func (s *Server) dashboardSignIn(c *gin.Context) error {
	err := s.store.View(func(tx parley.Tx) error {
		_, err := tx.App(parley.DashboardClientID)
		return err
	})
	if parley.IsNotFound(err) {
		err = s.write(c, func(tx parley.Tx) error {
			_, err := parley.DashboardApp(tx, dashboardCallbackPath, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	state := parley.NewSecret()
	s.setCookieOn(c, dashboardPath, dashboardStateCookie, state, dashboardStateMaxAge)
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusSeeOther, authorizePath+"?"+url.Values{"client_id": {parley.DashboardClientID}, "state": {state}}.Encode())
	return nil
}

// dashboardCallback handles GET /reports/callback, where the authorization
// page sends the browser back. Given the state the sign-in set, it
// exchanges the code for the user's access token itself (the dashboard's
// application has no secret to give a page) and answers the hand-off page.
// The refresh token issued with it is never handed out: when the access
// token expires, the user signs in again. Failed exchanges spend the
// client address's budget of failures, as at the token endpoint.
func (s *Server) dashboardCallback(c *gin.Context) error {
	want, _ := c.Cookie(dashboardStateCookie)
	s.setCookieOn(c, dashboardPath, dashboardStateCookie, "", -1)
	c.Header("Referrer-Policy", "no-referrer")
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(c.Query("state"))) != 1 {
		return s.page(c, http.StatusBadRequest, handoffPage, pageData{Message: "This sign-in was not started in this browser, or has expired. Sign in again from the dashboard."})
	}
	if c.Query("error") != "" {
		return s.page(c, http.StatusForbidden, handoffPage, pageData{Message: "You did not authorize the reports dashboard."})
	}
	now, failKey := s.now(), budgetTokenFail+c.ClientIP()
	if d := s.limits.take(failKey, s.cfg.TokenRateLimit, 1, now); !s.setRateHeaders(c, d) {
		return s.page(c, http.StatusTooManyRequests, handoffPage, pageData{Message: "Too many failed sign-ins from this address. Wait a minute and try again."})
	}
	var issued parley.Issued
	err := s.writeCommittingRefusal(c, func(tx parley.Tx) error {
		app, err := tx.App(parley.DashboardClientID)
		if err != nil {
			return err
		}
		issued, err = parley.ExchangeAuthCode(tx, app, c.Query("code"), now)
		return err
	})
	if err != nil && parley.KindOf(err) != parley.KindInternal {
		why := "the dashboard's application is unknown"
		if e, ok := parley.AsOAuthError(err); ok {
			why = e.Message
		}
		return s.page(c, http.StatusBadRequest, handoffPage, pageData{Message: "The sign-in could not be completed: " + why + ". Sign in again from the dashboard."})
	}
	s.limits.refund(failKey, 1, now) // a success, or our own failure
	if err != nil {
		return err
	}
	return s.pageWithPolicy(c, http.StatusOK, handoffPage, pageData{Token: issued.AccessToken}, handoffPolicy)
}
