package workflow

import (
	"errors"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/filters"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
)

// Saved views share the workflows' language and evaluation: a view's
// selection is its query ANDed with its list filters, searched by the
// engines for lists, counts and reports, and matched here against one
// conversation (webhook filters) as the scan oracle evaluates a search.

// CheckQuery is the parley.QueryChecker: the query must parse and check
// against the conversation schema of the company's mailboxes, as `query=`
// on a list. The error message names the column.
func CheckQuery(mailboxes []parley.Mailbox, q string) error {
	_, err := compileQuery(mailboxes, q, time.Now())
	return err
}

var _ parley.QueryChecker = CheckQuery

func compileQuery(mailboxes []parley.Mailbox, q string, now time.Time) (query.Node, error) {
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
	selection := filters.Conversations(v.Filters.ConversationFilter())
	if v.Query == "" {
		return selection, nil
	}
	q, err := compileQuery(mailboxes, v.Query, now)
	var qe *query.Error
	if errors.As(err, &qe) {
		return query.AnyOf(), nil
	}
	if err != nil {
		return nil, err
	}
	return query.And{Nodes: []query.Node{selection, q}}, nil
}

// MatchesView reports whether a conversation is in the view at now, by the
// scan oracle's evaluation of the conversation's index document, so it
// agrees with what listing the view finds. A conversation that is not
// searchable (deleted) or of another company is in no view.
func MatchesView(tx parley.Tx, v *parley.SavedView, convID int64, now time.Time) (bool, error) {
	doc, ok, err := indexer.ConversationDocument(tx, convID)
	if err != nil || !ok || doc.Company != v.CompanyID {
		return false, err
	}
	mailboxes, err := tx.Mailboxes(v.CompanyID)
	if err != nil {
		return false, err
	}
	n, err := ViewNode(v, mailboxes, now)
	if err != nil {
		return false, err
	}
	return scan.Match(doc, n)
}
