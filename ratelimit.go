package parley

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Rate limits: calls a company may make per minute, by plan (COMPAT.md:
// a per-account budget per minute; SPEC does not give the numbers).
const (
	StandardRateLimit = 200
	PlusRateLimit     = 400
	ProRateLimit      = 800
	// WriteCost is what a POST, PUT, PATCH or DELETE counts; a read counts 1.
	WriteCost = 2
	// RateWindow is the length of a rate-limit window; windows start on
	// the minute.
	RateWindow = time.Minute
)

// DefaultRateLimit is the plan's calls per minute.
func DefaultRateLimit(p Plan) int {
	switch p {
	case PlanPro:
		return ProRateLimit
	case PlanPlus:
		return PlusRateLimit
	default:
		return StandardRateLimit
	}
}

// RequestCost is what a request with this HTTP method counts.
func RequestCost(method string) int {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return WriteCost
	}
	return 1
}

// RateDecision is the outcome of taking from a budget.
type RateDecision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // until the window resets; set when refused
}

// RateLimiter counts calls per key in fixed windows of RateWindow that
// start on the minute of the injected time. It is safe for concurrent use
// and keeps one counter per key (stale ones are dropped as windows pass).
type RateLimiter struct {
	mu      sync.Mutex
	windows map[string]*rateCount
}

type rateCount struct {
	start time.Time
	used  int
}

// NewRateLimiter returns an empty limiter.
func NewRateLimiter() *RateLimiter { return &RateLimiter{windows: map[string]*rateCount{}} }

// Take spends cost from key's budget of limit in now's window, unless that
// would exceed it: a refused call spends nothing.
func (l *RateLimiter) Take(key string, limit, cost int, now time.Time) RateDecision {
	start := now.Truncate(RateWindow)
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || !w.start.Equal(start) {
		l.prune(start)
		w = &rateCount{start: start}
		l.windows[key] = w
	}
	if w.used+cost > limit {
		return RateDecision{Limit: limit, Remaining: limit - w.used, RetryAfter: start.Add(RateWindow).Sub(now)}
	}
	w.used += cost
	return RateDecision{Allowed: true, Limit: limit, Remaining: limit - w.used}
}

// prune drops counters of past windows once the map grows.
func (l *RateLimiter) prune(current time.Time) {
	if len(l.windows) < 1024 {
		return
	}
	for k, w := range l.windows {
		if w.start.Before(current) {
			delete(l.windows, k)
		}
	}
}

// RetryAfterSeconds is the wait a refused call is told, in whole seconds
// rounded up (at least 1).
func (d RateDecision) RetryAfterSeconds() int {
	s := int((d.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// RateLimited builds the 429 of a refused call.
func RateLimited(d RateDecision) *Error {
	msg := "rate limit of " + strconv.Itoa(d.Limit) + " calls a minute exceeded; retry after " +
		strconv.Itoa(d.RetryAfterSeconds()) + " seconds"
	return &Error{Kind: KindTooManyRequests, Message: "Too many requests", Errors: []FieldError{{
		Code: CodeRateLimited, Message: msg, Source: "header"}}}
}
