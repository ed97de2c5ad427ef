package search

import (
	"context"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Listing asks for one page of a list without a query text: the documents
// of one kind a filter selects, in one order (a report's drill-down, the
// ratings of a period, the chats of a distribution's range).
type Listing struct {
	Kind    index.Kind
	Company int64
	Filter  query.Node
	Sort    []index.Sort
	Paging
}

// Paging is the page a list asks for: page Number, counted from 1, of Size
// documents. A number below 1 is the first page.
type Paging struct {
	Number, Size int
}

// offset is the number of documents before the page.
func (p Paging) offset() int {
	return (max(p.Number, 1) - 1) * p.Size
}

// Keys is a listing's page: the documents' keys in order (conversation
// ids, chat ids, message ids as index.MessageID writes them), and the
// number of documents the filter selects in all.
type Keys struct {
	IDs   []string
	Total int
}

// List answers one page of a listing.
func List(ctx context.Context, e index.Engine, l Listing) (Keys, error) {
	res, err := e.Search(ctx, index.Request{Kind: l.Kind, Company: l.Company, Filter: l.Filter, Sort: l.Sort,
		Offset: l.offset(), Limit: l.Size})
	if err != nil {
		return Keys{}, err
	}
	return Keys{IDs: res.IDs, Total: res.Total}, nil
}
