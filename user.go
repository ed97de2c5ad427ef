package parley

import (
	"slices"
	"strings"
	"time"
)

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

// Role of a user in its company.
type Role string

// Roles.
const (
	RoleOwner     Role = "owner"
	RoleAdmin     Role = "admin"
	RoleUser      Role = "user"
	RoleLightUser Role = "light user"
)

// User is an agent of a company.
type User struct {
	ID              int64     `json:"id"`
	CompanyID       int64     `json:"companyId"`
	FirstName       string    `json:"firstName"`
	LastName        string    `json:"lastName"`
	Email           string    `json:"email"`
	Role            Role      `json:"role"`
	Timezone        string    `json:"timezone"`
	PhotoURL        string    `json:"photoUrl,omitempty"`
	JobTitle        string    `json:"jobTitle,omitempty"`
	Phone           string    `json:"phone,omitempty"`
	AlternateEmails []string  `json:"alternateEmails,omitempty"`
	MailboxIDs      []int64   `json:"mailboxIds,omitempty"`
	Active          bool      `json:"active"`  // an active, invited (accepted) user
	CanChat         bool      `json:"canChat"` // may use live chat
	PasswordHash    string    `json:"passwordHash,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`

	// Deactivated users may not sign in; Active is false for them too. A
	// user neither Active nor Deactivated is invited, not yet accepted.
	Deactivated bool `json:"deactivated,omitempty"`
	// V1KeyHash is the SHA-256 (HashToken) of the user's V1 API key.
	V1KeyHash string `json:"v1KeyHash,omitempty"`
	// Status is the e-mail and chat availability; nil means the defaults
	// (see User.CurrentStatus).
	Status *UserStatus `json:"status,omitempty"`
	// Notify is which events the user is told about by e-mail; nil: all.
	Notify *NotifyPrefs `json:"notify,omitempty"`
}

// Name is the user's full name.
func (u *User) Name() string { return strings.TrimSpace(u.FirstName + " " + u.LastName) }

// Initials are the first letters of the first and last names.
func (u *User) Initials() string {
	var b strings.Builder
	for _, s := range []string{u.FirstName, u.LastName} {
		if r := []rune(s); len(r) > 0 {
			b.WriteString(strings.ToUpper(string(r[0])))
		}
	}
	return b.String()
}

// Mention is the handle used for @mentions: the lowercased first name.
func (u *User) Mention() string { return strings.ToLower(strings.ReplaceAll(u.FirstName, " ", "")) }

// CanAccessMailbox reports whether the user may see the mailbox.
func (u *User) CanAccessMailbox(id int64) bool {
	ids, all := u.VisibleMailboxes()
	return all || slices.Contains(ids, id)
}

// VisibleMailboxes are the mailboxes the user may see: all of its
// company's for owners and administrators, else those it was given.
func (u *User) VisibleMailboxes() (ids []int64, all bool) {
	if u.IsAdmin() {
		return nil, true
	}
	return u.MailboxIDs, false
}

// Team is a named group of users; it can be a conversation's assignee.
type Team struct {
	ID        int64     `json:"id"`
	CompanyID int64     `json:"companyId"`
	Name      string    `json:"name"`
	MemberIDs []int64   `json:"memberIds"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// App is an OAuth 2.0 application. It acts as the user who created it.
type App struct {
	ClientID    string    `json:"clientId"`
	CompanyID   int64     `json:"companyId"`
	UserID      int64     `json:"userId"`
	Name        string    `json:"name"`
	SecretHash  string    `json:"secretHash"` // bcrypt
	RedirectURI string    `json:"redirectUri,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	// RevokedAt is set by `parley app revoke`: the app's tokens stop working.
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// AccessTokenLifetime is how long an access token lives (SPEC: 172800 s).
const AccessTokenLifetime = 172800 * time.Second

// Token is an issued access token, stored under the SHA-256 of its value.
type Token struct {
	Hash      string    `json:"hash"`
	ClientID  string    `json:"clientId"`
	CompanyID int64     `json:"companyId"`
	UserID    int64     `json:"userId"`
	ExpiresAt time.Time `json:"expiresAt"`
	// GrantID names the refresh chain the token belongs to (authorization
	// code and V1 exchange); revoking the grant revokes the token.
	GrantID string `json:"grantId,omitempty"`
}

// Expired reports whether the token can no longer be used at now.
func (t *Token) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// Caller is who a request acts as: the user behind the token and its company.
type Caller struct {
	Company *Company
	User    *User
}
