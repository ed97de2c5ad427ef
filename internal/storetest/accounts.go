package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func testCompanies(t *testing.T, b Backend) {
	acme := &parley.Company{Name: "Acme", Plan: parley.PlanPlus, APIEnabled: true, PaymentOK: true, CreatedAt: clock,
		LockAfterDays: 30, LaterLimit: 5, PaidUntil: ptr(at(60)), UserSeats: 3, LightUserSeats: 2,
		OfficeHours: parley.OfficeHours{Enabled: true, TimeZone: "Europe/Paris"}}
	globex := &parley.Company{Name: "Globex", CreatedAt: at(1)}
	put(t, b, func(tx parley.Tx) error { return tx.PutCompany(acme) }, func(tx parley.Tx) error { return tx.PutCompany(globex) })
	require.NotZero(t, acme.ID, "Put assigns an id")
	assert.Greater(t, globex.ID, acme.ID, "ids grow")

	assert.Equal(t, acme, get(t, b, func(tx parley.Tx) (*parley.Company, error) { return tx.Company(acme.ID) }))
	assert.Equal(t, []parley.Company{*acme, *globex}, get(t, b, func(tx parley.Tx) ([]parley.Company, error) { return tx.Companies() }),
		"companies in id order")
	notFound(t, b, "a missing company", func(tx parley.Tx) error { _, err := tx.Company(globex.ID + 1); return err })

	acme.Name = "Acme Corp"
	put(t, b, func(tx parley.Tx) error { return tx.PutCompany(acme) })
	assert.Equal(t, "Acme Corp", get(t, b, func(tx parley.Tx) (*parley.Company, error) { return tx.Company(acme.ID) }).Name)
}

func newUser(company int64, first, email string) *parley.User {
	return &parley.User{CompanyID: company, FirstName: first, LastName: "Agent", Email: email, Role: parley.RoleUser,
		Timezone: "UTC", AlternateEmails: []string{"alt-" + email}, MailboxIDs: []int64{1, 2}, Active: true, CanChat: true,
		PasswordHash: "hash", CreatedAt: clock, UpdatedAt: at(1),
		Status: &parley.UserStatus{Email: "active", Chat: "available", UpdatedAt: at(2), PerformedBy: 7, Source: "api"}}
}

// testUsers: users are scoped by company, found by sign-in e-mail across
// companies (unique everywhere, compared normalized) and by V1 key hash;
// both keys follow changes.
func testUsers(t *testing.T, b Backend) {
	ann, bob := newUser(1, "Ann", "ann@example.com"), newUser(1, "Bob", "bob@example.com")
	cy := newUser(2, "Cy", "cy@example.com")
	ann.V1KeyHash = "v1-ann"
	put(t, b, func(tx parley.Tx) error { return tx.PutUser(ann) }, func(tx parley.Tx) error { return tx.PutUser(bob) },
		func(tx parley.Tx) error { return tx.PutUser(cy) })
	require.NotZero(t, ann.ID)
	assert.Greater(t, bob.ID, ann.ID)

	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.User(1, ann.ID) }))
	notFound(t, b, "another company's user", func(tx parley.Tx) error { _, err := tx.User(2, ann.ID); return err })
	assert.Equal(t, []parley.User{*ann, *bob}, get(t, b, func(tx parley.Tx) ([]parley.User, error) { return tx.Users(1) }))
	assert.Equal(t, cy, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.UserByEmail(" CY@Example.com ") }),
		"found by e-mail in any company, normalized")
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.UserByV1Key("v1-ann") }))
	notFound(t, b, "no V1 key", func(tx parley.Tx) error { _, err := tx.UserByV1Key(""); return err })
	notFound(t, b, "an unknown e-mail", func(tx parley.Tx) error { _, err := tx.UserByEmail("nobody@example.com"); return err })

	err := failure(t, b, func(tx parley.Tx) error { return tx.PutUser(newUser(2, "Dup", "Ann@example.com")) })
	assert.Equal(t, parley.UserEmailTaken(), err, "an e-mail another user holds, of any company")

	ann.Email, ann.V1KeyHash = "ann@new.example.com", "v1-ann-2"
	put(t, b, func(tx parley.Tx) error { return tx.PutUser(ann) })
	notFound(t, b, "the old e-mail", func(tx parley.Tx) error { _, err := tx.UserByEmail("ann@example.com"); return err })
	notFound(t, b, "the old V1 key", func(tx parley.Tx) error { _, err := tx.UserByV1Key("v1-ann"); return err })
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.UserByEmail("ann@new.example.com") }))
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.UserByV1Key("v1-ann-2") }))
	dan := newUser(2, "Dan", "ann@example.com")
	put(t, b, func(tx parley.Tx) error { return tx.PutUser(dan) })
	assert.Equal(t, dan, get(t, b, func(tx parley.Tx) (*parley.User, error) { return tx.UserByEmail("ann@example.com") }),
		"a freed e-mail can be taken")
}

