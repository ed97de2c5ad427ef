package parley

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// HashToken gives the stored form of a random token, code or V1 key: they
// are long and random, so SHA-256 is enough and allows lookup by hash.
// Passwords and client secrets use bcrypt instead (in the api package).
func HashToken(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// NewSecret draws a random token: 32 bytes, URL-safe Base64.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// RequireAdmin answers 403 `Access denied` unless the caller is an owner
// or an administrator; doing says what was refused.
func RequireAdmin(caller Caller, doing string) error {
	if !caller.User.IsAdmin() {
		return Forbidden(CodeAccessDenied, "only owners and administrators may "+doing)
	}
	return nil
}

// Authenticate resolves a bearer token (given by its hash) to the caller.
// Unknown, expired and revoked tokens, tokens of a revoked application and
// tokens of a user who is not an active invited user all answer 401, from
// the first request after the change; the company switches then answer 403.
func Authenticate(tx Tx, tokenHash string, now time.Time) (Caller, error) {
	tok, err := tx.Token(tokenHash)
	if err != nil {
		return Caller{}, unauthorizedOr(err, "the token is invalid")
	}
	if tok.Expired(now) {
		return Caller{}, Unauthorized("the token has expired")
	}
	ReadAhead(tx, TokenRefs(tok))
	if tok.GrantID != "" {
		g, err := tx.Grant(tok.GrantID)
		if err != nil || g.RevokedAt != nil {
			return Caller{}, unauthorizedOr(err, "the token was revoked")
		}
	}
	if tok.ClientID != "" {
		app, err := tx.App(tok.ClientID)
		if err != nil || app.RevokedAt != nil {
			return Caller{}, unauthorizedOr(err, "the application was revoked")
		}
	}
	user, err := tx.User(tok.CompanyID, tok.UserID)
	if err != nil || !user.CanSignIn() {
		return Caller{}, unauthorizedOr(err, "the token's user is not an active user of the account")
	}
	company, err := tx.Company(tok.CompanyID)
	if err != nil {
		return Caller{}, err
	}
	if err := company.CheckAPIAccess(now); err != nil {
		return Caller{}, err
	}
	return Caller{Company: company, User: user}, nil
}

// unauthorizedOr keeps a failure (IsFailure) as it is and turns anything
// else (not found, a rule) into a 401 with msg.
func unauthorizedOr(err error, msg string) error {
	if IsFailure(err) {
		return err
	}
	return Unauthorized(msg)
}

// AccessTokenLifetime is how long an access token lives (Help Scout's docs: 172800 s).
const AccessTokenLifetime = 172800 * time.Second

// Token is an issued access token, stored under the SHA-256 of its value.
type Token struct {
	Hash      string    `json:"hash"`
	ClientID  string    `json:"clientId"`
	CompanyID int64     `json:"companyId"`
	UserID    int64     `json:"userId"`
	ExpiresAt time.Time `json:"expiresAt"`
	// GrantID names the refresh chain the token belongs to (authorization
	// code and V1 exchange); revoking the grant revokes the token.
	GrantID string `json:"grantId,omitempty"`
}

// Expired reports whether the token can no longer be used at now.
func (t *Token) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// Caller is who a request acts as: the user behind the token and its company.
type Caller struct {
	Company *Company
	User    *User
}
