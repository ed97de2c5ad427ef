package parley_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// The company rules: creating a company with its owner, first mailbox and
// application, and finding who acts for it.

var companyNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// marked stands for bcrypt: the stored form shows which secret it keeps.
func marked(secret string) (string, error) { return "hashed:" + secret, nil }

func TestCreateCompany(t *testing.T) {
	w := newWorld(t) // Acme, owned by ann@acme.test, receiving at support@acme.test
	w.otherCompany(t)
	owner := func(email string) parley.NewOwner { return parley.NewOwner{Email: parley.Ptr(email)} }
	cases := []struct {
		name       string
		req        parley.NewCompany
		kind       parley.Kind
		path, code string
	}{
		{"no name", parley.NewCompany{Owner: owner("bo@bolt.test")}, parley.KindInvalid, "name", parley.CodeNullValue},
		{"an unknown plan", parley.NewCompany{Name: parley.Ptr("Bolt"), Plan: parley.Ptr("gold"), Owner: owner("bo@bolt.test")},
			parley.KindInvalid, "plan", parley.CodeEnumValue},
		{"no owner address", parley.NewCompany{Name: parley.Ptr("Bolt")}, parley.KindInvalid, "owner.email", parley.CodeNullValue},
		{"a short password", parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: parley.NewOwner{Email: parley.Ptr("bo@bolt.test"), Password: parley.Ptr("short")}},
			parley.KindInvalid, "owner.password", parley.CodeSize},
		{"an unknown time zone", parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: parley.NewOwner{Email: parley.Ptr("bo@bolt.test"), Timezone: parley.Ptr("Mars/Olympus")}},
			parley.KindInvalid, "owner.timezone", parley.CodeValueNotSupported},
		{"a bad mailbox address", parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: owner("bo@bolt.test"), Mailbox: parley.NewMailbox{Email: parley.Ptr("bolt")}},
			parley.KindInvalid, "mailbox.email", parley.CodeEmail},
		{"an owner address in use", parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: owner("ann@acme.test")},
			parley.KindConflict, "owner.email", parley.CodeUserEmailNotUnique},
		{"a company name taken", parley.NewCompany{Name: parley.Ptr("ACME"), Owner: owner("bo@bolt.test")},
			parley.KindConflict, "name", parley.CodeConflict},
		{"a mailbox address another company receives at", parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: owner("help@other.test")},
			parley.KindConflict, "mailbox.email", parley.CodeConflict},
	}
	companies := func() []parley.Company {
		var all []parley.Company
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			all, err = tx.Companies()
			return err
		}))
		return all
	}
	before := companies()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.CreateCompany(tx, tc.req, marked, companyNow)
				return err
			})
			assertRefused(t, err, tc.kind, tc.path, tc.code)
			assert.Equal(t, before, companies(), "a refused company stores nothing")
		})
	}
	t.Run("a failing hash stores nothing", func(t *testing.T) {
		broken := func(string) (string, error) { return "", errors.New("no hash") }
		err := w.write(func(tx parley.Tx) error {
			_, err := parley.CreateCompany(tx, parley.NewCompany{Name: parley.Ptr("Bolt"), Owner: owner("bo@bolt.test")}, broken, companyNow)
			return err
		})
		require.Error(t, err)
		assert.Equal(t, before, companies())
	})

	var account *parley.NewAccount
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		account, err = parley.CreateCompany(tx, parley.NewCompany{Name: parley.Ptr(" Bolt "), Owner: owner(" bo@bolt.test ")}, marked, companyNow)
		return err
	}))
	assert.Len(t, account.OwnerPassword, 20, "a password is drawn when none is given")
	assert.Len(t, account.ClientSecret, 48)
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		co, err := tx.Company(account.Company.ID)
		require.NoError(t, err)
		assert.Equal(t, &parley.Company{ID: co.ID, Name: "Bolt", Plan: parley.PlanStandard, APIEnabled: true, PaymentOK: true, CreatedAt: companyNow}, co)
		u, err := tx.UserByEmail("bo@bolt.test")
		require.NoError(t, err)
		assert.Equal(t, &parley.User{ID: u.ID, CompanyID: co.ID, FirstName: "bo", Email: "bo@bolt.test", Role: parley.RoleOwner,
			Timezone: "UTC", Active: true, CanChat: true, PasswordHash: "hashed:" + account.OwnerPassword,
			CreatedAt: companyNow, UpdatedAt: companyNow}, u)
		boxes, err := tx.Mailboxes(co.ID)
		require.NoError(t, err)
		require.Len(t, boxes, 1)
		assert.Equal(t, "Support", boxes[0].Name, "the first mailbox's default name")
		assert.Equal(t, "bo@bolt.test", boxes[0].Email, "the first mailbox takes the owner's address")
		app, err := tx.App(account.App.ClientID)
		require.NoError(t, err)
		assert.Equal(t, &parley.App{ClientID: app.ClientID, CompanyID: co.ID, UserID: u.ID, Name: "API application",
			SecretHash: "hashed:" + account.ClientSecret, CreatedAt: companyNow}, app)
		return nil
	}))

	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		account, err = parley.CreateCompany(tx, parley.NewCompany{Name: parley.Ptr("Cove"), Plan: parley.Ptr("plus"),
			Owner:   parley.NewOwner{Email: parley.Ptr("cy@cove.test"), FirstName: parley.Ptr("Cy"), Password: parley.Ptr(strings.Repeat("p", 10))},
			Mailbox: parley.NewMailbox{Name: parley.Ptr("Help"), Email: parley.Ptr("help@cove.test")}, AppName: parley.Ptr("Sync")}, marked, companyNow)
		return err
	}))
	assert.Empty(t, account.OwnerPassword, "a given password is not shown back")
	assert.Equal(t, parley.PlanPlus, account.Company.Plan)
	assert.Equal(t, "Cy", account.Owner.FirstName)
	assert.Equal(t, "hashed:pppppppppp", account.Owner.PasswordHash)
	assert.Equal(t, "help@cove.test", account.Mailbox.Email)
	assert.Equal(t, "Sync", account.App.Name)
}

