package parley_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

// TestConversationRefs: a page of conversations names, once each and in
// id order, its creators, customers, assignees (users or teams), the
// users who closed the closed ones, its tags and its mailboxes.
func TestConversationRefs(t *testing.T) {
	closed := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	user := func(id int64) parley.Party { return parley.Party{Type: parley.PartyUser, ID: id} }
	for _, tc := range []struct {
		name  string
		convs []parley.Conversation
		want  parley.Refs
	}{
		{"no conversation", nil, parley.Refs{CompanyID: 7}},
		{"a page", []parley.Conversation{
			{MailboxID: 3, CustomerID: 40, CreatedBy: parley.Party{Type: parley.PartyCustomer, ID: 40}, Assignee: &parley.Party{Type: parley.PartyTeam, ID: 9},
				TagIDs: []int64{12, 11}},
			{MailboxID: 2, CustomerID: 41, CreatedBy: user(5), Assignee: &parley.Party{Type: parley.PartyUser, ID: 6}, TagIDs: []int64{11},
				ClosedAt: &closed, ClosedBy: 4},
			{MailboxID: 3, CustomerID: 40, CreatedBy: user(6), ClosedBy: 8}, // not closed: ClosedBy is not rendered
		}, parley.Refs{CompanyID: 7, Users: []int64{4, 5, 6}, Teams: []int64{9}, Customers: []int64{40, 41}, Tags: []int64{11, 12},
			Mailboxes: []int64{2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parley.ConversationRefs(7, tc.convs))
		})
	}
}

// TestTokenRefs: a token names its company, its user, and its grant and
// application when it has them.
func TestTokenRefs(t *testing.T) {
	for _, tc := range []struct {
		name string
		tok  parley.Token
		want parley.Refs
	}{
		{"a token", parley.Token{CompanyID: 7, UserID: 5}, parley.Refs{CompanyID: 7, Company: true, Users: []int64{5}}},
		{"a token of a grant and an application", parley.Token{CompanyID: 7, UserID: 5, GrantID: "g1", ClientID: "app1"},
			parley.Refs{CompanyID: 7, Company: true, Users: []int64{5}, Grant: "g1", App: "app1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parley.TokenRefs(&tc.tok))
		})
	}
}
