package parley

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// PKCE is the proof key an application may send with its authorization
// request (RFC 7636): the code it gets back can then be exchanged only by
// whoever holds the verifier the challenge was derived from. Parley takes
// the S256 method only; `plain` would hand the verifier to anyone who sees
// the authorization request.
type PKCE struct {
	Challenge, Method string
}

// PKCEMethodS256 is the one code_challenge_method Parley accepts.
const PKCEMethodS256 = "S256"

// s256ChallengeLength is the length of a base64url SHA-256 digest without
// padding, which is what an S256 challenge is.
const s256ChallengeLength = 43

// Check refuses a challenge Parley cannot verify later: a method other
// than S256 (RFC 7636 section 4.3 makes a missing method mean `plain`), or
// a challenge that is not a base64url SHA-256 digest. No challenge at all
// is fine: the application does not use PKCE.
func (p PKCE) Check() error {
	if p.Challenge == "" && p.Method == "" {
		return nil
	}
	if p.Challenge == "" {
		return InvalidParameter("code_challenge", CodeEmptyValue, "code_challenge_method needs a code_challenge", "")
	}
	if p.Method != PKCEMethodS256 {
		return InvalidParameter("code_challenge_method", CodeValueNotSupported, "only code_challenge_method=S256 is supported", p.Method)
	}
	if _, err := base64.RawURLEncoding.DecodeString(p.Challenge); err != nil || len(p.Challenge) != s256ChallengeLength {
		return InvalidParameter("code_challenge", CodeValueNotSupported, "an S256 code_challenge is the 43-character base64url SHA-256 of the verifier", p.Challenge)
	}
	return nil
}

// S256Challenge derives the S256 code_challenge of a code_verifier.
func S256Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// verifies reports whether verifier is the one challenge was derived from.
func verifies(challenge, verifier string) bool {
	return subtle.ConstantTimeCompare([]byte(S256Challenge(verifier)), []byte(challenge)) == 1
}
