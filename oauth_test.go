package parley_test

import (
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
	return w.st.View(func(tx parley.Tx) error {
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
			code, err = parley.IssueAuthCode(tx, app, user, ruleNow)
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
			got, err = parley.ExchangeAuthCode(tx, app, code, at)
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
	require.NoError(t, w.st.View(func(tx parley.Tx) error {
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
