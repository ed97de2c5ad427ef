package api

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
)

// newToken draws a random token (URL-safe Base64 of 32 bytes).
func newToken() string { return parley.NewSecret() }

// tokenForm reads the token endpoint's fields from wherever the client put
// them: a JSON body, a form body, query parameters, and HTTP Basic
// credentials for the client (Help Scout's clients send all four).
func tokenForm(c *gin.Context) (url.Values, bool) {
	form := c.Request.URL.Query()
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err != nil {
		return nil, false
	}
	mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	switch {
	case len(strings.TrimSpace(string(body))) == 0:
	case mt == "application/json":
		var fields map[string]any
		if json.Unmarshal(body, &fields) != nil {
			return nil, false
		}
		for k, v := range fields {
			switch v := v.(type) {
			case string:
				form.Set(k, v)
			case json.Number, float64:
				b, _ := json.Marshal(v)
				form.Set(k, string(b))
			}
		}
	default:
		values, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, false
		}
		for k, v := range values {
			form[k] = v
		}
	}
	if id, secret, ok := c.Request.BasicAuth(); ok {
		form.Set("client_id", id)
		form.Set("client_secret", secret)
	}
	return form, true
}

// grantFields are the fields each grant type needs besides the client's.
var grantFields = map[string][]string{
	"client_credentials": nil,
	"authorization_code": {"code"},
	"refresh_token":      {"refresh_token"},
}

// token handles POST /v2/oauth2/token: the client-credentials,
// authorization-code and refresh-token grants, with OAuth 2.0 error bodies.
func (s *Server) token(c *gin.Context) error {
	form, ok := tokenForm(c)
	if !ok {
		return parley.OAuthError(parley.KindInvalid, parley.OAuthInvalidRequest, "the request body is malformed")
	}
	clientID, secret, grant := form.Get("client_id"), form.Get("client_secret"), form.Get("grant_type")
	needs, known := grantFields[grant]
	switch {
	case grant == "":
		return parley.OAuthError(parley.KindInvalid, parley.OAuthInvalidRequest, "grant_type is required")
	case !known:
		return parley.OAuthError(parley.KindInvalid, parley.OAuthUnsupportedGrantType,
			"supported grant types: authorization_code, client_credentials, refresh_token")
	case clientID == "" || secret == "":
		return parley.OAuthError(parley.KindInvalid, parley.OAuthInvalidRequest, "client_id and client_secret are required")
	}
	for _, f := range needs {
		if form.Get(f) == "" {
			return parley.OAuthError(parley.KindInvalid, parley.OAuthInvalidRequest, f+" is required")
		}
	}
	app, err := s.allowedClient(c, clientID, secret)
	if err != nil {
		return err
	}
	now := s.now()
	var issued parley.Issued
	err = s.writeCommittingRefusal(c, func(tx parley.Tx) error {
		var err error
		switch grant {
		case "client_credentials":
			issued, err = parley.IssueClientCredentials(tx, app, now)
		case "authorization_code":
			issued, err = parley.ExchangeAuthCode(tx, app, form.Get("code"), form.Get("code_verifier"), now)
		case "refresh_token":
			issued, err = parley.RefreshAccess(tx, app, form.Get("refresh_token"), now)
		}
		return err
	})
	if err != nil {
		return err
	}
	body := struct {
		AccessToken  string `json:"access_token"`
		ExpiresIn    int    `json:"expires_in"`
		RefreshToken string `json:"refresh_token,omitempty"`
		TokenType    string `json:"token_type"`
	}{issued.AccessToken, issued.ExpiresIn, issued.RefreshToken, "bearer"}
	c.Header("Cache-Control", "no-store")
	c.Header("Pragma", "no-cache")
	c.JSON(http.StatusOK, body)
	return nil
}

// dummySecretHash is compared against when a client id is unknown, so an
// unknown client costs the same bcrypt time as a wrong secret. It is made
// on first use: bcrypt at the default cost takes tens of milliseconds.
var dummySecretHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte("parley-no-such-client"), bcrypt.DefaultCost)
	if err != nil {
		panic(err)
	}
	return h
})

// allowedClient authenticates the client of a token request within the
// token budgets, or returns the refusal. Each failed authentication spends
// one from the client address's budget of failures, which is checked
// before the (slow) bcrypt comparison: a flood of unknown client ids or
// wrong secrets from one address is refused cheaply once the budget is
// spent, and never spends another address's budget nor the client's own,
// so junk from elsewhere cannot lock a real application out. A client that
// authenticates spends one token from its own per-client budget.
func (s *Server) allowedClient(c *gin.Context, clientID, secret string) (*parley.App, error) {
	now, failKey := s.now(), budgetTokenFail+c.ClientIP()
	d := s.limits.take(failKey, s.cfg.TokenRateLimit, 1, now) // given back on success
	if !s.setRateHeaders(c, d) {
		return nil, parley.OAuthError(parley.KindTooManyRequests, parley.OAuthTemporarilyUnavailable,
			"too many failed client authentications from this address; retry after "+strconv.Itoa(d.retryAfterSeconds())+" seconds")
	}
	app, err := s.authenticateClient(c.Request.Context(), clientID, secret)
	if err != nil {
		if parley.IsFailure(err) {
			s.limits.refund(failKey, 1, now)
		}
		return nil, err
	}
	s.limits.refund(failKey, 1, now)
	if d := s.limits.take(budgetClient+app.ClientID, s.cfg.TokenRateLimit, 1, now); !s.setRateHeaders(c, d) {
		return nil, parley.OAuthError(parley.KindTooManyRequests, parley.OAuthTemporarilyUnavailable,
			"too many requests for this client; retry after "+strconv.Itoa(d.retryAfterSeconds())+" seconds")
	}
	return app, nil
}

// authenticateClient checks an application's credentials (bcrypt, outside
// any write transaction so slow hashing never holds the write lock). An
// unknown, revoked or wrongly authenticated client is 401 invalid_client.
func (s *Server) authenticateClient(ctx context.Context, clientID, secret string) (*parley.App, error) {
	var app *parley.App
	err := s.store.View(ctx, func(tx parley.Tx) (err error) {
		app, err = tx.App(clientID)
		return err
	})
	if err != nil && !parley.IsNotFound(err) {
		return nil, err
	}
	hash := dummySecretHash()
	if app != nil {
		hash = []byte(app.SecretHash)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(secret)) != nil || app == nil || app.RevokedAt != nil {
		return nil, parley.OAuthError(parley.KindUnauthorized, parley.OAuthInvalidClient, "unknown client or wrong secret")
	}
	return app, nil
}

// authenticate requires a valid bearer token of an active user of a
// company whose API access is on, sets the caller, and spends from the
// company's rate-limit budget. Missing, unknown, expired and revoked tokens
// are 401; the company switches 403; an exhausted budget 429.
func (s *Server) authenticate(c *gin.Context) error {
	header := c.GetHeader("Authorization")
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		c.Header("WWW-Authenticate", `Bearer realm="parley"`)
		return parley.Unauthorized("a bearer token is required")
	}
	var who parley.Caller
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		who, err = parley.Authenticate(tx, parley.HashToken(strings.TrimSpace(token)), s.now())
		return err
	})
	if err != nil {
		if parley.KindOf(err) == parley.KindUnauthorized {
			c.Header("WWW-Authenticate", `Bearer realm="parley", error="invalid_token"`)
		}
		return err
	}
	c.Set(keyCaller, who)
	if err := s.allowCompany(c, who.Company); err != nil {
		return err
	}
	c.Next()
	return nil
}
