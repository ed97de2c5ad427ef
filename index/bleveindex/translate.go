package bleveindex

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Search runs a request in its company's partition, sorted with the id as
// the final tie-break. A company without a partition has no documents.
func (e *Engine) Search(ctx context.Context, r index.Request) (index.Result, error) {
	if _, ok := e.mappings[r.Kind]; !ok {
		return index.Result{}, fmt.Errorf("bleveindex: unknown kind %q", r.Kind)
	}
	p, err := e.acquire(partitionKey{r.Kind, r.Company}, false)
	if err != nil || p == nil {
		return index.Result{IDs: []string{}}, err
	}
	defer e.release(p)
	// Scores are computed only for a sort that reads them: a list by date
	// spent a fifth of its time scoring hits (query 2 at 1M).
	scored := r.Query != nil && slices.ContainsFunc(r.Sort, func(s index.Sort) bool { return s.Field == index.ScoreField })
	// With no query the filter is the whole search: it drives the
	// matching itself, unscored. Unscored, the query is one conjunction
	// with the filter's parts (flattened), which Bleve can intersect as
	// bitmaps; as a Bleve filter, each of the query's hits was checked
	// against the filter's searcher in turn (four fifths of query 2 at 1M).
	filter := r.Filter
	if r.Query != nil && !scored {
		filter = query.AllOf(r.Filter, r.Query)
	}
	q, err := filterQuery(r.Kind, filter)
	if err != nil {
		return index.Result{}, err
	}
	score := bleve.ScoreNone
	if scored {
		// The filter restricts without scoring; only the user's query
		// ranks results.
		ranked, err := translate(r.Kind, r.Query)
		if err != nil {
			return index.Result{}, err
		}
		b := bleve.NewBooleanQuery()
		if _, all := q.(*bq.MatchAllQuery); !all {
			b.AddFilter(q)
		}
		b.AddMust(ranked)
		q, score = b, ""
	}
	if sorts, ranked, ok := pageSorts(r.Kind, r); ok {
		// Sorted on numbers: the page keeps the hits itself (page.go).
		page := newSortedPage(p.columns, sorts, ranked, r.Offset, r.Limit)
		// Size 0: the page keeps the hits, and an unscored search of
		// some size sorted by score would stop after that many.
		req := bleve.NewSearchRequestOptions(q, 0, 0, false)
		req.Score = score
		req.SortByCustom(search.SortOrder{&search.SortScore{Desc: true}})
		res, err := p.idx.SearchInContext(page.collecting(ctx), req)
		if err != nil {
			return index.Result{}, fmt.Errorf("bleveindex: search: %w", err)
		}
		return index.Result{Total: int(res.Total), IDs: page.ids}, nil
	}
	req := bleve.NewSearchRequestOptions(q, r.Limit, r.Offset, false)
	req.Score = score
	req.SortByCustom(sortOrder(r.Kind, r.Sort))
	res, err := p.idx.SearchInContext(ctx, req)
	if err != nil {
		return index.Result{}, fmt.Errorf("bleveindex: search: %w", err)
	}
	out := index.Result{Total: int(res.Total), IDs: make([]string, 0, len(res.Hits))}
	for _, h := range res.Hits {
		out.IDs = append(out.IDs, h.ID)
	}
	return out, nil
}

// sortOrder is index.TieBreak's order; kinds without a numeric id (chats,
// keyed by UUID) end on the document id.
func sortOrder(kind index.Kind, sorts []index.Sort) search.SortOrder {
	var order search.SortOrder
	desc := true
	for _, s := range index.TieBreak(kind, sorts) {
		desc = s.Desc
		if s.Field == index.ScoreField {
			order = append(order, &search.SortScore{Desc: s.Desc})
			continue
		}
		order = append(order, &search.SortField{Field: sortField(s.Field), Desc: s.Desc, Type: search.SortFieldAsString, Missing: search.SortFieldMissingLast})
	}
	if _, ok := index.FieldOf(kind, "id"); !ok {
		return append(order, &search.SortDocID{Desc: desc})
	}
	return order
}

// sortField is the field a sort reads: a number's keyword twin holding
// its sort key (see sortKey), any other field itself.
func sortField(name string) string {
	if isNumberSort(name) {
		return sortPrefix + name
	}
	return name
}

// isNumberSort reports whether a sort field is numeric in any kind.
func isNumberSort(name string) bool {
	for _, kind := range index.Kinds {
		if f, ok := index.FieldOf(kind, name); ok {
			return f.Type == index.NumberField
		}
	}
	return false
}

