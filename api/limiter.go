package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	parley "github.com/parley/parley"
)

// rateWindow is the length of a rate-limit window; windows start on the
// minute of the injected clock.
const rateWindow = time.Minute

// limiter is the one fixed-window counter of the API: it serves the
// company budget, the token endpoint and the public widget. It counts
// spending per key in windows of rateWindow, is safe for concurrent use,
// and keeps one counter per key (stale ones are dropped as windows pass).
// How much each budget holds is decided elsewhere (plan limits in the
// domain, endpoint limits in Config).
type limiter struct {
	mu      sync.Mutex
	windows map[string]*rateCount
}

type rateCount struct {
	start time.Time
	used  int
}

// decision is the outcome of taking from a budget.
type decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // until the window resets; set when refused
}

func newLimiter() *limiter { return &limiter{windows: map[string]*rateCount{}} }

// take spends cost from key's budget of limit in now's window, unless that
// would exceed it: a refused call spends nothing.
func (l *limiter) take(key string, limit, cost int, now time.Time) decision {
	start := now.Truncate(rateWindow)
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || !w.start.Equal(start) {
		l.prune(start)
		w = &rateCount{start: start}
		l.windows[key] = w
	}
	if w.used+cost > limit {
		return decision{Limit: limit, Remaining: limit - w.used, RetryAfter: start.Add(rateWindow).Sub(now)}
	}
	w.used += cost
	return decision{Allowed: true, Limit: limit, Remaining: limit - w.used}
}

// refund gives back cost taken from key in now's window (a call that
// turned out not to count, such as a successful sign-in on a failures
// budget). Spending of a past window is not refunded.
func (l *limiter) refund(key string, cost int, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w := l.windows[key]; w != nil && w.start.Equal(now.Truncate(rateWindow)) {
		w.used = max(w.used-cost, 0)
	}
}

// prune drops counters of past windows once the map grows.
func (l *limiter) prune(current time.Time) {
	if len(l.windows) < 1024 {
		return
	}
	for k, w := range l.windows {
		if w.start.Before(current) {
			delete(l.windows, k)
		}
	}
}

// retryAfterSeconds is the wait a refused call is told, in whole seconds
// rounded up (at least 1).
func (d decision) retryAfterSeconds() int {
	s := int((d.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

// requestCost is what a request with this HTTP method counts against its
// company's budget: a write costs parley.WriteCost, a read 1.
func requestCost(method string) int {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return parley.WriteCost
	}
	return 1
}

// rateLimited builds the 429 of a refused call.
func rateLimited(d decision) *parley.Error {
	msg := "rate limit of " + strconv.Itoa(d.Limit) + " calls a minute exceeded; retry after " +
		strconv.Itoa(d.retryAfterSeconds()) + " seconds"
	return &parley.Error{Kind: parley.KindTooManyRequests, Message: "Too many requests", Errors: []parley.FieldError{{
		Code: parley.CodeRateLimited, Message: msg, Source: "header"}}}
}
