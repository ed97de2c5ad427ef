package search

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
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

// listFacetNames lists the facets a conversation list may ask for, and
// customerFacetNames those a customer list may ask for.
var (
	listFacetNames     = []string{"assignee", MonthFacet, "mailbox", "status", "tag", "type"}
	customerFacetNames = []string{MonthFacet, "emailDomain", "mailboxId", "organizationId"}
)

// facetNames keeps the names asked for that fields (or MonthFacet) know,
// adding a problem on `facets` for each other; nil when none was asked.
func facetNames(asked []string, fields map[string]string, allowed []string, problems *parley.Problems) []string {
	var out []string
	for _, name := range asked {
		if _, value := fields[name]; !value && name != MonthFacet {
			problems.Add("facets", parley.CodeListOfEnumValues, "must be among: "+strings.Join(allowed, ", "), name)
			continue
		}
		out = append(out, name)
	}
	return out
}

// faceter is the engine's facet counter.
func faceter(e index.Engine) (index.Faceter, error) {
	f, ok := e.(index.Faceter)
	if !ok {
		return nil, errors.New("search: the engine cannot count facets")
	}
	return f, nil
}

// listFacets counts, over a list's filter (its query included), the
// conversations of a company per value of each named facet, from the
// engine's facets: no record is loaded.
func listFacets(ctx context.Context, e index.Faceter, company int64, filter query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
	return countFacets(ctx, e, index.Conversations, listFacetFields, company, filter, names, now)
}

// customerFacets counts, over a customer list's filter and query (nil
// for none), the customers of a company per value of each named facet.
// A customer with two addresses at one domain counts once for it. A
// customer counts under every mailbox it wrote to that the filter shows
// (parley.CustomerFilter.ShowsMailbox).
func customerFacets(ctx context.Context, e index.Faceter, company int64, list parley.CustomerFilter, search query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
	filter := CustomerFilter(list)
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
			return nil, fmt.Errorf("search: mailbox facet value %q is not an id", key)
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
func countFacets(ctx context.Context, e index.Faceter, kind index.Kind, fields map[string]string, company int64, filter query.Node, names []string, now time.Time) (map[string]map[string]int, error) {
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

// monthBuckets are the buckets of MonthFacet: "earlier", then the
// twelve UTC months up to the one holding now, the last left open.
func monthBuckets(now time.Time) ([]string, index.RangeFacet) {
	now = now.UTC()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	start := thisMonth.AddDate(0, -11, 0)
	first := index.Millis(start)
	rf := index.RangeFacet{Field: "createdAt", Buckets: []index.Bucket{{Max: &first}}}
	names := []string{"earlier"}
	for i := range 12 {
		from, to := index.Millis(start.AddDate(0, i, 0)), index.Millis(start.AddDate(0, i+1, 0))
		b := index.Bucket{Min: &from, Max: &to}
		if i == 11 {
			b.Max = nil
		}
		rf.Buckets = append(rf.Buckets, b)
		names = append(names, start.AddDate(0, i, 0).Format("2006-01"))
	}
	return names, rf
}
