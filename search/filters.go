package search

import (
	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
)

// The typed list filters of the domain become query nodes here, and only
// here, for the lists and the reports alike: this file knows the indexed
// field names of the filters' criteria.

// ConversationFilter is the node of a conversation filter, for conversation
// documents and the chat, call and reply documents that carry the same
// fields.
func ConversationFilter(f parley.ConversationFilter) query.Node {
	nodes := []query.Node{query.All{}}
	if f.Visible != nil {
		nodes = append(nodes, query.AnyID("mailboxId", *f.Visible))
	}
	if f.Statuses != nil {
		statuses := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			statuses[i] = string(st)
		}
		nodes = append(nodes, query.AnyKeyword("status", statuses))
	}
	if len(f.MailboxIDs) > 0 {
		nodes = append(nodes, query.AnyID("mailboxId", f.MailboxIDs))
	}
	if len(f.Tags) > 0 {
		nodes = append(nodes, query.AnyKeyword("tag", f.Tags))
	}
	if len(f.FolderIDs) > 0 {
		nodes = append(nodes, query.AnyID("folderId", f.FolderIDs))
	}
	if len(f.Types) > 0 {
		nodes = append(nodes, query.AnyKeyword("type", f.Types))
	}
	if f.AssigneeID != nil {
		nodes = append(nodes, query.EqualID("assigneeId", *f.AssigneeID))
	}
	if f.CustomerIDs != nil {
		nodes = append(nodes, query.AnyID("customerId", *f.CustomerIDs))
	}
	if f.ModifiedSince != nil {
		nodes = append(nodes, query.TimeRange{Field: "modifiedAt", From: f.ModifiedSince, FromInclusive: true})
	}
	if f.Number != nil {
		nodes = append(nodes, query.EqualID("number", *f.Number))
	}
	return query.And{Nodes: nodes}
}

// CustomerFilter is the node of a customer filter.
func CustomerFilter(f parley.CustomerFilter) query.Node {
	nodes := []query.Node{query.All{}}
	if f.MailboxID != nil {
		mailboxes := []int64{*f.MailboxID}
		if !f.ShowsMailbox(*f.MailboxID) {
			mailboxes = nil // matches nothing
		}
		nodes = append(nodes, query.AnyID("mailboxId", mailboxes))
	}
	if f.Email != nil {
		nodes = append(nodes, query.Keyword{Field: "email", Value: *f.Email})
	}
	if f.FirstName != nil {
		nodes = append(nodes, query.Match{Field: "firstName", Text: *f.FirstName})
	}
	if f.LastName != nil {
		nodes = append(nodes, query.Match{Field: "lastName", Text: *f.LastName})
	}
	if f.CreatedSince != nil {
		nodes = append(nodes, query.TimeRange{Field: "createdAt", From: f.CreatedSince, FromInclusive: true})
	}
	if f.ModifiedSince != nil {
		nodes = append(nodes, query.TimeRange{Field: "modifiedAt", From: f.ModifiedSince, FromInclusive: true})
	}
	return query.And{Nodes: nodes}
}
