package parley

import (
	"errors"
	"time"
)

// Lifetimes of the OAuth records. Help Scout's docs fix only the access token's
// (AccessTokenLifetime); the others are Parley's choices.
const (
	// AuthCodeLifetime is how long an authorization code may be exchanged.
	AuthCodeLifetime = 5 * time.Minute
	// RefreshTokenLifetime is how long an unused refresh token stays valid.
	RefreshTokenLifetime = 60 * 24 * time.Hour
	// SessionLifetime is how long a sign-in on the authorization page lasts.
	SessionLifetime = 8 * time.Hour
)

// OAuth 2.0 error codes of the token endpoint (RFC 6749 section 5.2), used
// as the FieldError.Code of the *Error the OAuth rules return.
const (
	OAuthInvalidRequest         = "invalid_request"
	OAuthInvalidClient          = "invalid_client"
	OAuthInvalidGrant           = "invalid_grant"
	OAuthUnsupportedGrantType   = "unsupported_grant_type"
	OAuthTemporarilyUnavailable = "temporarily_unavailable"
)

// oauthCodes are the codes OAuthError takes.
var oauthCodes = map[string]bool{OAuthInvalidRequest: true, OAuthInvalidClient: true, OAuthInvalidGrant: true,
	OAuthUnsupportedGrantType: true, OAuthTemporarilyUnavailable: true}

// OAuthError builds the error of a token-endpoint rule: kind decides the
// status (KindInvalid 400, KindUnauthorized 401), code is an OAuth* code.
func OAuthError(kind Kind, code, description string) *Error {
	return &Error{Kind: kind, Message: description, Errors: []FieldError{{Code: code, Message: description, Origin: OriginCredential}}}
}

// AsOAuthError returns the *Error of err when it is the refusal of a
// token-endpoint rule (OAuthError), which is answered in OAuth 2.0's form.
func AsOAuthError(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) || len(e.Errors) == 0 || !oauthCodes[e.Errors[0].Code] {
		return nil, false
	}
	return e, true
}

func invalidGrant(description string) *Error {
	return OAuthError(KindInvalid, OAuthInvalidGrant, description)
}

