package reports

import (
	"context"
	"fmt"
	"strconv"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/filters"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// MonthFacet names the date facet beside conversation lists: conversations
// per month of creation, over the twelve UTC months up to the current one
// (later dates count in it), and "earlier".
const MonthFacet = "createdAt:month"

// listFacetFields maps the value facets beside conversation lists to
// keyword fields of the index.
var listFacetFields = map[string]string{
	"status": "status", "tag": "tag", "type": "type", "mailbox": "mailboxName", "assignee": "assigned",
}

// customerFacetFields maps the value facets beside customer lists to
// fields of the index: the domains of a customer's e-mail addresses, the
// mailboxes the customer wrote to and the organization, by id.
var customerFacetFields = map[string]string{
	"emailDomain": "emailDomain", "mailboxId": "mailboxId", "organizationId": "organizationId",
}

// ListFacetNames lists the facets a conversation list may ask for, and
// CustomerFacetNames those a customer list may ask for.
var (
	ListFacetNames     = []string{"assignee", MonthFacet, "mailbox", "status", "tag", "type"}
	CustomerFacetNames = []string{MonthFacet, "emailDomain", "mailboxId", "organizationId"}
)

// IsListFacet reports whether name is one of ListFacetNames.
func IsListFacet(name string) bool {
	_, value := listFacetFields[name]
	return value || name == MonthFacet
}

// IsCustomerFacet reports whether name is one of CustomerFacetNames.
func IsCustomerFacet(name string) bool {
	_, value := customerFacetFields[name]
	return value || name == MonthFacet
}

// ListFacets counts, over a list's filter (its query included), the
// conversations of a company per value of each named facet, from the
// engine's facets: no record is loaded.
func ListFacets(ctx context.Context, e Engine, company int64, filter query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
	return countFacets(ctx, e, index.Conversations, listFacetFields, company, filter, names, now)
}

// CustomerFacets counts, over a customer list's filter and query (nil
// for none), the customers of a company per value of each named facet.
// A customer with two addresses at one domain counts once for it. A
// customer counts under every mailbox it wrote to that the filter shows
// (parley.CustomerFilter.ShowsMailbox).
func CustomerFacets(ctx context.Context, e Engine, company int64, list parley.CustomerFilter, search query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
	filter := filters.Customers(list)
	if search != nil {
		filter = query.And{Nodes: []query.Node{filter, search}}
	}
	out, err := countFacets(ctx, e, index.Customers, customerFacetFields, company, filter, names, now)
	if err != nil {
		return nil, err
	}
	for key := range out["mailboxId"] {
		id, perr := strconv.ParseInt(key, 10, 64)
		if perr != nil {
			return nil, fmt.Errorf("reports: mailbox facet value %q is not an id", key)
		}
		if !list.ShowsMailbox(id) {
			delete(out["mailboxId"], key)
		}
	}
	return out, nil
}

// countFacets asks the engine for the named facets of a kind's documents:
// fields maps the value facets to index fields; MonthFacet counts by month
// of createdAt.
func countFacets(ctx context.Context, e Engine, kind index.Kind, fields map[string]string, company int64, filter query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
	r := index.FacetRequest{Kind: kind, Company: company, Filter: filter,
		Values: map[string]string{}, Ranges: map[string]index.RangeFacet{}}
	var months []string
	for _, name := range names {
		if name == MonthFacet {
			var rf index.RangeFacet
			months, rf = monthBuckets(now)
			r.Ranges[name] = rf
			continue
		}
		r.Values[name] = fields[name]
	}
	res, err := e.Facets(ctx, r)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	for name, counts := range res.Values {
		out[name] = counts
	}
	if counts, ok := res.Ranges[MonthFacet]; ok {
		byMonth := map[string]int{}
		for i, n := range counts {
			byMonth[months[i]] = n
		}
		out[MonthFacet] = byMonth
	}
	return out, nil
}

// monthBuckets are the buckets of MonthFacet: "earlier", then the report
// series' month steps over the twelve months up to the one holding now,
// the last left open.
func monthBuckets(now time.Time) ([]string, index.RangeFacet) {
	now = now.UTC()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	start := thisMonth.AddDate(0, -11, 0)
	rf, parts := timeBuckets(Period{Start: start, End: thisMonth.AddDate(0, 1, 0)}, "month")
	rf.Field = "createdAt"
	rf.Buckets[len(rf.Buckets)-1].Max = nil
	first := index.Millis(start)
	rf.Buckets = append([]index.Bucket{{Max: &first}}, rf.Buckets...)
	names := []string{"earlier"}
	for _, p := range parts {
		names = append(names, p.Start.Format("2006-01"))
	}
	return names, rf
}
