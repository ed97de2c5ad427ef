package search_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

func TestConversationFilter(t *testing.T) {
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	seven, none := int64(7), []int64{}
	cases := []struct {
		name   string
		filter parley.ConversationFilter
		want   []query.Node // ANDed after query.All
	}{
		{"empty filter matches every conversation", parley.ConversationFilter{}, nil},
		{"visible mailboxes", parley.ConversationFilter{Visible: &[]int64{1, 2}},
			[]query.Node{query.AnyID("mailboxId", []int64{1, 2})}},
		{"no visible mailbox matches nothing", parley.ConversationFilter{Visible: &none},
			[]query.Node{query.Not{Node: query.All{}}}},
		{"statuses are alternatives", parley.ConversationFilter{Statuses: []parley.Status{parley.StatusActive, parley.StatusPending}},
			[]query.Node{query.Or{Nodes: []query.Node{query.Keyword{Field: "status", Value: "active"}, query.Keyword{Field: "status", Value: "pending"}}}}},
		{"an empty list is no criterion", parley.ConversationFilter{MailboxIDs: []int64{}, Tags: []string{}}, nil},
		{"no customers matches nothing", parley.ConversationFilter{CustomerIDs: &none},
			[]query.Node{query.Not{Node: query.All{}}}},
		{"every criterion, in order", parley.ConversationFilter{MailboxIDs: []int64{3}, Tags: []string{"vip"}, FolderIDs: []int64{4},
			Types: []string{"chat"}, AssigneeID: &seven, CustomerIDs: &[]int64{8}, ModifiedSince: &since, Number: &seven},
			[]query.Node{query.EqualID("mailboxId", 3), query.Keyword{Field: "tag", Value: "vip"}, query.EqualID("folderId", 4),
				query.Keyword{Field: "type", Value: "chat"}, query.EqualID("assigneeId", 7), query.EqualID("customerId", 8),
				query.TimeRange{Field: "modifiedAt", From: &since, FromInclusive: true}, query.EqualID("number", 7)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, query.And{Nodes: append([]query.Node{query.All{}}, tc.want...)}, search.ConversationFilter(tc.filter))
		})
	}
}

func TestCustomerFilter(t *testing.T) {
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	mailbox, email, first, last := int64(5), "ann@example.com", "Ann", "Lee"
	cases := []struct {
		name   string
		filter parley.CustomerFilter
		want   []query.Node // ANDed after query.All
	}{
		{"empty filter matches every customer", parley.CustomerFilter{}, nil},
		{"visible mailboxes alone are no criterion: customers are the company's", parley.CustomerFilter{Visible: &[]int64{1}}, nil},
		{"a visible mailbox's customers", parley.CustomerFilter{Visible: &[]int64{1, 5}, MailboxID: &mailbox},
			[]query.Node{query.EqualID("mailboxId", 5)}},
		{"another mailbox's customers: none", parley.CustomerFilter{Visible: &[]int64{1}, MailboxID: &mailbox},
			[]query.Node{query.Not{Node: query.All{}}}},
		{"every criterion, in order", parley.CustomerFilter{MailboxID: &mailbox, Email: &email, FirstName: &first, LastName: &last,
			CreatedSince: &since, ModifiedSince: &since},
			[]query.Node{query.EqualID("mailboxId", 5), query.Keyword{Field: "email", Value: email},
				query.Match{Field: "firstName", Text: first}, query.Match{Field: "lastName", Text: last},
				query.TimeRange{Field: "createdAt", From: &since, FromInclusive: true},
				query.TimeRange{Field: "modifiedAt", From: &since, FromInclusive: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, query.And{Nodes: append([]query.Node{query.All{}}, tc.want...)}, search.CustomerFilter(tc.filter))
		})
	}
}
