package pgindex

import (
	"strconv"
	"strings"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// score is the relevance of a document to the user's query: how many of
// the query's positive clauses (those not under NOT) it matches, each
// counted by its field's weight (index.WeightOf: a word of the subject
// counts twice one of the body). Bleve's tf-idf score cannot be
// reproduced in SQL, and the scan oracle has no score at all, so the
// engines agree on what a score sort returns and on its total, not on
// its order; this order puts the documents that match more of what was
// asked, and where it matters more, first, with the id as the tie-break
// as always. It is "" when every match scores the same.
func (s *statement) score(n query.Node) string {
	var leaves []string
	s.positive(n, false, &leaves)
	if len(leaves) == 0 {
		return ""
	}
	return "(" + strings.Join(leaves, " + ") + ")"
}

// positive collects the weighted positive clauses under an OR: a clause
// every match meets adds the same to every score, so it is left out, and
// a search whose clauses all must hold sorts by id alone, without reading
// its texts again per match.
func (s *statement) positive(n query.Node, optional bool, out *[]string) {
	switch n := n.(type) {
	case query.And:
		for _, c := range n.Nodes {
			s.positive(c, optional, out)
		}
	case query.Or:
		for _, c := range n.Nodes {
			s.positive(c, optional || len(n.Nodes) > 1, out)
		}
	case query.Not, query.All:
	default:
		if !optional {
			return
		}
		if cond, err := s.where(n); err == nil {
			weight := strconv.FormatFloat(index.WeightOf(s.kind, fieldOf(n)), 'g', -1, 64)
			*out = append(*out, "(CASE WHEN "+cond+" THEN "+weight+" ELSE 0 END)")
		}
	}
}

// fieldOf is the field a query leaf searches.
func fieldOf(n query.Node) string {
	switch n := n.(type) {
	case query.Match:
		return n.Field
	case query.Phrase:
		return n.Field
	case query.Keyword:
		return n.Field
	case query.Prefix:
		return n.Field
	case query.Contains:
		return n.Field
	case query.NumberRange:
		return n.Field
	case query.TimeRange:
		return n.Field
	case query.FieldExists:
		return n.Field
	}
	return ""
}
