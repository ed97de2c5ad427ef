package storage

import (
	parley "github.com/parley/parley"
)

// Buckets of the OAuth records; tokens, codes and sessions are keyed by
// the hash of their value, never by the value.
var (
	bucketGrants        = newBucket("oauth_grants")
	bucketAuthCodes     = newBucket("oauth_codes")
	bucketRefreshTokens = newBucket("oauth_refresh_tokens")
	bucketV1Exchanges   = newBucket("oauth_v1_exchanges")
	bucketSessions      = newBucket("oauth_sessions")
)

var _ parley.AuthStore = (*Tx)(nil)

// load decodes the record under k, or answers NotFound(what).
func load[T any](t *Tx, bucket, k []byte, what string) (*T, error) {
	rec := new(T)
	found, err := t.get(bucket, k, rec)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound(what)
	}
	return rec, nil
}

// App loads an OAuth application by client id.
func (t *Tx) App(clientID string) (*parley.App, error) {
	return load[parley.App](t, bucketApps, []byte(clientID), "application")
}

// PutApp stores an OAuth application.
func (t *Tx) PutApp(a *parley.App) error { return t.put(bucketApps, []byte(a.ClientID), a) }

// Apps lists every OAuth application, by client id.
func (t *Tx) Apps() ([]parley.App, error) {
	return all[parley.App](t, bucketApps)
}

// Token loads an access token by the hash of its value.
func (t *Tx) Token(hash string) (*parley.Token, error) {
	return load[parley.Token](t, bucketTokens, []byte(hash), "token")
}

// PutToken stores an access token under its hash.
func (t *Tx) PutToken(tok *parley.Token) error { return t.put(bucketTokens, []byte(tok.Hash), tok) }

// Grant loads a grant (a refresh chain) by id.
func (t *Tx) Grant(id string) (*parley.Grant, error) {
	return load[parley.Grant](t, bucketGrants, []byte(id), "grant")
}

// PutGrant stores a grant.
func (t *Tx) PutGrant(g *parley.Grant) error { return t.put(bucketGrants, []byte(g.ID), g) }

// AuthCode loads an authorization code by the hash of its value.
func (t *Tx) AuthCode(hash string) (*parley.AuthCode, error) {
	return load[parley.AuthCode](t, bucketAuthCodes, []byte(hash), "authorization code")
}

// PutAuthCode stores an authorization code under its hash.
func (t *Tx) PutAuthCode(c *parley.AuthCode) error { return t.put(bucketAuthCodes, []byte(c.Hash), c) }

// RefreshToken loads a refresh token by the hash of its value.
func (t *Tx) RefreshToken(hash string) (*parley.RefreshToken, error) {
	return load[parley.RefreshToken](t, bucketRefreshTokens, []byte(hash), "refresh token")
}

// PutRefreshToken stores a refresh token under its hash.
func (t *Tx) PutRefreshToken(r *parley.RefreshToken) error {
	return t.put(bucketRefreshTokens, []byte(r.Hash), r)
}

// V1Exchange loads the exchange of a V1 key (by hash) with an application.
func (t *Tx) V1Exchange(keyHash, clientID string) (*parley.V1Exchange, error) {
	return load[parley.V1Exchange](t, bucketV1Exchanges, []byte(keyHash+"\x00"+clientID), "exchange")
}

// PutV1Exchange stores the exchange of a V1 key with an application.
func (t *Tx) PutV1Exchange(x *parley.V1Exchange) error {
	return t.put(bucketV1Exchanges, []byte(x.KeyHash+"\x00"+x.ClientID), x)
}

// Session loads a sign-in session by the hash of its cookie value.
func (t *Tx) Session(hash string) (*parley.Session, error) {
	return load[parley.Session](t, bucketSessions, []byte(hash), "session")
}

// PutSession stores a sign-in session under its hash.
func (t *Tx) PutSession(s *parley.Session) error { return t.put(bucketSessions, []byte(s.Hash), s) }
