package parley

import "slices"

// Credentials are the OAuth records of a store: applications, grants, the
// codes and tokens issued under them, sign-in sessions and V1 key
// exchanges. A copy between backends (parley copy) moves them with the
// company they authenticate, so the company's integrations keep working.
type Credentials struct {
	Apps          []App
	Grants        []Grant
	AuthCodes     []AuthCode
	Tokens        []Token
	RefreshTokens []RefreshToken
	V1Exchanges   []V1Exchange
	Sessions      []Session
}

// OfCompany keeps the credentials of one company. Refresh tokens and V1
// exchanges name no company: they belong to the company of their grant.
func (c *Credentials) OfCompany(companyID int64) Credentials {
	out := Credentials{
		Apps:      keep(c.Apps, func(a *App) bool { return a.CompanyID == companyID }),
		Grants:    keep(c.Grants, func(g *Grant) bool { return g.CompanyID == companyID }),
		AuthCodes: keep(c.AuthCodes, func(a *AuthCode) bool { return a.CompanyID == companyID }),
		Tokens:    keep(c.Tokens, func(t *Token) bool { return t.CompanyID == companyID }),
		Sessions:  keep(c.Sessions, func(s *Session) bool { return s.CompanyID == companyID }),
	}
	granted := map[string]bool{}
	for _, g := range out.Grants {
		granted[g.ID] = true
	}
	out.RefreshTokens = keep(c.RefreshTokens, func(r *RefreshToken) bool { return granted[r.GrantID] })
	out.V1Exchanges = keep(c.V1Exchanges, func(x *V1Exchange) bool { return granted[x.GrantID] })
	return out
}

// keep returns the elements of list that match, in order (nil when none).
func keep[T any](list []T, match func(*T) bool) []T {
	var out []T
	for i := range list {
		if match(&list[i]) {
			out = append(out, list[i])
		}
	}
	return slices.Clip(out)
}