func TestAccountOwner(t *testing.T) {
	w := newWorld(t)
	other := w.otherCompany(t)
	admin := &parley.User{CompanyID: other.ID, FirstName: "Al", Email: "al@other.test", Role: parley.RoleAdmin, Active: true}
	owner := &parley.User{CompanyID: other.ID, FirstName: "Ola", Email: "ola@other.test", Role: parley.RoleOwner, Active: true}
	ownerless := &parley.Company{Name: "Ownerless"}
	require.NoError(t, w.write(func(tx parley.Tx) error {
		for _, u := range []*parley.User{admin, owner} { // the owner is not the first user
			if err := tx.PutUser(u); err != nil {
				return err
			}
		}
		if err := tx.PutCompany(ownerless); err != nil {
			return err
		}
		return tx.PutUser(&parley.User{CompanyID: ownerless.ID, FirstName: "Ada", Email: "ada@ownerless.test", Role: parley.RoleAdmin, Active: true})
	}))
	cases := []struct {
		name    string
		company int64
		want    int64 // the owner's id, 0 for none
	}{
		{"the world's owner", w.caller.Company.ID, w.caller.User.ID},
		{"the owner after an administrator", other.ID, owner.ID},
		{"a company without an owner", ownerless.ID, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got parley.Caller
			require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				got, err = parley.AccountOwner(tx, tc.company)
				return err
			}))
			require.NotNil(t, got.Company)
			assert.Equal(t, tc.company, got.Company.ID)
			if tc.want == 0 {
				assert.Nil(t, got.User)
				return
			}
			require.NotNil(t, got.User)
			assert.Equal(t, tc.want, got.User.ID)
		})
	}
	err := w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := parley.AccountOwner(tx, 999)
		return err
	})
	assert.True(t, parley.IsNotFound(err), "an unknown company")
}
