package parley_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// The user rules: inviting users within the plan's seats, and their
// notification preferences.

var userNow = time.Date(2026, 11, 24, 9, 15, 0, 0, time.UTC)

// storedUser reads a user of the world's company.
func (w *world) storedUser(t *testing.T, id int64) *parley.User {
	t.Helper()
	var u *parley.User
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		u, err = tx.User(w.caller.Company.ID, id)
		return err
	}))
	return u
}

func TestCreateUser(t *testing.T) {
	w := newWorld(t) // the owner and a deactivated user hold two seats
	w.caller.Company.UserSeats, w.caller.Company.LightUserSeats = 3, 1
	foreign := w.otherCompany(t)
	var foreignMailbox int64
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		boxes, err := tx.Mailboxes(foreign.ID)
		foreignMailbox = boxes[0].ID
		return err
	}))
	plain := w.plainUser(t) // a third seat
	w.caller.Company.UserSeats = 4
	user := func(email, role string, mailboxes ...int64) parley.NewUser {
		return parley.NewUser{FirstName: parley.Ptr(" Lee "), LastName: parley.Ptr("Park"), Email: parley.Ptr(email), Role: parley.Ptr(role), MailboxIDs: mailboxes}
	}
	cases := []struct {
		name       string
		caller     parley.Caller
		req        parley.NewUser
		kind       parley.Kind
		path, code string
	}{
		{"a user may not", plain, user("lee@acme.test", "user"), parley.KindForbidden, "", parley.CodeMayNotCreateUsers},
		{"no first name", w.caller, parley.NewUser{LastName: parley.Ptr("Park"), Email: parley.Ptr("lee@acme.test")}, parley.KindInvalid, "firstName", parley.CodeNullValue},
		{"too long a last name", w.caller, parley.NewUser{FirstName: parley.Ptr("Lee"), LastName: parley.Ptr(strings.Repeat("p", 41)), Email: parley.Ptr("lee@acme.test")},
			parley.KindInvalid, "lastName", parley.CodeSize},
		{"a bad address", w.caller, user("lee", "user"), parley.KindInvalid, "email", parley.CodeEmail},
		{"the owner's role", w.caller, user("lee@acme.test", "owner"), parley.KindInvalid, "role", parley.CodeEnumValue},
		{"a bad alternate address", w.caller, parley.NewUser{FirstName: parley.Ptr("Lee"), LastName: parley.Ptr("Park"), Email: parley.Ptr("lee@acme.test"),
			AlternateEmails: []string{"lee@home.test", "nope"}}, parley.KindInvalid, "alternateEmails[1]", parley.CodeEmail},
		{"an address in use", w.caller, user("pat@acme.test", "user"), parley.KindConflict, "email", parley.CodeUserEmailNotUnique},
		{"another company's mailbox", w.caller, user("lee@acme.test", "user", w.mailbox, foreignMailbox), parley.KindForbidden, "", parley.CodeCannotGrantMailbox},
	}
	users := func() int {
		var all []parley.User
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			all, err = tx.Users(w.caller.Company.ID)
			return err
		}))
		return len(all)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.CreateUser(tx, tc.caller, tc.req, userNow)
				return err
			})
			assertRefused(t, err, tc.kind, tc.path, tc.code)
			assert.Equal(t, 3, users(), "a refused user is not stored")
		})
	}

	seats := []struct {
		name, email, role string
		code              string // of the refusal, "" for none
	}{
		{"the last user seat", "lee@acme.test", "admin", ""},
		{"no user seat left", "kim@acme.test", "user", parley.CodePlanUserLimit},
		{"the light-user seat", "lou@acme.test", "light user", ""},
		{"no light-user seat left", "liz@acme.test", "light user", parley.CodeLightUserLimit},
	}
	for _, tc := range seats {
		t.Run(tc.name, func(t *testing.T) {
			var made *parley.User
			err := w.write(func(tx parley.Tx) (err error) {
				made, err = parley.CreateUser(tx, w.caller, user(tc.email, tc.role, w.mailbox), userNow)
				return err
			})
			if tc.code != "" {
				assertRefused(t, err, parley.KindForbidden, "", tc.code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, &parley.User{ID: made.ID, CompanyID: w.caller.Company.ID, FirstName: "Lee", LastName: "Park", Email: tc.email,
				Role: parley.Role(tc.role), Timezone: "UTC", MailboxIDs: []int64{w.mailbox}, CreatedAt: userNow, UpdatedAt: userNow},
				w.storedUser(t, made.ID), "an invited user, not active")
		})
	}
}

func TestSetNotifyPrefs(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t)
	quiet := parley.NotifyPrefs{Mentioned: true}
	cases := []struct {
		name   string
		caller parley.Caller
		user   int64
		code   string // of the refusal
	}{
		{"a user's own", plain, plain.User.ID, ""},
		{"an owner, for a user", w.caller, w.inactive, ""},
		{"a user, for another", plain, w.caller.User.ID, parley.CodeAccessDenied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := w.storedUser(t, tc.user)
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.SetNotifyPrefs(tx, tc.caller, tc.user, quiet, userNow)
				return err
			})
			after := w.storedUser(t, tc.user)
			if tc.code != "" {
				assertRefused(t, err, parley.KindForbidden, "", tc.code)
				assert.Equal(t, before, after)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, &quiet, after.Notify)
			assert.Equal(t, userNow, after.UpdatedAt)
		})
	}
	assert.False(t, w.storedUser(t, plain.User.ID).Wants(parley.NotifyAssigned))
	assert.True(t, w.storedUser(t, plain.User.ID).Wants(parley.NotifyMentioned))
	err := w.write(func(tx parley.Tx) error {
		_, err := parley.SetNotifyPrefs(tx, w.caller, 999, quiet, userNow)
		return err
	})
	assert.True(t, parley.IsNotFound(err), "a user of no company of the caller's")
}
