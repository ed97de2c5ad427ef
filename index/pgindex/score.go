package pgindex

import (
	"strings"

	"github.com/parley/parley/query"
)

// score is the relevance of a document to the user's query: how many of
// the query's positive clauses (those not under NOT) it matches. Bleve's
// tf-idf score cannot be reproduced in SQL, and the scan oracle has no
// score at all, so the engines agree on what a score sort returns and on
// its total, not on its order; this order puts the documents that match
// more of what was asked first, with the id as the tie-break as always.
func (s *statement) score(n query.Node) string {
	var leaves []string
	s.positive(n, &leaves)
	if len(leaves) == 0 {
		return "" // every document scores the same
	}
	for i, l := range leaves {
		leaves[i] = "(CASE WHEN " + l + " THEN 1 ELSE 0 END)"
	}
	return "(" + strings.Join(leaves, " + ") + ")"
}

func (s *statement) positive(n query.Node, out *[]string) {
	switch n := n.(type) {
	case query.And:
		for _, c := range n.Nodes {
			s.positive(c, out)
		}
	case query.Or:
		for _, c := range n.Nodes {
			s.positive(c, out)
		}
	case query.Not, query.All:
	default:
		if cond, err := s.where(n); err == nil {
			*out = append(*out, cond)
		}
	}
}
