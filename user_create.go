package parley

import (
	"slices"
	"strings"
	"time"
)

// Seats of each plan: how many users (owners, administrators and users)
// and light users a company may have. Every user record holds a seat,
// invited users included; a company's UserSeats/LightUserSeats override
// its plan's.
const (
	StandardUserSeats      = 25
	StandardLightUserSeats = 25
	PlusUserSeats          = 100
	PlusLightUserSeats     = 100
	ProUserSeats           = 500
	ProLightUserSeats      = 500
)

// PlanSeats returns the user and light-user seats of a plan.
func PlanSeats(p Plan) (users, lightUsers int) {
	switch p {
	case PlanPro:
		return ProUserSeats, ProLightUserSeats
	case PlanPlus:
		return PlusUserSeats, PlusLightUserSeats
	default:
		return StandardUserSeats, StandardLightUserSeats
	}
}

// NewUser is a request to create a user (POST /v2/users). Absent fields
// are nil.
type NewUser struct {
	FirstName       *string  `json:"firstName"`
	LastName        *string  `json:"lastName"`
	Email           *string  `json:"email"`
	Role            *string  `json:"role"`
	Timezone        *string  `json:"timezone"`
	JobTitle        *string  `json:"jobTitle"`
	Phone           *string  `json:"phone"`
	AlternateEmails []string `json:"alternateEmails"`
	MailboxIDs      []int64  `json:"mailboxIds"`
}

// userRoles are the roles a user can be created with; a company has one
// owner, created with it.
var userRoles = []string{string(RoleAdmin), string(RoleUser), string(RoleLightUser)}

// CreateUser invites a new user into the caller's company. Only owners and
// administrators may (403 `User may not create users`); the e-mail must be
// unused in Parley (409 `User email not unique`); every mailbox granted
// must be one the caller can access (403 `Caller cannot grant mailbox
// access`); and a seat of the role's kind must be free (403 `Plan user
// limit reached` / `Light user limit reached`). The user starts invited
// (not active) and accepts by signing in for the first time.
func CreateUser(tx Tx, who Caller, req NewUser, now time.Time) (*User, error) {
	if !who.User.IsAdmin() {
		return nil, Forbidden(CodeMayNotCreateUsers, "only administrators and account owners may create users")
	}
	var p Problems
	name := func(path string, v *string, required bool) string {
		switch {
		case v == nil && required:
			p.Add(path, CodeNullValue, "may not be null", nil)
		case v == nil:
		case strings.TrimSpace(*v) == "" && required:
			p.Add(path, CodeEmptyValue, "may not be empty", *v)
		case len([]rune(*v)) > 40:
			p.Add(path, CodeSize, "must be at most 40 characters", *v)
		default:
			return strings.TrimSpace(*v)
		}
		return ""
	}
	u := &User{CompanyID: who.Company.ID, FirstName: name("firstName", req.FirstName, true),
		LastName: name("lastName", req.LastName, true), Role: RoleUser, Timezone: "UTC", CreatedAt: now, UpdatedAt: now}
	switch {
	case req.Email == nil:
		p.Add("email", CodeNullValue, "may not be null", nil)
	case !ValidEmail(strings.TrimSpace(*req.Email)):
		p.Add("email", CodeEmail, EmailRule, *req.Email)
	default:
		u.Email = strings.TrimSpace(*req.Email)
	}
	if req.Role != nil {
		if !slices.Contains(userRoles, *req.Role) {
			p.Add("role", CodeEnumValue, "must be one of: "+strings.Join(userRoles, ", "), *req.Role)
		}
		u.Role = Role(*req.Role)
	}
	for i, e := range req.AlternateEmails {
		if !ValidEmail(e) {
			p.Add("alternateEmails["+itoa(i)+"]", CodeEmail, EmailRule, e)
		}
	}
	if req.Timezone != nil {
		if _, err := time.LoadLocation(*req.Timezone); err != nil || *req.Timezone == "" {
			p.Add("timezone", CodeValueNotSupported, "must be an IANA time zone name", *req.Timezone)
		}
		u.Timezone = *req.Timezone
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	u.JobTitle, u.Phone, u.AlternateEmails = deref(req.JobTitle), deref(req.Phone), req.AlternateEmails
	if _, err := tx.UserByEmail(u.Email); err == nil {
		return nil, &Error{Kind: KindConflict, Message: "User email not unique", Errors: []FieldError{{Path: "email",
			Code: CodeUserEmailNotUnique, Message: "a user with this e-mail already exists", RejectedValue: u.Email, Origin: OriginBody}}}
	} else if !IsNotFound(err) {
		return nil, err
	}
	for _, id := range req.MailboxIDs {
		if _, err := tx.Mailbox(who.Company.ID, id); err != nil || !who.User.CanAccessMailbox(id) {
			if err != nil && !IsNotFound(err) {
				return nil, err
			}
			return nil, Forbidden(CodeCannotGrantMailbox, "the caller cannot grant access to mailbox "+itoa64(id))
		}
		u.MailboxIDs = append(u.MailboxIDs, id)
	}
	if err := checkSeats(tx, who.Company, u.Role); err != nil {
		return nil, err
	}
	return u, tx.PutUser(u)
}

// checkSeats answers 403 when no seat of the role's kind is free.
func checkSeats(tx Tx, c *Company, role Role) error {
	users, err := tx.Users(c.ID)
	if err != nil {
		return err
	}
	full, light := 0, 0
	for _, u := range users {
		if u.Role == RoleLightUser {
			light++
		} else {
			full++
		}
	}
	fullSeats, lightSeats := c.Seats()
	if role == RoleLightUser && light >= lightSeats {
		return Forbidden(CodeLightUserLimit, "no light-user seats remain on the plan")
	}
	if role != RoleLightUser && full >= fullSeats {
		return Forbidden(CodePlanUserLimit, "no user seats remain on the plan")
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
