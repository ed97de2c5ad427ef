package api

import (
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// DefaultTokenRateLimit is the size of the per-minute budgets of the
// credential-checking endpoints: failed client authentications per client
// address and tokens issued per client id at the token endpoint, failed
// exchanges per address and exchanges per client id at the V1 exchange,
// and sign-in attempts per e-mail address. Enough for any integration, too few for guessing secrets.
const DefaultTokenRateLimit = 60

// Budget keys of the one limiter; each prefix names a budget.
const (
	budgetCompany        = "company"           // API calls per company (the company's own budget)
	budgetTokenFail      = "token-fail:"       // failed client authentications per address
	budgetClient         = "client:"           // tokens issued per client id
	budgetV1Fail         = "v1-fail:"          // failed V1 exchanges per address
	budgetV1Client       = "v1:"               // V1 exchanges per client id
	budgetChatStart      = "chat-start:"       // chats started per address
	budgetChatMessage    = "chat-message:"     // visitor messages per chat
	budgetChatPageView   = "chat-page-view:"   // timeline entries per chat
	budgetWidgetPageView = "widget-page-view:" // timeline entries per widget, all its chats together
)

// companyLimit is the company's calls per minute.
func (s *Server) companyLimit(c *parley.Company) int {
	if n := s.cfg.RateLimits[c.Plan]; n > 0 {
		return n
	}
	return parley.DefaultRateLimit(c.Plan)
}

// allowCompany spends the request's cost (writes 2, reads 1) from the
// company's budget of the current minute, sets the rate-limit headers, and
// refuses (429) when the budget is spent.
func (s *Server) allowCompany(c *gin.Context, company *parley.Company) error {
	d := s.limits.takeOf(company.ID, budgetCompany, s.companyLimit(company), requestCost(c.Request.Method), s.now())
	if s.setRateHeaders(c, d) {
		return nil
	}
	return rateLimited(d)
}

// takeClient spends one call of the per-client budget named by prefix and
// id (the client address when id is empty).
func (s *Server) takeClient(c *gin.Context, prefix, id string) decision {
	if id == "" {
		prefix, id = "addr:", c.ClientIP()
	}
	return s.limits.take(prefix+id, s.cfg.TokenRateLimit, 1, s.now())
}

// setRateHeaders writes the rate-limit headers of a decision and reports
// whether the call is allowed.
func (s *Server) setRateHeaders(c *gin.Context, d decision) bool {
	c.Header("X-RateLimit-Limit-Minute", strconv.Itoa(d.Limit))
	c.Header("X-RateLimit-Remaining-Minute", strconv.Itoa(d.Remaining))
	if !d.Allowed {
		c.Header("X-RateLimit-Retry-After", strconv.Itoa(d.retryAfterSeconds()))
	}
	return d.Allowed
}

// limited spends one event of a public-widget budget and, when it is
// spent, sets Retry-After and returns the refusal (429).
func (s *Server) limited(c *gin.Context, key string, limit int) error {
	d := s.limits.take(key, limit, 1, s.now())
	if d.Allowed {
		return nil
	}
	retry := strconv.Itoa(d.retryAfterSeconds())
	c.Header("Retry-After", retry)
	return &parley.Error{Kind: parley.KindTooManyRequests, Message: "Too many requests", Errors: []parley.FieldError{{
		Code: parley.CodeRateLimited, Message: "too many chat requests; retry in " + retry + " seconds"}}}
}