func testTeams(t *testing.T, b Backend) {
	red := &parley.Team{CompanyID: 1, Name: "Red", MemberIDs: []int64{1, 2}, CreatedAt: clock, UpdatedAt: at(1)}
	blue := &parley.Team{CompanyID: 1, Name: "Blue", MemberIDs: []int64{3}, CreatedAt: clock, UpdatedAt: clock}
	other := &parley.Team{CompanyID: 2, Name: "Other", MemberIDs: []int64{}, CreatedAt: clock, UpdatedAt: clock}
	put(t, b, func(tx parley.Tx) error {
		for _, team := range []*parley.Team{red, blue, other} {
			if err := tx.PutTeam(team); err != nil {
				return err
			}
		}
		return nil
	})
	require.NotZero(t, red.ID)
	assert.Greater(t, blue.ID, red.ID)
	assert.Equal(t, red, get(t, b, func(tx parley.Tx) (*parley.Team, error) { return tx.Team(1, red.ID) }))
	notFound(t, b, "another company's team", func(tx parley.Tx) error { _, err := tx.Team(2, red.ID); return err })
	assert.Equal(t, []parley.Team{*red, *blue}, get(t, b, func(tx parley.Tx) ([]parley.Team, error) { return tx.Teams(1) }))

	// Users and teams share one id space: a new user's id follows the
	// teams', and neither kind can be stored under the other's id.
	eve := newUser(1, "Eve", "eve@example.com")
	put(t, b, func(tx parley.Tx) error { return tx.PutUser(eve) })
	assert.Greater(t, eve.ID, other.ID, "a user's id comes after the teams'")
	green := &parley.Team{CompanyID: 1, Name: "Green", MemberIDs: []int64{}, CreatedAt: clock, UpdatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutTeam(green) })
	assert.Greater(t, green.ID, eve.ID, "and a team's after the users'")
	failure(t, b, func(tx parley.Tx) error {
		clash := newUser(1, "Clash", "clash@example.com")
		clash.ID = red.ID
		return tx.PutUser(clash)
	})
	failure(t, b, func(tx parley.Tx) error {
		return tx.PutTeam(&parley.Team{ID: eve.ID, CompanyID: 1, Name: "Clash", MemberIDs: []int64{}, CreatedAt: clock, UpdatedAt: clock})
	})
	kept := &parley.Team{ID: eve.ID + 100, CompanyID: 1, Name: "Kept", MemberIDs: []int64{}, CreatedAt: clock, UpdatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutTeam(kept) })
	next := newUser(1, "Next", "next@example.com")
	put(t, b, func(tx parley.Tx) error { return tx.PutUser(next) })
	assert.Greater(t, next.ID, kept.ID, "a kept id moves the shared sequence past it")
}

