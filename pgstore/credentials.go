package pgstore

import (
	"crypto/rand"

	parley "github.com/parley/parley"
)

// The credentials reference table holds what authenticates a caller, each
// found by its kind and key: applications by client id, grants by id, and
// tokens, codes and sessions by the hash of their value (never the value).

// Kinds of credentials.
const (
	credApp          = "app"
	credToken        = "token"
	credGrant        = "grant"
	credAuthCode     = "auth_code"
	credRefreshToken = "refresh_token"
	credV1Exchange   = "v1_exchange"
	credSession      = "session"
	// credCursorKey holds the key that signs customer list cursors.
	credCursorKey = "cursor_key"
)

var (
	sqlCredential    = cachedStmt(`SELECT c.body FROM credentials c WHERE c.kind = $1 AND c.key = $2`)
	sqlPutCredential = stmt(`INSERT INTO credentials (kind, key, body) VALUES ($1, $2, $3)
ON CONFLICT (kind, key) DO UPDATE SET body = EXCLUDED.body`)
	sqlAddCredential = stmt(`INSERT INTO credentials (kind, key, body) VALUES ($1, $2, $3) ON CONFLICT (kind, key) DO NOTHING`)
)

var _ parley.AuthStore = (*Tx)(nil)

func credential[T any](t *Tx, kind, key, noun string) (*T, error) {
	return one[T](t, noun, sqlCredential, kind, key)
}

func (t *Tx) putCredential(kind, key string, rec any) error {
	return t.put(sqlPutCredential, rec, kind, key)
}

// App loads an OAuth application by client id.
func (t *Tx) App(clientID string) (*parley.App, error) {
	return credential[parley.App](t, credApp, clientID, "application")
}

// PutApp stores an OAuth application.
func (t *Tx) PutApp(a *parley.App) error { return t.putCredential(credApp, a.ClientID, a) }

// Apps lists every OAuth application, by client id.
func (t *Tx) Apps() ([]parley.App, error) { return many[parley.App](t, sqlCredentials, credApp) }

// Token loads an access token by the hash of its value.
func (t *Tx) Token(hash string) (*parley.Token, error) {
	return credential[parley.Token](t, credToken, hash, "token")
}

// PutToken stores an access token under its hash.
func (t *Tx) PutToken(tok *parley.Token) error { return t.putCredential(credToken, tok.Hash, tok) }

// Grant loads a grant (a refresh chain) by id.
func (t *Tx) Grant(id string) (*parley.Grant, error) {
	return credential[parley.Grant](t, credGrant, id, "grant")
}

// PutGrant stores a grant.
func (t *Tx) PutGrant(g *parley.Grant) error { return t.putCredential(credGrant, g.ID, g) }

// AuthCode loads an authorization code by the hash of its value.
func (t *Tx) AuthCode(hash string) (*parley.AuthCode, error) {
	return credential[parley.AuthCode](t, credAuthCode, hash, "authorization code")
}

// PutAuthCode stores an authorization code under its hash.
func (t *Tx) PutAuthCode(c *parley.AuthCode) error { return t.putCredential(credAuthCode, c.Hash, c) }

// RefreshToken loads a refresh token by the hash of its value.
func (t *Tx) RefreshToken(hash string) (*parley.RefreshToken, error) {
	return credential[parley.RefreshToken](t, credRefreshToken, hash, "refresh token")
}

// PutRefreshToken stores a refresh token under its hash.
func (t *Tx) PutRefreshToken(r *parley.RefreshToken) error {
	return t.putCredential(credRefreshToken, r.Hash, r)
}

// v1ExchangeKey is the key of the exchange of a V1 key with an application.
func v1ExchangeKey(keyHash, clientID string) string { return keyHash + " " + clientID }

// V1Exchange loads the exchange of a V1 key (by hash) with an application.
func (t *Tx) V1Exchange(keyHash, clientID string) (*parley.V1Exchange, error) {
	return credential[parley.V1Exchange](t, credV1Exchange, v1ExchangeKey(keyHash, keyText(clientID)), "exchange")
}

// PutV1Exchange stores the exchange of a V1 key with an application.
func (t *Tx) PutV1Exchange(x *parley.V1Exchange) error {
	return t.putCredential(credV1Exchange, v1ExchangeKey(x.KeyHash, keyText(x.ClientID)), x)
}

// Session loads a sign-in session by the hash of its cookie value.
func (t *Tx) Session(hash string) (*parley.Session, error) {
	return credential[parley.Session](t, credSession, hash, "session")
}

// PutSession stores a sign-in session under its hash.
func (t *Tx) PutSession(s *parley.Session) error { return t.putCredential(credSession, s.Hash, s) }

// CursorKey returns the key that signs customer list cursors, or nil when
// none was made yet (see MakeCursorKey).
func (t *Tx) CursorKey() []byte {
	k, err := credential[[]byte](t, credCursorKey, credCursorKey, "cursor key")
	if err != nil {
		return nil // NotFound; a statement's failure stays on the transaction
	}
	return *k
}

// MakeCursorKey stores a random cursor key unless one exists, and returns
// the stored one: of two nodes making one at once, the first to commit
// wins and the other meets its key, runs again and reads it.
func (t *Tx) MakeCursorKey() ([]byte, error) {
	if k := t.CursorKey(); k != nil {
		return k, nil
	}
	if t.failed != nil {
		return nil, t.failed
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	body, err := encodeBody(k)
	if err != nil {
		return nil, err
	}
	return k, t.exec(sqlAddCredential, credCursorKey, credCursorKey, body)
}
