package parley_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// commitRefusal runs fn in a write that commits even when fn refuses, as
// the token endpoint does: a refused replay must still revoke.
func (w *world) commitRefusal(fn func(tx parley.Tx) error) error {
	var refusal error
	err := w.write(func(tx parley.Tx) error {
		refusal = fn(tx)
		return nil
	})
	if err != nil {
		return err
	}
	return refusal
}

func (w *world) authenticated(t *testing.T, token string, at time.Time) error {
	t.Helper()
	return w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := parley.Authenticate(tx, parley.HashToken(token), at)
		return err
	})
}

func TestAuthorizationCodeFlow(t *testing.T) {
	w := newWorld(t)
	app := &parley.App{ClientID: "app-1", CompanyID: w.caller.Company.ID, UserID: w.caller.User.ID, Name: "Helper", RedirectURI: "https://app.example/cb", CreatedAt: ruleNow}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutApp(app) }))
	issue := func(app *parley.App, user *parley.User) (string, error) {
		var code string
		err := w.write(func(tx parley.Tx) (err error) {
			code, err = parley.IssueAuthCode(tx, app, user, parley.PKCE{}, ruleNow)
			return err
		})
		return code, err
	}
	noRedirect := *app
	noRedirect.RedirectURI = ""
	_, err := issue(&noRedirect, w.caller.User)
	assert.Equal(t, parley.KindInvalid, parley.KindOf(err), "an app without a redirect URI has no code flow")
	_, err = issue(app, &parley.User{CompanyID: w.caller.Company.ID, Deactivated: true})
	assert.Equal(t, parley.KindUnauthorized, parley.KindOf(err), "a deactivated user cannot authorize")

	code, err := issue(app, w.caller.User)
	require.NoError(t, err)
	exchange := func(app *parley.App, code string, at time.Time) (parley.Issued, error) {
		var got parley.Issued
		err := w.commitRefusal(func(tx parley.Tx) (err error) {
			got, err = parley.ExchangeAuthCode(tx, app, code, "", at)
			return err
		})
		return got, err
	}
	other := *app
	other.ClientID = "app-2"
	_, err = exchange(&other, code, ruleNow)
	assert.Error(t, err, "a code works only for its application")
	_, err = exchange(app, code, ruleNow.Add(parley.AuthCodeLifetime))
	assert.Error(t, err, "an expired code")

	issued, err := exchange(app, code, ruleNow)
	require.NoError(t, err)
	assert.NotEmpty(t, issued.RefreshToken)
	assert.Equal(t, int(parley.AccessTokenLifetime/time.Second), issued.ExpiresIn)
	require.NoError(t, w.authenticated(t, issued.AccessToken, ruleNow))
	assert.Equal(t, parley.KindUnauthorized, parley.KindOf(w.authenticated(t, issued.AccessToken, ruleNow.Add(parley.AccessTokenLifetime))), "an expired token")

	// Refreshing rotates; a replayed refresh token revokes the whole grant.
	var rotated parley.Issued
	require.NoError(t, w.commitRefusal(func(tx parley.Tx) (err error) {
		rotated, err = parley.RefreshAccess(tx, app, issued.RefreshToken, ruleNow.Add(time.Minute))
		return err
	}))
	require.NoError(t, w.authenticated(t, rotated.AccessToken, ruleNow.Add(time.Minute)))
	err = w.commitRefusal(func(tx parley.Tx) error {
		_, err := parley.RefreshAccess(tx, app, issued.RefreshToken, ruleNow.Add(2*time.Minute))
		return err
	})
	assert.Error(t, err, "a replayed refresh token")
	assert.Error(t, w.authenticated(t, rotated.AccessToken, ruleNow.Add(2*time.Minute)), "the replay revoked the grant's tokens")

	// A code presented twice revokes what it was exchanged for.
	code, err = issue(app, w.caller.User)
	require.NoError(t, err)
	first, err := exchange(app, code, ruleNow)
	require.NoError(t, err)
	_, err = exchange(app, code, ruleNow)
	assert.Error(t, err)
	assert.Error(t, w.authenticated(t, first.AccessToken, ruleNow), "the second use revoked the first's tokens")
}

