package bleveindex

import (
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bi "github.com/blevesearch/bleve_index_api"
)

// Bleve's phrase searcher turns each candidate's term locations into maps
// before it looks for the phrase: for query 6 at 1M ("tracking number" by
// date, 53,095 hits) building and clearing those maps was over 40% of its
// CPU. A plainPhrase, a phrase of single terms at consecutive positions
// (what the exact analyzer makes of any text), runs the conjunction of its
// terms with their locations and looks for the phrase in each candidate's
// location list as it is. It does so only for unscored searches; a scored
// one, or any other phrase, is Bleve's.
type plainPhrase struct {
	*bq.MatchPhraseQuery
}

func (q plainPhrase) Searcher(ctx context.Context, r bi.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	a := m.AnalyzerNamed(q.Analyzer)
	if options.Score != bleve.ScoreNone || a == nil {
		return q.MatchPhraseQuery.Searcher(ctx, r, m, options)
	}
	terms, ok := consecutiveTerms(a.Analyze([]byte(q.MatchPhrase)))
	if !ok || len(terms) < 2 {
		return q.MatchPhraseQuery.Searcher(ctx, r, m, options)
	}
	located := options
	located.IncludeTermVectors = true
	var each []search.Searcher
	for _, t := range terms {
		s, err := searcher.NewTermSearcher(ctx, r, t, q.FieldVal, q.BoostVal.Value(), located)
		if err != nil {
			closeSearchers(each)
			return nil, err
		}
		each = append(each, s)
	}
	candidates, err := searcher.NewConjunctionSearcher(ctx, r, each, located)
	if err != nil {
		closeSearchers(each)
		return nil, err
	}
	return &checked{Searcher: candidates, holds: func(d *search.DocumentMatch) (bool, error) {
		return hasPhrase(d.FieldTermLocations, terms), nil
	}}, nil
}

// consecutiveTerms are the terms of tokens when there is one per position
// and the positions follow one another.
func consecutiveTerms(tokens analysis.TokenStream) ([]string, bool) {
	terms := make([]string, 0, len(tokens))
	for i, t := range tokens {
		if i > 0 && t.Position != tokens[i-1].Position+1 {
			return nil, false
		}
		terms = append(terms, string(t.Term))
	}
	return terms, true
}

// hasPhrase reports whether the terms occur at consecutive positions of
// one value (the same array positions) among a candidate's locations,
// all of one field.
func hasPhrase(locs []search.FieldTermLocation, terms []string) bool {
	at := func(term string, pos uint64, like *search.FieldTermLocation) bool {
		return slices.ContainsFunc(locs, func(l search.FieldTermLocation) bool {
			return l.Term == term && l.Location.Pos == pos &&
				l.Location.ArrayPositions.Equals(like.Location.ArrayPositions)
		})
	}
	for i := range locs {
		first := &locs[i]
		if first.Term != terms[0] {
			continue
		}
		found := true
		for k := 1; k < len(terms) && found; k++ {
			found = at(terms[k], first.Location.Pos+uint64(k), first)
		}
		if found {
			return true
		}
	}
	return false
}
