package api

import (
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// conversationFacetFields maps the names `facets=` accepts on the
// conversation list to keyword fields of the index: counts per value come
// from the engine's facets, no record is loaded.
var conversationFacetFields = map[string]string{
	"status": "status", "tag": "tag", "type": "type", "mailbox": "mailboxName", "assignee": "assigned",
}

// facetMonthField is the date facet: conversations per month of creation,
// over the twelve months up to the current one, and "earlier".
const facetMonthField = "createdAt:month"

// conversationFacetNames lists the accepted names, for messages.
var conversationFacetNames = []string{"assignee", facetMonthField, "mailbox", "status", "tag", "type"}

// readFacets reads `facets=` (comma-separated or repeated); nil when absent.
func readFacets(p *params) []string {
	var out []string
	for _, name := range p.list("facets") {
		_, keyword := conversationFacetFields[name]
		if !keyword && name != facetMonthField {
			p.problems.Add("facets", parley.CodeListOfEnumValues, "must be among: "+strings.Join(conversationFacetNames, ", "), name)
			continue
		}
		out = append(out, name)
	}
	return out
}

// conversationFacets counts, over the list's filter and query, the
// conversations per value of each named facet.
func (s *Server) conversationFacets(c *gin.Context, names []string, filter, search query.Node) (gin.H, error) {
	faceter, ok := s.cfg.Engine.(index.Faceter)
	if !ok {
		return nil, parley.Forbidden(parley.CodeAccessDenied, "the search engine in use cannot count facets")
	}
	if search != nil {
		filter = query.And{Nodes: []query.Node{filter, search}}
	}
	r := index.FacetRequest{Kind: index.Conversations, Company: caller(c).Company.ID, Filter: filter,
		Values: map[string]string{}, Ranges: map[string]index.RangeFacet{}}
	var months []string
	for _, name := range names {
		if name == facetMonthField {
			var buckets []index.Bucket
			months, buckets = monthBuckets(s.now())
			r.Ranges[name] = index.RangeFacet{Field: "createdAt", Buckets: buckets}
			continue
		}
		r.Values[name] = conversationFacetFields[name]
	}
	res, err := faceter.Facets(c.Request.Context(), r)
	if err != nil {
		return nil, err
	}
	out := gin.H{}
	for name, counts := range res.Values {
		out[name] = counts
	}
	if counts, ok := res.Ranges[facetMonthField]; ok {
		byMonth := map[string]int{}
		for i, n := range counts {
			byMonth[months[i]] = n
		}
		out[facetMonthField] = byMonth
	}
	return out, nil
}

// monthBuckets are the buckets of the month facet: "earlier", then each of
// the twelve UTC months up to the one holding now (later dates count in it).
func monthBuckets(now time.Time) ([]string, []index.Bucket) {
	now = now.UTC()
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -11, 0)
	ms := func(t time.Time) *float64 { v := index.Millis(t); return &v }
	names := []string{"earlier"}
	buckets := []index.Bucket{{Max: ms(start)}}
	for i := 0; i < 12; i++ {
		from, to := start.AddDate(0, i, 0), start.AddDate(0, i+1, 0)
		b := index.Bucket{Min: ms(from), Max: ms(to)}
		if i == 11 {
			b.Max = nil
		}
		names, buckets = append(names, from.Format("2006-01")), append(buckets, b)
	}
	return names, buckets
}
