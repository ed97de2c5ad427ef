package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
)

// Paths and cookies of the authorization-code flow's pages.
const (
	authorizePath = "/authentication/authorizeClientApplication"
	loginPath     = "/authentication/login"
	cookiePath    = "/authentication"
	// sessionCookie holds a sign-in session; csrfCookie a random value the
	// sign-in form's CSRF token is derived from.
	sessionCookie = "parley_session"
	csrfCookie    = "parley_csrf"
	maxFormBytes  = 16 << 10
)

// authRequest is what an authorization request carries through the
// sign-in and consent forms to the code it ends with.
type authRequest struct {
	ClientID, State string
	// CodeChallenge and CodeChallengeMethod are the request's PKCE
	// challenge (RFC 7636), if it has one.
	CodeChallenge, CodeChallengeMethod string
}

// authRequestOf reads an authorization request's parameters from a query
// or a form.
func authRequestOf(v url.Values) authRequest {
	return authRequest{ClientID: v.Get("client_id"), State: v.Get("state"),
		CodeChallenge: v.Get("code_challenge"), CodeChallengeMethod: v.Get("code_challenge_method")}
}

func (r authRequest) pkce() parley.PKCE {
	return parley.PKCE{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
}

// authorizeURL is the authorization page for the request.
func (r authRequest) authorizeURL() string {
	q := url.Values{"client_id": {r.ClientID}, "state": {r.State}}
	if r.CodeChallenge != "" || r.CodeChallengeMethod != "" {
		q.Set("code_challenge", r.CodeChallenge)
		q.Set("code_challenge_method", r.CodeChallengeMethod)
	}
	return authorizePath + "?" + q.Encode()
}

// csrfToken binds a form to its browser (key: a cookie's value, which
// other sites can neither read nor set) and to the authorization request
// (client id, state and PKCE challenge): a form whose request was altered
// fails the check.
func csrfToken(key, purpose string, r authRequest) string {
	h := hmac.New(sha256.New, []byte(key))
	h.Write([]byte(strings.Join([]string{purpose, r.ClientID, r.State, r.CodeChallenge, r.CodeChallengeMethod}, "\x00")))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func csrfValid(key, purpose string, r authRequest, got string) bool {
	return key != "" && hmac.Equal([]byte(csrfToken(key, purpose, r)), []byte(got))
}

// setCookie sets an HttpOnly, SameSite=Lax cookie on the pages' path,
// Secure when the request came over TLS. maxAge < 0 deletes it.
func (s *Server) setCookie(c *gin.Context, name, value string, maxAge int) {
	s.setCookieOn(c, cookiePath, name, value, maxAge)
}

// setCookieOn is setCookie on another path.
func (s *Server) setCookieOn(c *gin.Context, path, name, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: value, Path: path, MaxAge: maxAge, HttpOnly: true,
		Secure: c.Request.TLS != nil || strings.HasPrefix(s.cfg.BaseURL, "https:"), SameSite: http.SameSiteLaxMode})
}

// flowApp loads the application an authorization request names, or nil
// when it is unknown, revoked or has no redirect URL: such a request gets
// unknownApp's error page, never a redirect (its redirect URL cannot be
// trusted). A failed read is logged and treated alike.
func (s *Server) flowApp(c *gin.Context, clientID string) *parley.App {
	var app *parley.App
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		app, err = tx.App(clientID)
		return err
	})
	if err == nil && (app.RevokedAt != nil || app.RedirectURI == "") {
		err = parley.NotFound("application")
	}
	if err != nil {
		if !parley.IsNotFound(err) {
			s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
		}
		return nil
	}
	return app
}

// consentFor tells the consent page whose app asks for access, or nil
// when that cannot be told (its company is gone): such an app gets
// unknownApp's page, never a consent. A failed read is logged and treated
// alike, as in flowApp.
func (s *Server) consentFor(c *gin.Context, app *parley.App, u *parley.User) *parley.Consent {
	var consent *parley.Consent
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		consent, err = parley.ConsentFor(tx, app, u)
		return err
	})
	if err != nil {
		if !parley.IsNotFound(err) {
			s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
		}
		return nil
	}
	return consent
}

// unknownApp answers an authorization request whose application flowApp
// refused.
func (s *Server) unknownApp(c *gin.Context) error {
	return s.page(c, http.StatusBadRequest, errorPage, pageData{Message: "This application is unknown or cannot ask for access."})
}

// sessionUser returns the signed-in user and the session cookie's value.
func (s *Server) sessionUser(c *gin.Context) (*parley.User, string) {
	token, err := c.Cookie(sessionCookie)
	if err != nil || token == "" {
		return nil, ""
	}
	var u *parley.User
	if s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		u, err = parley.SessionUser(tx, token, s.now())
		return err
	}) != nil {
		return nil, ""
	}
	return u, token
}

