package parley

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"
)

// V1Exchange remembers the tokens a V1 key was exchanged for with one
// application, so that repeating the exchange returns the same token (Help Scout's docs).
// The tokens themselves are not stored: they are derived from the V1 key
// and Salt (HMAC-SHA256), so only a caller holding the key can get them
// back, and the database holds hashes only.
type V1Exchange struct {
	KeyHash   string    `json:"keyHash"`
	ClientID  string    `json:"clientId"`
	Salt      string    `json:"salt"`
	GrantID   string    `json:"grantId"`
	ExpiresAt time.Time `json:"expiresAt"` // of the access token
}

// v1Invalid is the 400 of the V1 exchange (rendered as {status, message}).
func v1Invalid(msg string) *Error {
	return &Error{Kind: KindInvalid, Message: msg, Errors: []FieldError{{Code: CodeInvalidV1Exchange, Message: msg, Origin: OriginBody}}}
}

// CodeInvalidV1Exchange marks the errors of the V1 key exchange.
const CodeInvalidV1Exchange = "Invalid V1 exchange"

// ExchangeV1Key trades a user's V1 API key, for an application, for an
// access token and a refresh token (a UUID) acting as the key's user.
// Repeating it with the same key and application returns the existing
// tokens while the access token lives and its grant stands. A bad key or
// client id answers 400.
func ExchangeV1Key(tx Tx, apiKey, clientID string, now time.Time) (Issued, error) {
	if apiKey == "" {
		return Issued{}, v1Invalid("apiKey is required")
	}
	if clientID == "" {
		return Issued{}, v1Invalid("clientId is required")
	}
	keyHash := HashToken(apiKey)
	user, err := tx.UserByV1Key(keyHash)
	if err != nil {
		return Issued{}, internalOr(err, v1Invalid("the apiKey is invalid or does not exist"))
	}
	if !user.CanSignIn() {
		return Issued{}, v1Invalid("the apiKey belongs to a user who is not an active user of the account")
	}
	app, err := tx.App(clientID)
	if err != nil || app.RevokedAt != nil {
		return Issued{}, internalOr(err, v1Invalid("the clientId is invalid or does not exist"))
	}
	if x, err := tx.V1Exchange(keyHash, clientID); err == nil && now.Before(x.ExpiresAt) {
		access, refresh := deriveV1Tokens(apiKey, x.Salt)
		if g, err := tx.Grant(x.GrantID); err == nil && g.RevokedAt == nil && g.UserID == user.ID {
			if rt, err := tx.RefreshToken(HashToken(refresh)); err == nil && rt.RotatedAt == nil {
				return Issued{AccessToken: access, RefreshToken: refresh, ExpiresIn: int(x.ExpiresAt.Sub(now).Seconds())}, nil
			}
		}
	} else if IsFailure(err) {
		return Issued{}, err
	}
	salt := NewSecret()
	g := &Grant{ID: NewSecret(), ClientID: clientID, CompanyID: user.CompanyID, UserID: user.ID, CreatedAt: now}
	if err := tx.PutGrant(g); err != nil {
		return Issued{}, err
	}
	access, refresh := deriveV1Tokens(apiKey, salt)
	issued, err := issueOnGrant(tx, g, access, refresh, now)
	if err != nil {
		return Issued{}, err
	}
	return issued, tx.PutV1Exchange(&V1Exchange{KeyHash: keyHash, ClientID: clientID, Salt: salt, GrantID: g.ID,
		ExpiresAt: now.Add(AccessTokenLifetime)})
}

// deriveV1Tokens computes the access token and the refresh token (a
// version 4 UUID in form) of a V1 exchange from the key and salt.
func deriveV1Tokens(apiKey, salt string) (access, refresh string) {
	mac := func(purpose string) []byte {
		h := hmac.New(sha256.New, []byte(apiKey))
		h.Write([]byte("parley-v1-exchange|" + purpose + "|" + salt))
		return h.Sum(nil)
	}
	access = base64.RawURLEncoding.EncodeToString(mac("access"))
	b := mac("refresh")[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	refresh = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	return access, refresh
}