// testCredentials: what authenticates a caller is found by its key alone
// (client id, hash, grant id) and replaced by a write under the same key.
func testCredentials(t *testing.T, b Backend) {
	app := &parley.App{ClientID: "client-1", CompanyID: 1, UserID: 2, Name: "App", SecretHash: "bcrypt", RedirectURI: "https://x.example/cb",
		CreatedAt: clock, RevokedAt: ptr(at(5))}
	tok := &parley.Token{Hash: "tok-hash", ClientID: "client-1", CompanyID: 1, UserID: 2, ExpiresAt: at(60), GrantID: "grant-1"}
	grant := &parley.Grant{ID: "grant-1", ClientID: "client-1", CompanyID: 1, UserID: 2, CreatedAt: clock}
	code := &parley.AuthCode{Hash: "code-hash", ClientID: "client-1", CompanyID: 1, UserID: 2, ExpiresAt: at(1), UsedAt: ptr(at(0)), GrantID: "grant-1"}
	refresh := &parley.RefreshToken{Hash: "refresh-hash", GrantID: "grant-1", ClientID: "client-1", ExpiresAt: at(600), RotatedAt: ptr(at(3))}
	exchange := &parley.V1Exchange{KeyHash: "key-hash", ClientID: "client-1", Salt: "salt", GrantID: "grant-1", ExpiresAt: at(60)}
	session := &parley.Session{Hash: "session-hash", CompanyID: 1, UserID: 2, ExpiresAt: at(30)}
	put(t, b,
		func(tx parley.Tx) error { return tx.PutApp(app) },
		func(tx parley.Tx) error { return tx.PutToken(tok) },
		func(tx parley.Tx) error { return tx.PutGrant(grant) },
		func(tx parley.Tx) error { return tx.PutAuthCode(code) },
		func(tx parley.Tx) error { return tx.PutRefreshToken(refresh) },
		func(tx parley.Tx) error { return tx.PutV1Exchange(exchange) },
		func(tx parley.Tx) error { return tx.PutSession(session) })
	assert.Equal(t, app, get(t, b, func(tx parley.Tx) (*parley.App, error) { return tx.App("client-1") }))
	assert.Equal(t, tok, get(t, b, func(tx parley.Tx) (*parley.Token, error) { return tx.Token("tok-hash") }))
	assert.Equal(t, grant, get(t, b, func(tx parley.Tx) (*parley.Grant, error) { return tx.Grant("grant-1") }))
	assert.Equal(t, code, get(t, b, func(tx parley.Tx) (*parley.AuthCode, error) { return tx.AuthCode("code-hash") }))
	assert.Equal(t, refresh, get(t, b, func(tx parley.Tx) (*parley.RefreshToken, error) { return tx.RefreshToken("refresh-hash") }))
	assert.Equal(t, exchange, get(t, b, func(tx parley.Tx) (*parley.V1Exchange, error) { return tx.V1Exchange("key-hash", "client-1") }))
	assert.Equal(t, session, get(t, b, func(tx parley.Tx) (*parley.Session, error) { return tx.Session("session-hash") }))

	for what, read := range map[string]func(tx parley.Tx) error{
		"app":           func(tx parley.Tx) error { _, err := tx.App("client-2"); return err },
		"token":         func(tx parley.Tx) error { _, err := tx.Token("refresh-hash"); return err },
		"grant":         func(tx parley.Tx) error { _, err := tx.Grant("grant-2"); return err },
		"code":          func(tx parley.Tx) error { _, err := tx.AuthCode("tok-hash"); return err },
		"refresh token": func(tx parley.Tx) error { _, err := tx.RefreshToken("tok-hash"); return err },
		"exchange":      func(tx parley.Tx) error { _, err := tx.V1Exchange("key-hash", "client-2"); return err },
		"session":       func(tx parley.Tx) error { _, err := tx.Session("tok-hash"); return err },
	} {
		notFound(t, b, "a missing "+what, read)
	}

	grant.RevokedAt = ptr(at(9))
	put(t, b, func(tx parley.Tx) error { return tx.PutGrant(grant) })
	assert.Equal(t, grant, get(t, b, func(tx parley.Tx) (*parley.Grant, error) { return tx.Grant("grant-1") }), "replaced")
}

// testCursorKey: none until made; made once, then kept.
func testCursorKey(t *testing.T, b Backend) {
	assert.Nil(t, get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.CursorKey(), nil }))
	var made []byte
	put(t, b, func(tx parley.Tx) error {
		var err error
		made, err = tx.MakeCursorKey()
		return err
	})
	assert.Len(t, made, 32)
	assert.Equal(t, made, get(t, b, func(tx parley.Tx) ([]byte, error) { return tx.CursorKey(), nil }))
	var again []byte
	put(t, b, func(tx parley.Tx) error {
		var err error
		again, err = tx.MakeCursorKey()
		return err
	})
	assert.Equal(t, made, again, "an existing key is kept")
}
