package parley

import "time"

// Plan is a company's subscription level. Reports need one of the two
// highest plans.
type Plan string

// Plans from lowest to highest.
const (
	PlanStandard Plan = "standard"
	PlanPlus     Plan = "plus"
	PlanPro      Plan = "pro"
)

// HasReports reports whether the plan is one of the two highest.
func (p Plan) HasReports() bool { return p == PlanPlus || p == PlanPro }

// Company is a customer account of Parley; every other record belongs to one.
type Company struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	Plan       Plan      `json:"plan"`
	APIEnabled bool      `json:"apiEnabled"`
	PaymentOK  bool      `json:"paymentOk"`
	CreatedAt  time.Time `json:"createdAt"`
	// LockAfterDays forbids adding threads to conversations older than this
	// many days; 0 disables the policy.
	LockAfterDays int `json:"lockAfterDays,omitempty"`
	// LaterLimit caps snoozed conversations plus scheduled threads; 0 means
	// DefaultLaterLimit.
	LaterLimit int `json:"laterLimit,omitempty"`
	// OfficeHours is the weekly schedule reports may count time in.
	OfficeHours OfficeHours `json:"officeHours"`
	// PaidUntil is when the payment on file expires; nil never expires
	// (PaymentOK alone decides).
	PaidUntil *time.Time `json:"paidUntil,omitempty"`
	// UserSeats and LightUserSeats override the plan's seat counts (see
	// PlanSeats); 0 uses the plan's.
	UserSeats      int `json:"userSeats,omitempty"`
	LightUserSeats int `json:"lightUserSeats,omitempty"`
}

// CheckAPIAccess applies the company switches that govern every API call:
// API use must be enabled (403 `API not enabled`) and payment information
// present and not expired at now (403 `Payment missing`).
func (c *Company) CheckAPIAccess(now time.Time) error {
	if !c.APIEnabled {
		return Forbidden(CodeAPINotEnabled, "API access is not enabled for this account")
	}
	if !c.PaymentOK || (c.PaidUntil != nil && !now.Before(*c.PaidUntil)) {
		return Forbidden(CodePaymentMissing, "payment information is missing or expired")
	}
	return nil
}

// CountsOfficeHours reports whether a report asked for office hours counts
// them: asking while the company has none enabled behaves as not asking
// (Help Scout's docs).
func (c *Company) CountsOfficeHours(asked bool) bool { return asked && c.OfficeHours.Enabled }

// CanUseReports answers 403 `Access denied` unless the company's plan is
// one of the two highest (Help Scout's docs: reports need them).
func (c *Company) CanUseReports() error {
	if !c.Plan.HasReports() {
		return Forbidden(CodeAccessDenied, "reports are available on the two highest plans only")
	}
	return nil
}

// Seats returns the company's user and light-user seats.
func (c *Company) Seats() (users, lightUsers int) {
	users, lightUsers = PlanSeats(c.Plan)
	if c.UserSeats > 0 {
		users = c.UserSeats
	}
	if c.LightUserSeats > 0 {
		lightUsers = c.LightUserSeats
	}
	return users, lightUsers
}