// Grant is one authorization of an application by a user: the chain of
// access and refresh tokens issued from one authorization code or V1
// exchange. Revoking it revokes every token of the chain.
type Grant struct {
	ID        string     `json:"id"`
	ClientID  string     `json:"clientId"`
	CompanyID int64      `json:"companyId"`
	UserID    int64      `json:"userId"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// AuthCode is an authorization code, stored under the hash of its value.
type AuthCode struct {
	Hash      string     `json:"hash"`
	ClientID  string     `json:"clientId"`
	CompanyID int64      `json:"companyId"`
	UserID    int64      `json:"userId"`
	ExpiresAt time.Time  `json:"expiresAt"`
	UsedAt    *time.Time `json:"usedAt,omitempty"`
	GrantID   string     `json:"grantId,omitempty"` // set once exchanged
	// CodeChallenge is the S256 PKCE challenge of the authorization
	// request, if it had one: the exchange must then send its verifier.
	CodeChallenge string `json:"codeChallenge,omitempty"`
}

// RefreshToken is a refresh token, stored under the hash of its value.
type RefreshToken struct {
	Hash      string     `json:"hash"`
	GrantID   string     `json:"grantId"`
	ClientID  string     `json:"clientId"`
	ExpiresAt time.Time  `json:"expiresAt"`
	RotatedAt *time.Time `json:"rotatedAt,omitempty"` // used once: replaying it revokes the grant
}

// Issued is what the token endpoint answers.
type Issued struct {
	AccessToken  string
	RefreshToken string // empty for client credentials
	ExpiresIn    int    // seconds
}

// The OAuth rules below return a *Error that is an answer, not a failure:
// the writes they made before it (a revoked grant) must be committed.

// IssueClientCredentials issues an access token that acts as the user who
// created the (already authenticated) application.
func IssueClientCredentials(tx Tx, app *App, now time.Time) (Issued, error) {
	user, err := tx.User(app.CompanyID, app.UserID)
	if err != nil || !user.CanSignIn() {
		if IsFailure(err) {
			return Issued{}, err
		}
		return Issued{}, OAuthError(KindUnauthorized, OAuthInvalidClient, "the application's user is not an active user of the account")
	}
	token := NewSecret()
	err = tx.PutToken(&Token{Hash: HashToken(token), ClientID: app.ClientID, CompanyID: app.CompanyID,
		UserID: app.UserID, ExpiresAt: now.Add(AccessTokenLifetime)})
	return Issued{AccessToken: token, ExpiresIn: int(AccessTokenLifetime.Seconds())}, err
}

// IssueAuthCode records the user's approval of the application and returns
// the single-use code to send to the application's redirect URL. With a
// PKCE challenge, only the holder of its verifier can exchange the code.
func IssueAuthCode(tx Tx, app *App, user *User, pkce PKCE, now time.Time) (string, error) {
	if err := pkce.Check(); err != nil {
		return "", err
	}
	if app.RevokedAt != nil || app.RedirectURI == "" {
		return "", InvalidParameter("client_id", CodeValueNotSupported, "the application cannot use the authorization-code flow", app.ClientID)
	}
	if !user.CanSignIn() {
		return "", Unauthorized("the user is not an active user of the account")
	}
	code := NewSecret()
	return code, tx.PutAuthCode(&AuthCode{Hash: HashToken(code), ClientID: app.ClientID, CompanyID: user.CompanyID,
		UserID: user.ID, ExpiresAt: now.Add(AuthCodeLifetime), CodeChallenge: pkce.Challenge})
}

// ExchangeAuthCode trades an authorization code for an access and a refresh
// token. A code works once, for the application it was issued to, before it
// expires; presenting a used code again revokes what it was exchanged for
// (RFC 6749 section 4.1.2). A code issued with a PKCE challenge needs the
// challenge's verifier (RFC 7636 section 4.6); a verifier sent for a code
// issued without one is refused too, so that an application that believes
// it uses PKCE finds out that its authorization request did not.
func ExchangeAuthCode(tx Tx, app *App, code, verifier string, now time.Time) (Issued, error) {
	rec, err := tx.AuthCode(HashToken(code))
	if err != nil || rec.ClientID != app.ClientID {
		return Issued{}, internalOr(err, invalidGrant("the authorization code is invalid"))
	}
	if rec.UsedAt != nil {
		if err := revokeGrant(tx, rec.GrantID, now); err != nil {
			return Issued{}, err
		}
		return Issued{}, invalidGrant("the authorization code was already used; the tokens issued for it are revoked")
	}
	if !now.Before(rec.ExpiresAt) {
		return Issued{}, invalidGrant("the authorization code has expired")
	}
	switch {
	case rec.CodeChallenge != "" && verifier == "":
		return Issued{}, invalidGrant("the authorization code was issued with a code_challenge: code_verifier is required")
	case rec.CodeChallenge != "" && !verifies(rec.CodeChallenge, verifier):
		return Issued{}, invalidGrant("the code_verifier does not match the code_challenge")
	case rec.CodeChallenge == "" && verifier != "":
		return Issued{}, invalidGrant("the authorization code was issued without a code_challenge: send no code_verifier")
	}
	user, err := tx.User(rec.CompanyID, rec.UserID)
	if err != nil || !user.CanSignIn() {
		return Issued{}, internalOr(err, invalidGrant("the user is not an active user of the account"))
	}
	g := &Grant{ID: NewSecret(), ClientID: app.ClientID, CompanyID: rec.CompanyID, UserID: rec.UserID, CreatedAt: now}
	if err := tx.PutGrant(g); err != nil {
		return Issued{}, err
	}
	rec.UsedAt, rec.GrantID = &now, g.ID
	if err := tx.PutAuthCode(rec); err != nil {
		return Issued{}, err
	}
	return issueOnGrant(tx, g, NewSecret(), NewSecret(), now)
}

// RefreshAccess rotates a refresh token: it answers a new access token and
// a new refresh token, and the presented one stops working. Presenting a
// rotated refresh token again (a replay: someone copied it) revokes the
// whole grant, so the thief's and the owner's tokens all stop working.
func RefreshAccess(tx Tx, app *App, refresh string, now time.Time) (Issued, error) {
	rt, err := tx.RefreshToken(HashToken(refresh))
	if err != nil || rt.ClientID != app.ClientID {
		return Issued{}, internalOr(err, invalidGrant("the refresh token is invalid"))
	}
	g, err := tx.Grant(rt.GrantID)
	if err != nil {
		return Issued{}, internalOr(err, invalidGrant("the refresh token is invalid"))
	}
	if g.RevokedAt != nil {
		return Issued{}, invalidGrant("the refresh token was revoked")
	}
	if rt.RotatedAt != nil {
		if err := revokeGrant(tx, g.ID, now); err != nil {
			return Issued{}, err
		}
		return Issued{}, invalidGrant("the refresh token was already used; every token of its grant is revoked")
	}
	if !now.Before(rt.ExpiresAt) {
		return Issued{}, invalidGrant("the refresh token has expired")
	}
	user, err := tx.User(g.CompanyID, g.UserID)
	if err != nil || !user.CanSignIn() {
		return Issued{}, internalOr(err, invalidGrant("the user is not an active user of the account"))
	}
	rt.RotatedAt = &now
	if err := tx.PutRefreshToken(rt); err != nil {
		return Issued{}, err
	}
	return issueOnGrant(tx, g, NewSecret(), NewSecret(), now)
}

// issueOnGrant stores an access and a refresh token of the grant.
func issueOnGrant(tx Tx, g *Grant, access, refresh string, now time.Time) (Issued, error) {
	err := tx.PutToken(&Token{Hash: HashToken(access), ClientID: g.ClientID, CompanyID: g.CompanyID, UserID: g.UserID,
		ExpiresAt: now.Add(AccessTokenLifetime), GrantID: g.ID})
	if err != nil {
		return Issued{}, err
	}
	err = tx.PutRefreshToken(&RefreshToken{Hash: HashToken(refresh), GrantID: g.ID, ClientID: g.ClientID,
		ExpiresAt: now.Add(RefreshTokenLifetime)})
	return Issued{AccessToken: access, RefreshToken: refresh, ExpiresIn: int(AccessTokenLifetime.Seconds())}, err
}

func revokeGrant(tx Tx, id string, now time.Time) error {
	if id == "" {
		return nil
	}
	g, err := tx.Grant(id)
	if err != nil || g.RevokedAt != nil {
		return internalOr(err, nil)
	}
	g.RevokedAt = &now
	return tx.PutGrant(g)
}

// internalOr returns err when it is a failure (IsFailure), else answer.
func internalOr(err error, answer *Error) error {
	if IsFailure(err) {
		return err
	}
	if answer == nil {
		return nil
	}
	return answer
}

// App is an OAuth 2.0 application. It acts as the user who created it.
type App struct {
	ClientID    string    `json:"clientId"`
	CompanyID   int64     `json:"companyId"`
	UserID      int64     `json:"userId"`
	Name        string    `json:"name"`
	SecretHash  string    `json:"secretHash"` // bcrypt
	RedirectURI string    `json:"redirectUri,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	// RevokedAt is set by `parley app revoke`: the app's tokens stop working.
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// The client ids of Parley's first-party applications: the reports
// dashboard (served at /reports) and the agents' inbox (served at /inbox
// and at each conversation's web link). They have no company and no
// secret: no client can authenticate as them at the token endpoint, so
// their authorization codes are exchanged by Parley alone, and each acts
// only as the user who signs in to it.
const (
	DashboardClientID = "parley-dashboard"
	InboxClientID     = "parley-inbox"
)

// FirstPartyApp loads one of Parley's first-party applications, creating
// it with the name and redirect URL given when it does not exist yet. A
// revoked one is returned as it is: `parley app revoke` turns its sign-in
// off.
func FirstPartyApp(tx Tx, clientID, name, redirectURI string, now time.Time) (*App, error) {
	app, err := tx.App(clientID)
	if !IsNotFound(err) {
		return app, err
	}
	app = &App{ClientID: clientID, Name: name, RedirectURI: redirectURI, CreatedAt: now}
	return app, tx.PutApp(app)
}

// Consent is what a user is told on the consent page before approving an
// application: the application, whose it is, and for which company the
// user would approve it. An application made by another company than the
// user's can ask for access too (Authorization Code suits integrations
// used by other companies' users), so its maker is named, never assumed.
type Consent struct {
	App string
	// Maker is the name of the company the application belongs to; Parley
	// for Parley's own (the reports dashboard), which has none.
	Maker string
	// ForeignMaker says the maker is another company than the user's.
	ForeignMaker bool
	// Company is the name of the user's company, whose data the
	// application would use.
	Company string
}

// ConsentFor tells who asks user's consent: app and its maker. An app
// whose company cannot be found is NotFound, so that no one approves an
// application without being told whose it is.
func ConsentFor(tx Tx, app *App, user *User) (*Consent, error) {
	own, err := tx.Company(user.CompanyID)
	if err != nil {
		return nil, err
	}
	c := &Consent{App: app.Name, Maker: "Parley", Company: own.Name}
	if app.CompanyID == 0 {
		return c, nil
	}
	maker, err := tx.Company(app.CompanyID)
	if err != nil {
		return nil, err
	}
	c.Maker, c.ForeignMaker = maker.Name, maker.ID != own.ID
	return c, nil
}
