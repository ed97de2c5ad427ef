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

// The mailbox rules: creating and changing mailboxes, their chat widgets
// and their auto reply.

var mailboxNow = time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)

// otherCompany stores a second company whose mailbox receives mail at
// help@other.test; it returns the company.
func (w *world) otherCompany(t *testing.T) *parley.Company {
	t.Helper()
	co := &parley.Company{Name: "Other", Plan: parley.PlanStandard, APIEnabled: true, PaymentOK: true}
	require.NoError(t, w.write(func(tx parley.Tx) error {
		if err := tx.PutCompany(co); err != nil {
			return err
		}
		return tx.PutMailbox(&parley.Mailbox{CompanyID: co.ID, Name: "Help", Email: "help@other.test"})
	}))
	return co
}

// storedMailbox reads a mailbox of the world's company.
func (w *world) storedMailbox(t *testing.T, id int64) *parley.Mailbox {
	t.Helper()
	var m *parley.Mailbox
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		m, err = tx.Mailbox(w.caller.Company.ID, id)
		return err
	}))
	return m
}

// assertRefused checks an error's Kind and its first problem's path and code.
func assertRefused(t *testing.T, err error, kind parley.Kind, path, code string) {
	t.Helper()
	k, p := refusal(t, err)
	assert.Equal(t, kind, k, "kind")
	assert.Equal(t, path, p.Path, "path")
	assert.Equal(t, code, p.Code, "code")
}

func TestCreateMailbox(t *testing.T) {
	w := newWorld(t)
	w.otherCompany(t)
	cases := []struct {
		name, mailbox, email string
		kind                 parley.Kind
		path, code           string
	}{
		{"no name", " ", "billing@acme.test", parley.KindInvalid, "name", parley.CodeEmptyValue},
		{"too long a name", strings.Repeat("n", parley.MaxLabelLength+1), "billing@acme.test", parley.KindInvalid, "name", parley.CodeSize},
		{"a control character", "Bill\x07ing", "billing@acme.test", parley.KindInvalid, "name", parley.CodeValueNotSupported},
		{"a bad address", "Billing", "billing", parley.KindInvalid, "email", parley.CodeEmail},
		{"a name taken, in another case", "SUPPORT", "billing@acme.test", parley.KindConflict, "name", parley.CodeConflict},
		{"another company's address", "Billing", "help@other.test", parley.KindConflict, "email", parley.CodeConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.CreateMailbox(tx, w.caller.Company.ID, parley.NewMailbox{Name: &tc.mailbox, Email: &tc.email}, mailboxNow)
				return err
			})
			assertRefused(t, err, tc.kind, tc.path, tc.code)
		})
	}
	var made *parley.Mailbox
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		made, err = parley.CreateMailbox(tx, w.caller.Company.ID,
			parley.NewMailbox{Name: parley.Ptr(" Billing Team "), Email: parley.Ptr("support@acme.test")}, mailboxNow)
		return err
	}), "an address of the company's own mailbox may be shared")
	stored := w.storedMailbox(t, made.ID)
	folders := parley.SystemFolderSet(mailboxNow)
	require.Len(t, stored.Folders, len(folders))
	for i := range folders {
		assert.NotZero(t, stored.Folders[i].ID, "the store numbers the folders")
		folders[i].ID = stored.Folders[i].ID
	}
	assert.Equal(t, &parley.Mailbox{ID: made.ID, CompanyID: w.caller.Company.ID, Name: "Billing Team", Slug: "billing-team",
		Email: "support@acme.test", Folders: folders, Fields: []parley.FieldDef{},
		DefaultStatus: parley.StatusActive, CreatedAt: mailboxNow, UpdatedAt: mailboxNow}, stored)

	err := w.write(func(tx parley.Tx) error {
		_, err := parley.CreateMailbox(tx, 999, parley.NewMailbox{Name: parley.Ptr("X"), Email: parley.Ptr("x@acme.test")}, mailboxNow)
		return err
	})
	assert.True(t, parley.IsNotFound(err), "an unknown company: %v", err)
}

