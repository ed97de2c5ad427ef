package parley

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// NewCompany is a request to create a company (`parley init`, POST
// /admin/companies): the company, its owner, a first mailbox and an OAuth
// application acting as the owner. Absent fields are nil.
type NewCompany struct {
	Name    *string    `json:"name"`
	Plan    *string    `json:"plan"`
	Owner   NewOwner   `json:"owner"`
	Mailbox NewMailbox `json:"mailbox"`
	// AppName names the OAuth application; default "API application".
	AppName *string `json:"appName"`
}

// NewOwner is the owner of a new company. Without a password one is
// generated and returned once.
type NewOwner struct {
	Email     *string `json:"email"`
	FirstName *string `json:"firstName"`
	LastName  *string `json:"lastName"`
	Password  *string `json:"password"`
	Timezone  *string `json:"timezone"`
}

// Password rules of an owner created with a company (bcrypt reads at most
// 72 bytes).
const (
	MinPasswordLength = 10
	MaxPasswordLength = 72
)

// Hash turns a password or client secret into its stored form. The caller
// supplies it (bcrypt): the domain uses the standard library only.
type Hash func(secret string) (string, error)

// NewAccount is a created company with its owner, mailbox and application,
// and the secrets shown this once: the owner's password when it was
// generated, and the application's client secret.
type NewAccount struct {
	Company       *Company
	Owner         *User
	Mailbox       *Mailbox
	App           *App
	OwnerPassword string // "" when the request gave it
	ClientSecret  string
}

var plans = []string{string(PlanStandard), string(PlanPlus), string(PlanPro)}

// CreateCompany creates a company on a plan (default standard) with API
// access on, its active owner (e-mail unique in Parley: 409), a first
// mailbox (name default "Support", address default the owner's) with its
// system folders, and an OAuth application acting as the owner with a
// fresh client id and secret.
func CreateCompany(tx Tx, req NewCompany, hash Hash, now time.Time) (*NewAccount, error) {
	var p Problems
	c := &Company{Name: checkName(&p, "name", req.Name), Plan: PlanStandard, APIEnabled: true, PaymentOK: true, CreatedAt: now}
	if req.Plan != nil {
		if !slices.Contains(plans, *req.Plan) {
			p.Add("plan", CodeEnumValue, "must be one of: "+strings.Join(plans, ", "), *req.Plan)
		}
		c.Plan = Plan(*req.Plan)
	}
	o := req.Owner
	owner := &User{Email: checkEmail(&p, "owner.email", o.Email), Role: RoleOwner, Timezone: "UTC", Active: true, CanChat: true,
		CreatedAt: now, UpdatedAt: now}
	owner.FirstName, _, _ = strings.Cut(owner.Email, "@")
	if o.FirstName != nil {
		owner.FirstName = checkName(&p, "owner.firstName", o.FirstName)
	}
	if o.LastName != nil && strings.TrimSpace(*o.LastName) != "" {
		owner.LastName = checkName(&p, "owner.lastName", o.LastName)
	}
	if o.Timezone != nil {
		if _, err := time.LoadLocation(*o.Timezone); err != nil || *o.Timezone == "" {
			p.Add("owner.timezone", CodeValueNotSupported, "must be an IANA time zone name", *o.Timezone)
		}
		owner.Timezone = *o.Timezone
	}
	account := &NewAccount{Company: c, Owner: owner}
	password := ""
	switch {
	case o.Password == nil:
		password = randomPassword()
		account.OwnerPassword = password
	case len([]rune(*o.Password)) < MinPasswordLength || len(*o.Password) > MaxPasswordLength:
		p.Add("owner.password", CodeSize, "must be "+itoa(MinPasswordLength)+" to "+itoa(MaxPasswordLength)+" bytes long", nil)
	default:
		password = *o.Password
	}
	mailbox := req.Mailbox
	if mailbox.Name == nil {
		mailbox.Name = Ptr("Support")
	}
	if mailbox.Email == nil {
		mailbox.Email = o.Email
	}
	appName := "API application"
	if req.AppName != nil {
		appName = checkName(&p, "appName", req.AppName)
	}
	// The mailbox's own checks, reported under "mailbox.".
	var mp Problems
	checkName(&mp, "mailbox.name", mailbox.Name)
	if mailbox.Email != o.Email { // a defaulted address was checked as the owner's
		checkEmail(&mp, "mailbox.email", mailbox.Email)
	}
	p.items = append(p.items, mp.items...)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if _, err := tx.UserByEmail(owner.Email); err == nil {
		return nil, &Error{Kind: KindConflict, Message: "User email not unique", Errors: []FieldError{{Path: "owner.email",
			Code: CodeUserEmailNotUnique, Message: "a user with this e-mail already exists", RejectedValue: owner.Email, Origin: OriginBody}}}
	} else if !IsNotFound(err) {
		return nil, err
	}
	if err := uniqueCompanyName(tx, c.Name); err != nil {
		return nil, err
	}
	note := ""
	if req.Mailbox.Email == nil {
		note = " (the owner's, which the first mailbox takes when it is given none)"
	}
	if err := freeMailboxAddress(tx, 0, "mailbox.email", strings.TrimSpace(*mailbox.Email), note); err != nil {
		return nil, err
	}
	var err error
	if owner.PasswordHash, err = hash(password); err != nil {
		return nil, err
	}
	account.ClientSecret = randomHex(24)
	app := &App{ClientID: randomHex(16), Name: appName, CreatedAt: now}
	if app.SecretHash, err = hash(account.ClientSecret); err != nil {
		return nil, err
	}
	if err := tx.PutCompany(c); err != nil {
		return nil, err
	}
	if account.Mailbox, err = CreateMailbox(tx, c.ID, mailbox, now); err != nil {
		return nil, err
	}
	owner.CompanyID = c.ID
	if err := tx.PutUser(owner); err != nil {
		return nil, err
	}
	app.CompanyID, app.UserID = c.ID, owner.ID
	if err := tx.PutApp(app); err != nil {
		return nil, err
	}
	account.App = app
	return account, nil
}

// uniqueCompanyName answers 409 when a company already has the name
// (compared without case): operators and the dashboard tell companies
// apart by it.
func uniqueCompanyName(tx Tx, name string) error {
	if err := tx.LockRule(0, "company names"); err != nil {
		return err
	}
	all, err := tx.Companies()
	if err != nil {
		return err
	}
	for _, o := range all {
		if strings.EqualFold(o.Name, name) {
			return conflict("name", "a company is already called "+o.Name, name)
		}
	}
	return nil
}

// randomPassword draws a password of 20 lowercase letters and digits
// (about 103 bits), easy to type once.
func randomPassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// randomHex draws n random bytes, hex-encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
