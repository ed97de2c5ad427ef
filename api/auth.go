package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// HashToken gives the stored form of a token: tokens are random and long,
// so a fast hash is enough and allows lookup by hash.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// oauthError is the body of token endpoint errors (RFC 6749 section 5.2).
func oauthError(c *gin.Context, status int, code, description string) {
	c.AbortWithStatusJSON(status, gin.H{"error": code, "error_description": description})
}

// tokenForm reads the token endpoint's fields from wherever the client put
// them: a JSON body, a form body, query parameters, and HTTP Basic
// credentials for the client (COMPAT.md lists all four).
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

// token handles POST /v2/oauth2/token.
func (s *Server) token(c *gin.Context) {
	form, ok := tokenForm(c)
	if !ok {
		oauthError(c, http.StatusBadRequest, "invalid_request", "the request body is malformed")
		return
	}
	switch form.Get("grant_type") {
	case "client_credentials":
	case "":
		oauthError(c, http.StatusBadRequest, "invalid_request", "grant_type is required")
		return
	default:
		oauthError(c, http.StatusBadRequest, "unsupported_grant_type", "supported grant types: client_credentials")
		return
	}
	clientID, secret := form.Get("client_id"), form.Get("client_secret")
	if clientID == "" || secret == "" {
		oauthError(c, http.StatusBadRequest, "invalid_request", "client_id and client_secret are required")
		return
	}
	now := s.now()
	token := newToken()
	err := s.write(c, func(tx *storage.Tx) error {
		app, err := tx.App(clientID)
		if err != nil {
			return err
		}
		if bcrypt.CompareHashAndPassword([]byte(app.SecretHash), []byte(secret)) != nil {
			return parley.NotFound("application")
		}
		user, err := tx.User(app.CompanyID, app.UserID)
		if err != nil || !user.Active {
			return parley.Unauthorized("the application's user is not an active user of the account")
		}
		return tx.PutToken(&parley.Token{Hash: HashToken(token), ClientID: clientID, CompanyID: app.CompanyID,
			UserID: app.UserID, ExpiresAt: now.Add(parley.AccessTokenLifetime)})
	})
	if err != nil {
		if k := parley.KindOf(err); k == parley.KindNotFound || k == parley.KindUnauthorized {
			c.Header("WWW-Authenticate", `Basic realm="parley"`)
			oauthError(c, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
			return
		}
		s.fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"token_type": "bearer", "access_token": token, "expires_in": int(parley.AccessTokenLifetime.Seconds())})
}

// authenticate requires a valid bearer token of an active user and sets the
// caller. Missing, unknown and expired tokens are all 401.
func (s *Server) authenticate(c *gin.Context) {
	header := c.GetHeader("Authorization")
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		c.Header("WWW-Authenticate", `Bearer realm="parley"`)
		s.fail(c, parley.Unauthorized("a bearer token is required"))
		return
	}
	var who parley.Caller
	err := s.cfg.DB.View(func(tx *storage.Tx) error {
		tok, err := tx.Token(HashToken(strings.TrimSpace(token)))
		if err != nil {
			return parley.Unauthorized("the token is invalid")
		}
		if tok.Expired(s.now()) {
			return parley.Unauthorized("the token has expired")
		}
		user, err := tx.User(tok.CompanyID, tok.UserID)
		if err != nil || !user.Active {
			return parley.Unauthorized("the token's user is not an active user of the account")
		}
		company, err := tx.Company(tok.CompanyID)
		if err != nil {
			return err
		}
		who = parley.Caller{Company: company, User: user}
		return nil
	})
	if err != nil {
		c.Header("WWW-Authenticate", `Bearer realm="parley", error="invalid_token"`)
		s.fail(c, err)
		return
	}
	c.Set(keyCaller, who)
	c.Next()
}

// write runs fn in a write transaction and waits (bounded) until what it
// queued for indexing is searchable, so a client that writes then lists
// sees its write.
func (s *Server) write(c *gin.Context, fn func(*storage.Tx) error) error {
	seq, err := s.cfg.DB.Update(fn)
	if err != nil {
		return err
	}
	if s.cfg.Syncer != nil && seq != 0 {
		if !s.cfg.Syncer.Wait(c.Request.Context(), seq, s.cfg.WriteWait) {
			s.cfg.Log.Warn("write committed but not yet searchable", "request_id", requestIDOf(c), "seq", seq)
		}
	}
	return nil
}