func TestSignIn(t *testing.T) {
	w := newWorld(t)
	invited := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Ivy", Email: "ivy@acme.test", Role: parley.RoleUser}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutUser(invited) }))
	var session string
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		session, err = parley.SignIn(tx, invited, ruleNow)
		return err
	}))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		u, err := parley.SessionUser(tx, session, ruleNow)
		require.NoError(t, err)
		assert.Equal(t, invited.ID, u.ID)
		assert.True(t, u.Active, "signing in accepts the invitation")
		_, err = parley.SessionUser(tx, session, ruleNow.Add(parley.SessionLifetime))
		assert.Equal(t, parley.KindUnauthorized, parley.KindOf(err), "an expired session")
		_, err = parley.SessionUser(tx, "forged", ruleNow)
		assert.Equal(t, parley.KindUnauthorized, parley.KindOf(err))
		return nil
	}))
	err := w.write(func(tx parley.Tx) error {
		gone, err := tx.User(w.caller.Company.ID, w.inactive)
		if err != nil {
			return err
		}
		_, err = parley.SignIn(tx, gone, ruleNow)
		return err
	})
	assert.Equal(t, parley.KindUnauthorized, parley.KindOf(err), "a deactivated user cannot sign in")
}

// TestAuthorizationCodePKCE: a code issued with an S256 challenge is
// exchanged only with its verifier, and a code issued without one refuses
// a verifier; unverifiable challenges are refused when the code is issued.
func TestAuthorizationCodePKCE(t *testing.T) {
	w := newWorld(t)
	app := &parley.App{ClientID: "app-1", CompanyID: w.caller.Company.ID, UserID: w.caller.User.ID, Name: "Helper", RedirectURI: "https://app.example/cb", CreatedAt: ruleNow}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutApp(app) }))
	// RFC 7636 appendix B's example.
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	s256 := parley.PKCE{Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Method: parley.PKCEMethodS256}
	assert.Equal(t, s256.Challenge, parley.S256Challenge(verifier))

	issueCases := []struct {
		name string
		pkce parley.PKCE
		want string // error message; empty when the code is issued
	}{
		{"no challenge", parley.PKCE{}, ""},
		{"S256", s256, ""},
		{"plain is refused", parley.PKCE{Challenge: s256.Challenge, Method: "plain"}, "only code_challenge_method=S256 is supported"},
		{"a missing method means plain", parley.PKCE{Challenge: s256.Challenge}, "only code_challenge_method=S256 is supported"},
		{"a method without a challenge", parley.PKCE{Method: parley.PKCEMethodS256}, "code_challenge_method needs a code_challenge"},
		{"not a SHA-256 digest", parley.PKCE{Challenge: "short", Method: parley.PKCEMethodS256}, "an S256 code_challenge is the 43-character base64url SHA-256 of the verifier"},
		{"not base64url", parley.PKCE{Challenge: s256.Challenge[:42] + "+", Method: parley.PKCEMethodS256}, "an S256 code_challenge is the 43-character base64url SHA-256 of the verifier"},
	}
	for _, tc := range issueCases {
		t.Run("issue/"+tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.IssueAuthCode(tx, app, w.caller.User, tc.pkce, ruleNow)
				return err
			})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, parley.KindInvalid, parley.KindOf(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}

	exchangeCases := []struct {
		name     string
		pkce     parley.PKCE
		verifier string
		want     string // invalid_grant's description; empty when tokens are issued
	}{
		{"S256 with its verifier", s256, verifier, ""},
		{"S256 without a verifier", s256, "", "the authorization code was issued with a code_challenge: code_verifier is required"},
		{"S256 with another verifier", s256, verifier + "x", "the code_verifier does not match the code_challenge"},
		{"S256 with the challenge as verifier", s256, s256.Challenge, "the code_verifier does not match the code_challenge"},
		{"no challenge, no verifier", parley.PKCE{}, "", ""},
		{"no challenge, a verifier", parley.PKCE{}, verifier, "the authorization code was issued without a code_challenge: send no code_verifier"},
	}
	for _, tc := range exchangeCases {
		t.Run("exchange/"+tc.name, func(t *testing.T) {
			var issued parley.Issued
			err := w.commitRefusal(func(tx parley.Tx) error {
				code, err := parley.IssueAuthCode(tx, app, w.caller.User, tc.pkce, ruleNow)
				if err != nil {
					return err
				}
				issued, err = parley.ExchangeAuthCode(tx, app, code, tc.verifier, ruleNow)
				return err
			})
			if tc.want == "" {
				require.NoError(t, err)
				assert.NoError(t, w.authenticated(t, issued.AccessToken, ruleNow))
				return
			}
			e, ok := parley.AsOAuthError(err)
			require.True(t, ok, "an OAuth error: %v", err)
			assert.Equal(t, parley.OAuthInvalidGrant, e.Errors[0].Code)
			assert.Equal(t, tc.want, e.Message)
			assert.Empty(t, issued.AccessToken)
		})
	}
}