// translate turns checked query nodes into a Bleve query.
func translate(kind index.Kind, n query.Node) (bq.Query, error) {
	switch n := n.(type) {
	case query.All:
		return bleve.NewMatchAllQuery(), nil
	case query.And:
		// ALL restricts nothing inside a conjunction; leaving it out spares
		// a searcher that walks every document.
		var kept []query.Node
		for _, c := range n.Nodes {
			if _, all := c.(query.All); !all {
				kept = append(kept, c)
			}
		}
		if len(kept) == 0 {
			return bleve.NewMatchAllQuery(), nil
		}
		parts, err := translateAll(kind, kept)
		if err != nil {
			return nil, err
		}
		return conjunction(kind, kept, parts), nil
	case query.Or:
		parts, err := translateAll(kind, n.Nodes)
		if err != nil {
			return nil, err
		}
		return bleve.NewDisjunctionQuery(parts...), nil
	case query.Not:
		inner, err := translate(kind, n.Node)
		if err != nil {
			return nil, err
		}
		b := bleve.NewBooleanQuery()
		b.AddMust(bleve.NewMatchAllQuery())
		b.AddMustNot(inner)
		return b, nil
	case query.Match:
		if len(index.Tokens(n.Text)) == 0 {
			return bleve.NewMatchNoneQuery(), nil
		}
		if !n.Exact {
			// Unquoted words match by stem (stem.go), every word.
			return stemMatches(n.Field, index.Stems(n.Text), index.WeightOf(kind, n.Field)), nil
		}
		// Quoted words match exact forms.
		q := bleve.NewMatchQuery(n.Text)
		q.SetField(index.ExactField(n.Field))
		q.Analyzer = exactAnalyzer
		q.SetOperator(bq.MatchQueryOperatorAnd)
		q.SetBoost(index.WeightOf(kind, n.Field))
		return wordMatch{q}, nil
	case query.Phrase:
		if len(index.Tokens(n.Text)) == 0 {
			return bleve.NewMatchNoneQuery(), nil
		}
		q := bleve.NewMatchPhraseQuery(n.Text)
		q.SetField(index.ExactField(n.Field))
		q.Analyzer = exactAnalyzer
		q.SetBoost(index.WeightOf(kind, n.Field))
		return plainPhrase{q}, nil
	case query.Keyword:
		q := bleve.NewTermQuery(n.Value)
		q.SetField(n.Field)
		return q, nil
	case query.Prefix:
		q := bleve.NewPrefixQuery(n.Value)
		q.SetField(n.Field)
		if f, ok := index.FieldOf(kind, n.Field); ok && f.Type == index.TextField {
			// A prefix of a word's exact form, folded as the analysis folds.
			q = bleve.NewPrefixQuery(index.Fold(n.Value))
			q.SetField(index.ExactField(n.Field))
		}
		return q, nil
	case query.Contains:
		if f, ok := index.FieldOf(kind, n.Field); ok && f.Substrings {
			// A value contains the fragment when one of its suffixes
			// starts with it.
			q := bleve.NewPrefixQuery(n.Value)
			q.SetField(suffixPrefix + n.Field)
			return q, nil
		}
		// A regular expression, not a wildcard: Bleve's wildcard syntax
		// cannot escape a literal * or ?.
		q := bleve.NewRegexpQuery(".*" + regexp.QuoteMeta(n.Value) + ".*")
		q.SetField(n.Field)
		return q, nil
	case query.NumberRange:
		if n.Min == nil && n.Max == nil {
			return exists(n.Field), nil
		}
		f := numberField(kind, n.Field)
		if f.Key {
			return keyRange(n), nil
		}
		return numberRange(f, n.Min, n.Max, n.MinInclusive, n.MaxInclusive), nil
	case query.TimeRange:
		if n.From == nil && n.To == nil {
			return exists(n.Field), nil
		}
		min, max := index.MillisBounds(n)
		return numberRange(numberField(kind, n.Field), min, max, n.FromInclusive, n.ToInclusive), nil
	case query.FieldExists:
		return exists(n.Field), nil
	}
	return nil, fmt.Errorf("bleveindex: cannot translate %T", n)
}

func translateAll(kind index.Kind, nodes []query.Node) ([]bq.Query, error) {
	out := make([]bq.Query, 0, len(nodes))
	for _, c := range nodes {
		q, err := translate(kind, c)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// keyRange translates a range on a Key number, indexed as sortKey terms:
// an equality is one term, any other range a range of terms.
func keyRange(n query.NumberRange) bq.Query {
	if n.Min != nil && n.Max != nil && *n.Min == *n.Max {
		if !n.MinInclusive || !n.MaxInclusive {
			return bleve.NewMatchNoneQuery()
		}
		q := bleve.NewTermQuery(sortKey(*n.Min))
		q.SetField(n.Field)
		return q
	}
	var min, max string // "" leaves that end open
	if n.Min != nil {
		min = sortKey(*n.Min)
	}
	if n.Max != nil {
		max = sortKey(*n.Max)
	}
	q := bleve.NewTermRangeInclusiveQuery(min, max, &n.MinInclusive, &n.MaxInclusive)
	q.SetField(n.Field)
	return q
}

func exists(field string) bq.Query {
	q := bleve.NewTermQuery(field)
	q.SetField(index.PresentField)
	return q
}
