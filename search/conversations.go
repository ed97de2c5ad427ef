package search

import (
	"cmp"
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Conversations asks for a page of a caller's conversations.
type Conversations struct {
	Caller parley.Caller
	// Filter holds the typed criteria but the status. A single folder id
	// that names a saved view the caller sees lists the view instead:
	// its query and filters ANDed with the rest, in its sort unless one is
	// given, and in its statuses unless a status is given.
	Filter parley.ConversationFilter
	// Status is the list's `status` (parley.ListStatuses); "" is the
	// default, active.
	Status string
	// SortField and SortOrder are the list's (parley.ConversationSortFields,
	// parley.SortOrders); "" is the default.
	SortField, SortOrder string
	// CustomFields are customFieldsByIds pairs, `<fieldId>:<value>`,
	// ANDed; they need Filter.MailboxIDs.
	CustomFields []string
	// Query is the text of `query=`, nil for none.
	Query *string
	// Facets names the facets to count beside the page; none when empty.
	Facets        []string
	Offset, Limit int
	// Problems are what the caller found wrong with the request already:
	// the search adds its own (custom-field pairs, facet names) and
	// answers them all as one error before searching.
	Problems parley.Problems
}

// ListConversations searches one page of conversations, with its
// suggestions and facets.
func ListConversations(ctx context.Context, d Deps, r Conversations) (*Page, error) {
	who := r.Caller
	boxes := &mailboxes{ctx: ctx, store: d.Store, company: who.Company.ID}
	custom, err := customFieldFilters(r.CustomFields, r.Filter.MailboxIDs, boxes, &r.Problems)
	if err != nil {
		return nil, err
	}
	facets := facetNames(r.Facets, listFacetFields, listFacetNames, &r.Problems)
	if err := r.Problems.Err(); err != nil {
		return nil, err
	}
	f, status := r.Filter, r.Status
	sortField, sortOrder := r.SortField, r.SortOrder
	nodes := custom
	view, err := folderSavedView(ctx, d.Store, who, f.FolderIDs)
	if err != nil {
		return nil, err
	}
	if view != nil {
		f.FolderIDs = nil
		if status == "" {
			status = "all"
		}
		sortField, sortOrder = cmp.Or(sortField, view.SortField), cmp.Or(sortOrder, view.SortOrder)
		all, err := boxes.get()
		if err != nil {
			return nil, err
		}
		selection, err := viewSelection(who, view, all, d.Now)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, selection)
	}
	if selected, all := parley.StatusFilter(cmp.Or(status, "active")); !all {
		f.Statuses = selected
	}
	filter := ConversationFilter(f.VisibleTo(who))
	if len(nodes) > 0 {
		filter = query.And{Nodes: append([]query.Node{filter}, nodes...)}
	}
	search, err := parse(r.Query, func(syntax query.Node) (query.Schema, error) {
		if !namesCustomField(syntax) {
			return index.ConversationSchema, nil
		}
		all, err := boxes.get()
		return index.ConversationSchemaFor(all), err
	}, d.Now)
	if err != nil {
		return nil, err
	}
	sortField, sortOrder = cmp.Or(sortField, parley.DefaultSortField), cmp.Or(sortOrder, parley.DefaultSortOrder)
	page, err := run(ctx, d.Engine, index.Request{Kind: index.Conversations, Company: who.Company.ID, Filter: filter, Query: search,
		Sort:   []index.Sort{{Field: index.SortFields[index.Conversations][sortField], Desc: sortOrder == "desc"}},
		Offset: r.Offset, Limit: r.Limit}, textOf(r.Query), true)
	if err != nil || facets == nil {
		return page, err
	}
	e, err := faceter(d.Engine)
	if err != nil {
		return nil, err
	}
	if search != nil {
		filter = query.And{Nodes: []query.Node{filter, search}}
	}
	page.Facets, err = listFacets(ctx, e, who.Company.ID, filter, facets, d.Now)
	return page, err
}

// CountConversations counts the caller's conversations a filter selects,
// from the index alone.
func CountConversations(ctx context.Context, d Deps, who parley.Caller, f parley.ConversationFilter) (int, error) {
	return count(ctx, d, who.Company.ID, ConversationFilter(f.VisibleTo(who)))
}

// count counts a company's conversations every node selects.
func count(ctx context.Context, d Deps, company int64, nodes ...query.Node) (int, error) {
	res, err := d.Engine.Search(ctx, index.Request{Kind: index.Conversations, Company: company, Filter: query.And{Nodes: nodes}})
	return res.Total, err
}

// folderSavedView is the view a list's folder names, or nil when it names
// none the caller sees (then it is a folder id, or nothing at all:
// another user's private view lists as an unknown folder, empty).
func folderSavedView(ctx context.Context, store parley.Store, who parley.Caller, folderIDs []int64) (*parley.SavedView, error) {
	if len(folderIDs) != 1 {
		return nil, nil
	}
	var v *parley.SavedView
	err := store.View(ctx, func(tx parley.Tx) (err error) {
		v, err = parley.LoadSavedView(tx, who, folderIDs[0])
		return err
	})
	if parley.IsNotFound(err) {
		return nil, nil
	}
	return v, err
}

func textOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
