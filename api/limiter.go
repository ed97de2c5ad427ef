package api

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	parley "github.com/parley/parley"
)

// rateWindow is the length of a rate-limit window; windows start on the
// minute of the injected clock.
const rateWindow = time.Minute

// limiter is the one fixed-window limiter of the API: it serves the
// company budget, the token endpoint and the public widget. It decides
// over a parley.RateCounter (in memory by default; shared by the nodes of
// one database on PostgreSQL). How much each budget holds is decided
// elsewhere (plan limits in the domain, endpoint limits in Config).
type limiter struct {
	counter parley.RateCounter
	log     *slog.Logger
}

// decision is the outcome of taking from a budget.
type decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // until the window resets; set when refused
}

// take spends cost from key's budget (of no company) of limit in now's
// window, unless that would exceed it: a refused call spends nothing.
func (l *limiter) take(key string, limit, cost int, now time.Time) decision {
	return l.takeOf(0, key, limit, cost, now)
}

// takeOf spends cost from a company's budget named key. A counter that
// fails (the database) lets the call through: the limit protects the
// service, and refusing every call would not.
func (l *limiter) takeOf(company int64, key string, limit, cost int, now time.Time) decision {
	start := now.Truncate(rateWindow)
	taken, used, err := l.counter.Take(company, key, start, limit, cost)
	if err != nil {
		l.log.Error("rate limit not counted; the call goes through", "budget", key, "err", err)
		return decision{Allowed: true, Limit: limit, Remaining: limit}
	}
	if !taken {
		return decision{Limit: limit, Remaining: max(limit-used, 0), RetryAfter: start.Add(rateWindow).Sub(now)}
	}
	return decision{Allowed: true, Limit: limit, Remaining: limit - used}
}

// refund gives back cost taken from key in now's window (a call that
// turned out not to count, such as a successful sign-in on a failures
// budget). Spending of a past window is not refunded.
func (l *limiter) refund(key string, cost int, now time.Time) {
	if err := l.counter.Refund(0, key, now.Truncate(rateWindow), cost); err != nil {
		l.log.Error("rate limit not refunded", "budget", key, "err", err)
	}
}

// memoryCounter is the in-memory parley.RateCounter of one process: one
// counter per budget, stale ones dropped as windows pass.
type memoryCounter struct {
	mu      sync.Mutex
	windows map[memoryBudget]*rateCount
}

type memoryBudget struct {
	company int64
	key     string
}

type rateCount struct {
	start time.Time
	used  int
}

// NewMemoryCounter returns the rate counter of a single process.
func NewMemoryCounter() parley.RateCounter {
	return &memoryCounter{windows: map[memoryBudget]*rateCount{}}
}

// Take spends cost unless the window's budget would pass limit.
func (m *memoryCounter) Take(company int64, key string, start time.Time, limit, cost int) (bool, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := memoryBudget{company, key}
	w := m.windows[b]
	if w == nil || !w.start.Equal(start) {
		m.prune(start)
		w = &rateCount{start: start}
		m.windows[b] = w
	}
	if w.used+cost > limit {
		return false, w.used, nil
	}
	w.used += cost
	return true, w.used, nil
}

// Refund gives back cost taken in the current window.
func (m *memoryCounter) Refund(company int64, key string, start time.Time, cost int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.windows[memoryBudget{company, key}]; w != nil && w.start.Equal(start) {
		w.used = max(w.used-cost, 0)
	}
	return nil
}

// prune drops counters of past windows once the map grows.
func (m *memoryCounter) prune(current time.Time) {
	if len(m.windows) < 1024 {
		return
	}
	for k, w := range m.windows {
		if w.start.Before(current) {
			delete(m.windows, k)
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
