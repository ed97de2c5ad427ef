package api

import (
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
	"github.com/parley/parley/reports"
)

// readFacets reads a conversation list's `facets=` (comma-separated or
// repeated); nil when absent.
func readFacets(p *params) []string {
	return readFacetNames(p, reports.IsListFacet, reports.ListFacetNames)
}

// readCustomerFacets reads a customer list's `facets=`.
func readCustomerFacets(p *params) []string {
	return readFacetNames(p, reports.IsCustomerFacet, reports.CustomerFacetNames)
}

func readFacetNames(p *params, allowed func(string) bool, names []string) []string {
	var out []string
	for _, name := range p.list("facets") {
		if !allowed(name) {
			p.problems.Add("facets", parley.CodeListOfEnumValues, "must be among: "+strings.Join(names, ", "), name)
			continue
		}
		out = append(out, name)
	}
	return out
}

// conversationFacets counts, over the list's filter and query, the
// conversations per value of each named facet (reports.ListFacets).
func (s *Server) conversationFacets(c *gin.Context, names []string, filter, search query.Node) (map[string]map[string]int, error) {
	e, err := s.reportEngine()
	if err != nil {
		return nil, err
	}
	if search != nil {
		filter = query.And{Nodes: []query.Node{filter, search}}
	}
	return reports.ListFacets(c.Request.Context(), e, caller(c).Company.ID, filter, names, s.now())
}

// customerFacets counts, over the customer list's filter and query, the
// customers per value of each named facet (reports.CustomerFacets).
func (s *Server) customerFacets(c *gin.Context, names []string, f parley.CustomerFilter, search query.Node) (map[string]map[string]int, error) {
	e, err := s.reportEngine()
	if err != nil {
		return nil, err
	}
	return reports.CustomerFacets(c.Request.Context(), e, caller(c).Company.ID, f, search, names, s.now())
}
