package parley

import "time"

// Rate limits: calls a company may make per minute, by plan (as Help Scout's clients expect:
// a per-account budget per minute; Help Scout's docs do not give the numbers).
const (
	StandardRateLimit = 200
	PlusRateLimit     = 400
	ProRateLimit      = 800
	// WriteCost is what a write (POST, PUT, PATCH or DELETE) counts
	// against the budget; a read counts 1.
	WriteCost = 2
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

// RateCounter counts what rate-limited callers spend, in fixed windows:
// in memory for one process (the embedded default), in the database for
// nodes that share one (pgstore), so that every node spends from one
// budget. A budget is a company's (company 0 for budgets of no company:
// per client address, per client id, per chat) and named by key.
type RateCounter interface {
	// Take adds cost to what the budget used in the window starting at
	// window, unless that would pass limit: a refused call spends nothing.
	// It returns whether it added, and what is used after.
	Take(company int64, key string, window time.Time, limit, cost int) (taken bool, used int, err error)
	// Refund gives back cost taken in the window (never below nothing);
	// spending of a past window is not refunded.
	Refund(company int64, key string, window time.Time, cost int) error
}
