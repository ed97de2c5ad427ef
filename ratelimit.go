package parley

// Rate limits: calls a company may make per minute, by plan (COMPAT.md:
// a per-account budget per minute; SPEC does not give the numbers).
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
