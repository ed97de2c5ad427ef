package parley

import "time"

// Session is a sign-in on the authorization page, stored under the hash of
// the cookie's value.
type Session struct {
	Hash      string    `json:"hash"`
	CompanyID int64     `json:"companyId"`
	UserID    int64     `json:"userId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// SignIn starts a session for a user whose password was checked. An
// invited user accepts the invitation by signing in the first time; a
// deactivated user may not sign in (401).
func SignIn(tx Tx, user *User, now time.Time) (string, error) {
	if user.Deactivated {
		return "", Unauthorized("the user is deactivated")
	}
	if user.Invited() {
		user.Active, user.UpdatedAt = true, now
		if err := tx.PutUser(user); err != nil {
			return "", err
		}
	}
	token := NewSecret()
	return token, tx.PutSession(&Session{Hash: HashToken(token), CompanyID: user.CompanyID, UserID: user.ID,
		ExpiresAt: now.Add(SessionLifetime)})
}

// SessionUser resolves a session cookie's value to its signed-in user; an
// unknown or expired session, or a user who can no longer sign in, is 401.
func SessionUser(tx Tx, token string, now time.Time) (*User, error) {
	s, err := tx.Session(HashToken(token))
	if err != nil {
		return nil, unauthorizedOr(err, "not signed in")
	}
	if !now.Before(s.ExpiresAt) {
		return nil, Unauthorized("the session has expired")
	}
	u, err := tx.User(s.CompanyID, s.UserID)
	if err != nil || !u.CanSignIn() {
		return nil, unauthorizedOr(err, "the user is not an active user of the account")
	}
	return u, nil
}