// tokenUser is the id of the user a token acts as at a time.
func (w *world) tokenUser(t *testing.T, token string, at time.Time) int64 {
	t.Helper()
	var c parley.Caller
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		c, err = parley.Authenticate(tx, parley.HashToken(token), at)
		return err
	}))
	return c.User.ID
}

// invitedUser stores a user of the world's company who has not accepted
// the invitation yet.
func (w *world) invitedUser(t *testing.T) int64 {
	t.Helper()
	u := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Ivo", Email: "ivo@acme.test", Role: parley.RoleUser}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutUser(u) }))
	return u.ID
}

func TestIssueClientCredentials(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name string
		user int64
		ok   bool
	}{
		{"the app's user is active", w.caller.User.ID, true},
		{"the app's user was deactivated", w.inactive, false},
		{"the app's user is invited, not active yet", w.invitedUser(t), false},
		{"the app's user is gone", 999, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := &parley.App{ClientID: "cc-app", CompanyID: w.caller.Company.ID, UserID: tc.user, Name: "Sync", CreatedAt: ruleNow}
			var issued parley.Issued
			err := w.write(func(tx parley.Tx) (err error) {
				if err := tx.PutApp(app); err != nil {
					return err
				}
				issued, err = parley.IssueClientCredentials(tx, app, ruleNow)
				return err
			})
			if !tc.ok {
				assertRefused(t, err, parley.KindUnauthorized, "", parley.OAuthInvalidClient)
				assert.Empty(t, issued.AccessToken)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, parley.Issued{AccessToken: issued.AccessToken, ExpiresIn: 172800}, issued, "no refresh token")
			assert.Equal(t, tc.user, w.tokenUser(t, issued.AccessToken, ruleNow))
			assert.Error(t, w.authenticated(t, issued.AccessToken, ruleNow.Add(parley.AccessTokenLifetime)), "the token expires")
		})
	}
}

func TestFirstPartyApp(t *testing.T) {
	w := newWorld(t)
	first := func(name, redirect string, at time.Time) *parley.App {
		var app *parley.App
		require.NoError(t, w.write(func(tx parley.Tx) (err error) {
			app, err = parley.FirstPartyApp(tx, parley.DashboardClientID, name, redirect, at)
			return err
		}))
		return app
	}
	made := &parley.App{ClientID: parley.DashboardClientID, Name: "Reports", RedirectURI: "https://parley.test/reports/cb", CreatedAt: ruleNow}
	assert.Equal(t, made, first("Reports", "https://parley.test/reports/cb", ruleNow), "created when absent")
	assert.Equal(t, made, first("Renamed", "https://elsewhere.test/cb", ruleNow.Add(time.Hour)), "loaded as it is after")

	revoked := *made
	revoked.RevokedAt = &ruleNow
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutApp(&revoked) }))
	assert.Equal(t, &revoked, first("Reports", "https://parley.test/reports/cb", ruleNow), "a revoked app is not made anew")
}