func TestUpdateMailbox(t *testing.T) {
	w := newWorld(t)
	w.otherCompany(t)
	cases := []struct {
		name        string
		patch       parley.MailboxPatch
		kind        parley.Kind
		path, code  string
		wantName    string
		wantAddress string
	}{
		{"the other mailbox's name", parley.MailboxPatch{Name: parley.Ptr("sales")}, parley.KindConflict, "name", parley.CodeConflict, "", ""},
		{"an empty name", parley.MailboxPatch{Name: parley.Ptr("")}, parley.KindInvalid, "name", parley.CodeEmptyValue, "", ""},
		{"a bad address", parley.MailboxPatch{Email: parley.Ptr("@acme")}, parley.KindInvalid, "email", parley.CodeEmail, "", ""},
		{"another company's address", parley.MailboxPatch{Email: parley.Ptr("help@other.test")}, parley.KindConflict, "email", parley.CodeConflict, "", ""},
		{"its own name in another case", parley.MailboxPatch{Name: parley.Ptr("SUPPORT")}, 0, "", "", "SUPPORT", "support@acme.test"},
		{"a new address, the name kept", parley.MailboxPatch{Email: parley.Ptr(" help@acme.test ")}, 0, "", "", "SUPPORT", "help@acme.test"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := w.storedMailbox(t, w.mailbox)
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.UpdateMailbox(tx, w.caller.Company.ID, w.mailbox, tc.patch, mailboxNow)
				return err
			})
			after := w.storedMailbox(t, w.mailbox)
			if tc.code != "" {
				assertRefused(t, err, tc.kind, tc.path, tc.code)
				assert.Equal(t, before, after)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantName, after.Name)
			assert.Equal(t, tc.wantAddress, after.Email)
			assert.Equal(t, mailboxNow, after.UpdatedAt)
		})
	}
	err := w.write(func(tx parley.Tx) error {
		_, err := parley.UpdateMailbox(tx, w.caller.Company.ID, 999, parley.MailboxPatch{}, mailboxNow)
		return err
	})
	assert.True(t, parley.IsNotFound(err))
}

func TestAddWidget(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name    string
		mailbox int64
		id      *string
		kind    parley.Kind
		path    string
		code    string
		want    []string // the mailbox's widgets after
	}{
		{"an id given", w.mailbox, parley.Ptr("acme_chat-1"), 0, "", "", []string{"acme_chat-1"}},
		{"too short", w.mailbox, parley.Ptr("short"), parley.KindInvalid, "id", parley.CodeValueNotSupported, []string{"acme_chat-1"}},
		{"a character not allowed", w.mailbox, parley.Ptr("acme chat 2"), parley.KindInvalid, "id", parley.CodeValueNotSupported, []string{"acme_chat-1"}},
		{"an id taken by another mailbox", w.other, parley.Ptr("acme_chat-1"), parley.KindConflict, "id", parley.CodeConflict, nil},
		{"a second widget", w.mailbox, parley.Ptr("acme-chat-2"), 0, "", "", []string{"acme_chat-1", "acme-chat-2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, _, err := parley.AddWidget(tx, w.caller.Company.ID, tc.mailbox, parley.NewWidget{ID: tc.id}, mailboxNow)
				return err
			})
			if tc.code != "" {
				assertRefused(t, err, tc.kind, tc.path, tc.code)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, w.storedMailbox(t, tc.mailbox).Widgets)
		})
	}
	var drawn string
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		_, drawn, err = parley.AddWidget(tx, w.caller.Company.ID, w.other, parley.NewWidget{}, mailboxNow)
		return err
	}))
	assert.Regexp(t, `^[a-z0-9-]{22}$`, drawn, "a drawn id")
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		m, err := tx.MailboxByWidget(drawn)
		require.NoError(t, err)
		assert.Equal(t, w.other, m.ID, "the widget's id finds its mailbox")
		return nil
	}))
}

func TestSetAutoReply(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t)
	cases := []struct {
		name    string
		caller  parley.Caller
		mailbox int64
		reply   parley.AutoReply
		kind    parley.Kind
		path    string
		code    string
	}{
		{"a user", plain, w.mailbox, parley.AutoReply{}, parley.KindForbidden, "", parley.CodeAccessDenied},
		{"enabled without a subject", w.caller, w.mailbox, parley.AutoReply{Enabled: true, Text: "Back soon"}, parley.KindInvalid, "subject", parley.CodeSize},
		{"enabled without a text", w.caller, w.mailbox, parley.AutoReply{Enabled: true, Subject: "Thanks"}, parley.KindInvalid, "text", parley.CodeSize},
		{"too long a subject", w.caller, w.mailbox, parley.AutoReply{Subject: strings.Repeat("s", parley.MaxAutoReplySubject+1)}, parley.KindInvalid, "subject", parley.CodeSize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.SetAutoReply(tx, tc.caller, tc.mailbox, tc.reply, mailboxNow)
				return err
			})
			assertRefused(t, err, tc.kind, tc.path, tc.code)
			assert.Nil(t, w.storedMailbox(t, w.mailbox).AutoReply)
		})
	}
	require.NoError(t, w.write(func(tx parley.Tx) error {
		_, err := parley.SetAutoReply(tx, w.caller, w.mailbox, parley.AutoReply{Enabled: true, Subject: " Thanks ", Text: " We got it. "}, mailboxNow)
		return err
	}))
	m := w.storedMailbox(t, w.mailbox)
	assert.Equal(t, &parley.AutoReply{Enabled: true, Subject: "Thanks", Text: "We got it."}, m.AutoReply)
	assert.Equal(t, mailboxNow, m.UpdatedAt)
	assert.Nil(t, w.storedMailbox(t, w.other).AutoReply)
	err := w.write(func(tx parley.Tx) error {
		_, err := parley.SetAutoReply(tx, w.caller, 999, parley.AutoReply{}, mailboxNow)
		return err
	})
	assert.True(t, parley.IsNotFound(err))
}
