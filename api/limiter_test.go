package api

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLimiterWindows(t *testing.T) {
	l := &limiter{counter: NewMemoryCounter(), log: slog.Default()}
	at := time.Date(2026, 11, 21, 12, 0, 45, 0, time.UTC)
	assert.Equal(t, decision{Allowed: true, Limit: 3, Remaining: 1}, l.take("a", 3, requestCost("POST"), at))
	d := l.take("a", 3, 2, at)
	assert.Equal(t, decision{Limit: 3, Remaining: 1, RetryAfter: 15 * time.Second}, d)
	assert.Equal(t, 15, d.retryAfterSeconds())
	assert.True(t, l.take("b", 3, 1, at).Allowed, "keys are separate")
	l.refund("a", 2, at)
	assert.Equal(t, 2, l.take("a", 3, 1, at).Remaining, "a refund gives the cost back")
	l.refund("a", 5, at.Add(time.Minute))
	assert.Equal(t, 2, l.take("a", 3, requestCost("GET"), at.Add(15*time.Second)).Remaining, "a new minute, a new budget; a refund of another window is ignored")
}
