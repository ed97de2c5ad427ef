package api

import (
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// DefaultTokenRateLimit is how many calls one client id (or, without one,
// one remote address) may make per minute to the token endpoint, the V1
// exchange and the sign-in form: enough for any integration, too few for
// guessing secrets.
const DefaultTokenRateLimit = 60

// companyLimit is the company's calls per minute.
func (s *Server) companyLimit(c *parley.Company) int {
	if n := s.cfg.RateLimits[c.Plan]; n > 0 {
		return n
	}
	return parley.DefaultRateLimit(c.Plan)
}

// allowCompany spends the request's cost (writes 2, reads 1) from the
// company's budget of the current minute, sets the rate-limit headers, and
// answers 429 when the budget is spent.
func (s *Server) allowCompany(c *gin.Context, company *parley.Company) bool {
	d := s.limiter.Take("company:"+strconv.FormatInt(company.ID, 10), s.companyLimit(company),
		parley.RequestCost(c.Request.Method), s.now())
	if s.setRateHeaders(c, d) {
		return true
	}
	s.fail(c, parley.RateLimited(d))
	return false
}

// allowClient spends one call from a client's budget on the token-issuing
// endpoints; past it the answer is 429 with an OAuth body.
func (s *Server) allowClient(c *gin.Context, clientID string) bool {
	d := s.takeClient(c, "client:", clientID)
	if s.setRateHeaders(c, d) {
		return true
	}
	s.failOAuth(c, parley.OAuthError(parley.KindTooManyRequests, parley.OAuthTemporarilyUnavailable,
		"too many requests for this client; retry after "+strconv.Itoa(d.RetryAfterSeconds())+" seconds"))
	return false
}

// takeClient spends one call of the per-client budget named by prefix and
// id (the remote address when id is empty).
func (s *Server) takeClient(c *gin.Context, prefix, id string) parley.RateDecision {
	if id == "" {
		prefix, id = "addr:", c.ClientIP()
	}
	return s.tokenLimiter.Take(prefix+id, s.cfg.TokenRateLimit, 1, s.now())
}

// setRateHeaders writes the rate-limit headers of a decision and reports
// whether the call is allowed.
func (s *Server) setRateHeaders(c *gin.Context, d parley.RateDecision) bool {
	c.Header("X-RateLimit-Limit-Minute", strconv.Itoa(d.Limit))
	c.Header("X-RateLimit-Remaining-Minute", strconv.Itoa(d.Remaining))
	if !d.Allowed {
		c.Header("X-RateLimit-Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
	}
	return d.Allowed
}