// authorizePage handles GET /authentication/authorizeClientApplication:
// the sign-in form, or, once signed in, the consent page.
// A PKCE challenge Parley cannot verify is refused on an error page before
// anyone signs in.
func (s *Server) authorizePage(c *gin.Context) error {
	req := authRequestOf(c.Request.URL.Query())
	app := s.flowApp(c, req.ClientID)
	if app == nil {
		return s.unknownApp(c)
	}
	if err := req.pkce().Check(); err != nil {
		return s.page(c, http.StatusBadRequest, errorPage, pageData{Message: "This application's request is malformed: " + err.Error() + "."})
	}
	if u, session := s.sessionUser(c); u != nil {
		consent := s.consentFor(c, app, u)
		if consent == nil {
			return s.unknownApp(c)
		}
		return s.page(c, http.StatusOK, consentPage, pageData{App: consent.App, Maker: consent.Maker, Company: consent.Company,
			ForeignMaker: consent.ForeignMaker, User: u.Name(), Email: u.Email, authRequest: req,
			CSRF: csrfToken(session, "consent", req)})
	}
	return s.loginForm(c, http.StatusOK, req, "")
}

// loginForm renders the sign-in form with a fresh CSRF token, setting the
// CSRF cookie when the browser has none.
func (s *Server) loginForm(c *gin.Context, status int, req authRequest, message string) error {
	key, err := c.Cookie(csrfCookie)
	if err != nil || len(key) < 32 {
		key = parley.NewSecret()
		s.setCookie(c, csrfCookie, key, 0)
	}
	return s.page(c, status, loginPage, pageData{authRequest: req, Message: message, CSRF: csrfToken(key, "login", req)})
}

// readForm parses a bounded urlencoded form body.
func readForm(c *gin.Context) url.Values {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxFormBytes)
	if c.Request.ParseForm() != nil {
		return url.Values{}
	}
	return c.Request.PostForm
}

// dummyPasswordHash is compared against for an unknown e-mail, so it costs
// what a wrong password costs.
var dummyPasswordHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte("parley-no-such-user"), bcrypt.DefaultCost)
	if err != nil {
		panic(err)
	}
	return h
})

// login handles POST /authentication/login: checks the CSRF token and the
// e-mail and password, starts a session and returns to the authorization
// page. Attempts are rate limited per e-mail address.
func (s *Server) login(c *gin.Context) error {
	form := readForm(c)
	req, email := authRequestOf(form), parley.NormalizeEmail(form.Get("email"))
	key, _ := c.Cookie(csrfCookie)
	if !csrfValid(key, "login", req, form.Get("csrf")) {
		return s.page(c, http.StatusBadRequest, errorPage, pageData{Message: "This form has expired or was altered. Start again from the application."})
	}
	if s.flowApp(c, req.ClientID) == nil {
		return s.unknownApp(c)
	}
	if d := s.takeClient(c, "login:", email); !s.setRateHeaders(c, d) {
		return s.loginForm(c, http.StatusTooManyRequests, req, "Too many attempts. Wait a minute and try again.")
	}
	var u *parley.User
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		u, err = tx.UserByEmail(email)
		return err
	})
	hash := dummyPasswordHash()
	if err == nil && u.PasswordHash != "" {
		hash = []byte(u.PasswordHash)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(form.Get("password"))) != nil || err != nil || u.PasswordHash == "" || u.Deactivated {
		return s.loginForm(c, http.StatusUnauthorized, req, "Wrong e-mail or password.")
	}
	now := s.now()
	var session string
	err = s.write(c, func(tx parley.Tx) (err error) {
		session, err = parley.SignIn(tx, u, now)
		return err
	})
	if err != nil {
		return err
	}
	s.setCookie(c, sessionCookie, session, int(parley.SessionLifetime.Seconds()))
	c.Redirect(http.StatusSeeOther, req.authorizeURL())
	return nil
}

// authorizeDecision handles POST /authentication/authorizeClientApplication:
// the consent form. Approval redirects to the application's redirect URL
// with a single-use `code` and the `state`; denial with
// `error=access_denied` and the `state` (RFC 6749 section 4.1.2.1).
func (s *Server) authorizeDecision(c *gin.Context) error {
	form := readForm(c)
	req := authRequestOf(form)
	u, session := s.sessionUser(c)
	if u == nil {
		return s.loginForm(c, http.StatusUnauthorized, req, "Your session has ended. Sign in again.")
	}
	if !csrfValid(session, "consent", req, form.Get("csrf")) {
		return s.page(c, http.StatusBadRequest, errorPage, pageData{Message: "This form has expired or was altered. Start again from the application."})
	}
	app := s.flowApp(c, req.ClientID)
	if app == nil {
		return s.unknownApp(c)
	}
	target, err := url.Parse(app.RedirectURI)
	if err != nil {
		return parley.Internal(err)
	}
	q := target.Query()
	if form.Get("decision") != "approve" {
		q.Set("error", "access_denied")
	} else {
		var code string
		err := s.write(c, func(tx parley.Tx) (err error) {
			code, err = parley.IssueAuthCode(tx, app, u, req.pkce(), s.now())
			return err
		})
		if err != nil {
			return err
		}
		q.Set("code", code)
	}
	if req.State != "" {
		q.Set("state", req.State)
	}
	target.RawQuery = q.Encode()
	c.Header("Referrer-Policy", "no-referrer")
	c.Redirect(http.StatusSeeOther, target.String())
	return nil
}
