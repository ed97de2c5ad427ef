package parley_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

func TestConversationFilterVisibleTo(t *testing.T) {
	ids := func(v ...int64) *[]int64 { return &v }
	cases := []struct {
		name string
		user parley.User
		want *[]int64
	}{
		{"owner sees every mailbox", parley.User{Role: parley.RoleOwner, MailboxIDs: []int64{1}}, nil},
		{"administrator sees every mailbox", parley.User{Role: parley.RoleAdmin}, nil},
		{"user sees its mailboxes", parley.User{Role: parley.RoleUser, MailboxIDs: []int64{2, 5}}, ids(2, 5)},
		{"light user sees its mailboxes", parley.User{Role: parley.RoleLightUser, MailboxIDs: []int64{7}}, ids(7)},
		{"user given no mailbox sees none", parley.User{Role: parley.RoleUser}, ids()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := parley.ConversationFilter{MailboxIDs: []int64{9}}
			got := in.VisibleTo(parley.Caller{User: &tc.user})
			if tc.want == nil {
				assert.Nil(t, got.Visible)
			} else if assert.NotNil(t, got.Visible) {
				assert.ElementsMatch(t, *tc.want, *got.Visible)
			}
			assert.Equal(t, []int64{9}, got.MailboxIDs, "the filter's own criteria stay")
			assert.Nil(t, in.Visible, "the filter narrowed is a copy")
		})
	}
}

func TestCustomerFilterVisibleTo(t *testing.T) {
	cases := []struct {
		name         string
		user         parley.User
		shows, hides []int64
	}{
		{"owner sees every mailbox's customers", parley.User{Role: parley.RoleOwner, MailboxIDs: []int64{1}}, []int64{1, 2, 9}, nil},
		{"administrator sees every mailbox's customers", parley.User{Role: parley.RoleAdmin}, []int64{1, 2, 9}, nil},
		{"user sees its mailboxes' customers", parley.User{Role: parley.RoleUser, MailboxIDs: []int64{2, 5}}, []int64{2, 5}, []int64{1, 9}},
		{"light user sees its mailboxes' customers", parley.User{Role: parley.RoleLightUser, MailboxIDs: []int64{7}}, []int64{7}, []int64{1}},
		{"user given no mailbox sees none by mailbox", parley.User{Role: parley.RoleUser}, nil, []int64{1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mailbox := int64(9)
			in := parley.CustomerFilter{MailboxID: &mailbox}
			got := in.VisibleTo(parley.Caller{User: &tc.user})
			for _, id := range tc.shows {
				assert.True(t, got.ShowsMailbox(id), "mailbox %d", id)
			}
			for _, id := range tc.hides {
				assert.False(t, got.ShowsMailbox(id), "mailbox %d", id)
			}
			assert.Equal(t, &mailbox, got.MailboxID, "the filter's own criteria stay")
			assert.Nil(t, in.Visible, "the filter narrowed is a copy")
		})
	}
	assert.True(t, parley.CustomerFilter{}.ShowsMailbox(3), "a filter not narrowed shows every mailbox")
}
