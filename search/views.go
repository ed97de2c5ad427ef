package search

import (
	"errors"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Saved views share the workflows' language and evaluation: a view's
// selection is its query ANDed with its list filters, searched by the
// engines for lists, counts and reports, and matched by the workflows
// against one conversation (webhook filters) as the scan oracle evaluates
// a search.

// CheckQuery is the parley.QueryChecker: the query must parse and check
// against the conversation schema of the company's mailboxes, as `query=`
// on a list. The error message names the column.
func CheckQuery(mailboxes []parley.Mailbox, q string) error {
	_, err := Compile(mailboxes, q, time.Now())
	return err
}

var _ parley.QueryChecker = CheckQuery

// Compile parses a query and checks it against the conversation schema of
// the mailboxes (their custom fields included), resolving date math at
// now: a saved view's query, a workflow's condition.
func Compile(mailboxes []parley.Mailbox, q string, now time.Time) (query.Node, error) {
	n, err := query.Parse(q)
	if err != nil {
		return nil, err
	}
	return query.Check(n, index.ConversationSchemaFor(mailboxes), now)
}

// ViewNode is the view's selection at now: its query (date math resolved
// at now) ANDed with its filters. A query that no longer checks (a custom
// field since removed) selects nothing, as such a workflow condition
// matches nothing.
func ViewNode(v *parley.SavedView, mailboxes []parley.Mailbox, now time.Time) (query.Node, error) {
	selection := ConversationFilter(v.Filters.ConversationFilter())
	if v.Query == "" {
		return selection, nil
	}
	q, err := Compile(mailboxes, v.Query, now)
	var qe *query.Error
	if errors.As(err, &qe) {
		return query.AnyOf(), nil
	}
	if err != nil {
		return nil, err
	}
	return query.And{Nodes: []query.Node{selection, q}}, nil
}

// SavedViewNode is ViewNode with the company's mailboxes read from tx: the
// view a report is narrowed to.
func SavedViewNode(tx parley.Tx, v *parley.SavedView, now time.Time) (query.Node, error) {
	mailboxes, err := tx.Mailboxes(v.CompanyID)
	if err != nil {
		return nil, err
	}
	return ViewNode(v, mailboxes, now)
}

// viewSelection is what a view selects for a caller at now: the view's
// query and filters, within the mailboxes the caller may see.
func viewSelection(who parley.Caller, v *parley.SavedView, mailboxes []parley.Mailbox, now time.Time) (query.Node, error) {
	n, err := ViewNode(v, mailboxes, now)
	if err != nil {
		return nil, err
	}
	visible := ConversationFilter(parley.ConversationFilter{}.VisibleTo(who))
	return query.And{Nodes: []query.Node{visible, n}}, nil
}