func TestConsentFor(t *testing.T) {
	w := newWorld(t)
	other := w.otherCompany(t)
	cases := []struct {
		name string
		app  parley.App
		want *parley.Consent
	}{
		{"Parley's own", parley.App{Name: "Reports"}, &parley.Consent{App: "Reports", Maker: "Parley", Company: "Acme"}},
		{"the user's company's", parley.App{Name: "Sync", CompanyID: w.caller.Company.ID}, &parley.Consent{App: "Sync", Maker: "Acme", Company: "Acme"}},
		{"another company's", parley.App{Name: "Bridge", CompanyID: other.ID}, &parley.Consent{App: "Bridge", Maker: "Other", ForeignMaker: true, Company: "Acme"}},
		{"a company gone", parley.App{Name: "Ghost", CompanyID: 999}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got *parley.Consent
			err := w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				got, err = parley.ConsentFor(tx, &tc.app, w.caller.User)
				return err
			})
			if tc.want == nil {
				assert.True(t, parley.IsNotFound(err), "no consent without a maker: %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestExchangeV1Key(t *testing.T) {
	w := newWorld(t)
	const key, client = "v1-key-of-ann", "v1-app"
	w.caller.User.V1KeyHash = parley.HashToken(key)
	gone := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Gus", Email: "gus@acme.test", Role: parley.RoleUser,
		Deactivated: true, V1KeyHash: parley.HashToken("v1-key-of-gus")}
	require.NoError(t, w.write(func(tx parley.Tx) error {
		for _, u := range []*parley.User{w.caller.User, gone} {
			if err := tx.PutUser(u); err != nil {
				return err
			}
		}
		if err := tx.PutApp(&parley.App{ClientID: client, CompanyID: w.caller.Company.ID, UserID: w.caller.User.ID, Name: "Legacy"}); err != nil {
			return err
		}
		return tx.PutApp(&parley.App{ClientID: "revoked-app", CompanyID: w.caller.Company.ID, Name: "Old", RevokedAt: &ruleNow})
	}))
	exchange := func(apiKey, clientID string, at time.Time) (parley.Issued, error) {
		var got parley.Issued
		err := w.commitRefusal(func(tx parley.Tx) (err error) {
			got, err = parley.ExchangeV1Key(tx, apiKey, clientID, at)
			return err
		})
		return got, err
	}
	refused := []struct{ name, key, client string }{
		{"no key", "", client},
		{"no client id", key, ""},
		{"an unknown key", "v1-key-of-nobody", client},
		{"a deactivated user's key", "v1-key-of-gus", client},
		{"an unknown client id", key, "no-such-app"},
		{"a revoked application", key, "revoked-app"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := exchange(tc.key, tc.client, ruleNow)
			assertRefused(t, err, parley.KindInvalid, "", parley.CodeInvalidV1Exchange)
		})
	}

	first, err := exchange(key, client, ruleNow)
	require.NoError(t, err)
	assert.NotEmpty(t, first.RefreshToken)
	assert.Equal(t, w.caller.User.ID, w.tokenUser(t, first.AccessToken, ruleNow))
	again, err := exchange(key, client, ruleNow.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, parley.Issued{AccessToken: first.AccessToken, RefreshToken: first.RefreshToken, ExpiresIn: first.ExpiresIn - 3600}, again,
		"the same tokens while the access token lives")
	later := ruleNow.Add(parley.AccessTokenLifetime)
	fresh, err := exchange(key, client, later)
	require.NoError(t, err)
	assert.NotEqual(t, first.AccessToken, fresh.AccessToken, "new tokens once it expired")
	assert.Equal(t, w.caller.User.ID, w.tokenUser(t, fresh.AccessToken, later))
}
