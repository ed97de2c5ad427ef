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

// CanSignIn reports whether the user is an active, invited (accepted) user:
// only their credentials and tokens work (SPEC Authentication 3).
func (u *User) CanSignIn() bool { return u.Active && !u.Deactivated }

// Invited reports whether the user was invited and has not accepted yet.
func (u *User) Invited() bool { return !u.Active && !u.Deactivated }

// IsAdmin reports whether the user is an owner or an administrator.
func (u *User) IsAdmin() bool { return u.Role == RoleOwner || u.Role == RoleAdmin }

// RequireAdmin answers 403 `Access denied` unless the caller is an owner
// or an administrator; doing says what was refused.
func RequireAdmin(caller Caller, doing string) error {
	if !caller.User.IsAdmin() {
		return Forbidden(CodeAccessDenied, "only owners and administrators may "+doing)
	}
	return nil
}

// CheckAPIAccess applies the company switches that govern every API call:
// API use must be enabled (403 `API not enabled`) and payment information
// present and not expired at now (403 `Payment missing`).
func (c *Company) CheckAPIAccess(now time.Time) error {
	if !c.APIEnabled {
		return Forbidden(CodeAPINotEnabled, "API access is not enabled for this account")
	}
	if !c.PaymentOK || (c.PaidUntil != nil && !now.Before(*c.PaidUntil)) {
		return Forbidden(CodePaymentMissing, "payment information is missing or expired")
	}
	return nil
}

// CountsOfficeHours reports whether a report asked for office hours counts
// them: asking while the company has none enabled behaves as not asking
// (SPEC).
func (c *Company) CountsOfficeHours(asked bool) bool { return asked && c.OfficeHours.Enabled }

// CanUseReports answers 403 `Access denied` unless the company's plan is
// one of the two highest (SPEC: reports need them).
func (c *Company) CanUseReports() error {
	if !c.Plan.HasReports() {
		return Forbidden(CodeAccessDenied, "reports are available on the two highest plans only")
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

// unauthorizedOr keeps an internal failure internal and turns anything else
// (not found, a rule) into a 401 with msg.
func unauthorizedOr(err error, msg string) error {
	if err != nil && KindOf(err) == KindInternal {
		return err
	}
	return Unauthorized(msg)
}
