package search

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Customers asks for a page of a company's customers.
type Customers struct {
	Company int64
	Filter  parley.CustomerFilter
	// Query is the text of `query=`, nil for none.
	Query *string
	// SortField is one of index.SortFields[index.Customers]; Desc orders
	// it newest (or last) first.
	SortField string
	Desc      bool
	// After starts the page after a customer of an earlier page, newest
	// first (the v3 list's cursor); nil starts at the top.
	After *Position
	// Suggest asks for corrected queries when a text search finds nothing.
	Suggest bool
	// Facets names the facets to count beside the page; none when empty.
	Facets        []string
	Offset, Limit int
	// Problems are what the caller found wrong with the request already;
	// the search adds its own (facet names) and answers them all as one
	// error before searching.
	Problems parley.Problems
}

// Position is where a page of customers newest first starts: after the
// customer with this creation time (Unix ms) and id.
type Position struct {
	CreatedAt int64
	ID        int64
}

// before matches the customers after p in the list order: created earlier,
// or at the same time with a smaller id.
func (p Position) before() query.Node {
	t, id := float64(p.CreatedAt), float64(p.ID)
	return query.Or{Nodes: []query.Node{
		query.NumberRange{Field: "createdAt", Max: &t},
		query.And{Nodes: []query.Node{
			query.Equal("createdAt", t),
			query.NumberRange{Field: "id", Max: &id},
		}},
	}}
}

// ListCustomers searches one page of customers, with its suggestions
// (when asked) and facets.
func ListCustomers(ctx context.Context, d Deps, r Customers) (*Page, error) {
	facets := facetNames(r.Facets, customerFacetFields, customerFacetNames, &r.Problems)
	if err := r.Problems.Err(); err != nil {
		return nil, err
	}
	search, err := parse(r.Query, func(query.Node) (query.Schema, error) { return index.CustomerSchema, nil }, d.Now)
	if err != nil {
		return nil, err
	}
	filter := CustomerFilter(r.Filter)
	if r.After != nil {
		filter = query.And{Nodes: []query.Node{filter, r.After.before()}}
	}
	page, err := run(ctx, d.Engine, index.Request{Kind: index.Customers, Company: r.Company, Filter: filter, Query: search,
		Sort:   []index.Sort{{Field: index.SortFields[index.Customers][r.SortField], Desc: r.Desc}},
		Offset: r.Offset, Limit: r.Limit}, textOf(r.Query), r.Suggest)
	if err != nil || facets == nil {
		return page, err
	}
	e, err := faceter(d.Engine)
	if err != nil {
		return nil, err
	}
	page.Facets, err = customerFacets(ctx, e, r.Company, r.Filter, search, facets, d.Now)
	return page, err
}
