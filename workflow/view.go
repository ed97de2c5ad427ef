package workflow

import (
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/search"
)

// Saved views are searched by package search (search.ViewNode); here a
// view is matched against one conversation (webhook filters).

// MatchesView reports whether a conversation is in the view at now, by the
// scan oracle's evaluation of the conversation's index document, so it
// agrees with what listing the view finds. A conversation that is not
// searchable (deleted) or of another company is in no view.
func MatchesView(tx parley.Tx, v *parley.SavedView, convID int64, now time.Time) (bool, error) {
	doc, ok, err := indexer.ConversationDocument(tx, v.CompanyID, convID)
	if err != nil || !ok || doc.Company != v.CompanyID {
		return false, err
	}
	n, err := search.SavedViewNode(tx, v, now)
	if err != nil {
		return false, err
	}
	return scan.Match(doc, n)
}
