package parley

import (
	"slices"
	"strings"
	"time"
)

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
	// LastAssignedID is the member a workflow assigned last, so the
	// team's members take turns (see assignToTeam).
	LastAssignedID int64 `json:"lastAssignedId,omitempty"`
}

// CanSignIn reports whether the user is an active, invited (accepted) user:
// only their credentials and tokens work (Help Scout's docs, Authentication).
func (u *User) CanSignIn() bool { return u.Active && !u.Deactivated }

// Invited reports whether the user was invited and has not accepted yet.
func (u *User) Invited() bool { return !u.Active && !u.Deactivated }

// IsAdmin reports whether the user is an owner or an administrator.
func (u *User) IsAdmin() bool { return u.Role == RoleOwner || u.Role == RoleAdmin }
