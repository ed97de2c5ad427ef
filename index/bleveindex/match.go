package bleveindex

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"
	bi "github.com/blevesearch/bleve_index_api"
)

// A word match that analyzes to one term is, in Bleve, a conjunction of
// that one term, and a conjunction is a searcher Bleve cannot optimize: a
// parent conjunction or disjunction of such matches then walks postings
// hit by hit (query 2, "body:refund AND body:order" by date: its
// ConjunctionSearcher was 55% of its CPU at 1M). As a plain term searcher
// it lets Bleve intersect or unite the postings as bitmaps ("unadorned"
// conjunctions and disjunctions), which it does only for unscored
// searches: so only those get the term searcher, and a scored search keeps
// Bleve's own structure and scores. Quoted words use it; unquoted ones are
// stemMatch (stem.go), which builds term searchers itself.
type wordMatch struct {
	*bq.MatchQuery
}

func (q wordMatch) Searcher(ctx context.Context, r bi.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	if options.Score == bleve.ScoreNone {
		if a := m.AnalyzerNamed(q.Analyzer); a != nil {
			if tokens := a.Analyze([]byte(q.Match)); len(tokens) == 1 {
				t := bleve.NewTermQuery(string(tokens[0].Term))
				t.SetField(q.FieldVal)
				t.SetBoost(q.BoostVal.Value())
				return t.Searcher(ctx, r, m, options)
			}
		}
	}
	return q.MatchQuery.Searcher(ctx, r, m, options)
}
