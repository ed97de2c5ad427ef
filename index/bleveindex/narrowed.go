package bleveindex

import (
	"context"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// A date range ANDed with something selective ("createdAt:[NOW-30DAYS TO
// NOW] AND email:x") spent most of its time expanding the range into the
// term searchers of every date in it, only for the one customer's posting
// to keep a single hit (query 8 at 1M: half its CPU). A narrowedAnd
// decides when its searcher is built, with the postings' sizes in hand:
// when the other parts can match at most narrowLimit documents, their
// conjunction runs alone and each candidate's range is checked on the
// sortable number's one-term twin (sortPrefix), read from doc values;
// otherwise the ranges run as ordinary conjuncts. Both give the same hits.
// Only unscored searches are narrowed, since a checked range adds no score
// the way its term searchers do.

// narrowLimit is the most candidates a narrowedAnd checks one by one: a
// doc-value read each, far below the cost of a range's term searchers.
const narrowLimit = 4096

// sortedRange is a range on a sortable number, checked on its twin's key.
type sortedRange struct {
	field      string // the twin, sortPrefix + field
	lo, hi     string // sortKey bounds; "" is open
	loIn, hiIn bool
	asConjunct bq.Query // the range as a conjunct
}

// holds reports whether a twin key lies in the range.
func (r sortedRange) holds(key string) bool {
	if r.lo != "" && (key < r.lo || key == r.lo && !r.loIn) {
		return false
	}
	if r.hi != "" && (key > r.hi || key == r.hi && !r.hiIn) {
		return false
	}
	return true
}

// checkableRange is the sortedRange of n when it is a bounded range on a
// sortable number that is not a Key. Sortable numbers hold one value each
// (a sort reads one), so the twin's key is the value itself.
func checkableRange(kind index.Kind, n query.Node, translated bq.Query) (sortedRange, bool) {
	var field string
	var min, max *float64
	var minIn, maxIn bool
	switch n := n.(type) {
	case query.NumberRange:
		field, min, max, minIn, maxIn = n.Field, n.Min, n.Max, n.MinInclusive, n.MaxInclusive
	case query.TimeRange:
		field, minIn, maxIn = n.Field, n.FromInclusive, n.ToInclusive
		min, max = index.MillisBounds(n)
	default:
		return sortedRange{}, false
	}
	f, ok := index.FieldOf(kind, field)
	if !ok || f.Type != index.NumberField || !f.Sortable || f.Key || (min == nil && max == nil) {
		return sortedRange{}, false
	}
	r := sortedRange{field: sortPrefix + field, loIn: minIn, hiIn: maxIn, asConjunct: translated}
	if min != nil {
		r.lo = sortKey(*min)
	}
	if max != nil {
		r.hi = sortKey(*max)
	}
	return r, true
}

// narrowedAnd is a conjunction of others and ranges; see above.
type narrowedAnd struct {
	whole  *bq.ConjunctionQuery // every part, in the query's order
	others []bq.Query
	ranges []sortedRange
}

// conjunction is translate's query for an And of these parts: ranges
// checkable on twins make a narrowedAnd, anything else a plain
// conjunction.
func conjunction(kind index.Kind, nodes []query.Node, parts []bq.Query) bq.Query {
	n := narrowedAnd{whole: bleve.NewConjunctionQuery(parts...)}
	for i, node := range nodes {
		if r, ok := checkableRange(kind, node, parts[i]); ok {
			n.ranges = append(n.ranges, r)
		} else {
			n.others = append(n.others, parts[i])
		}
	}
	if len(n.ranges) == 0 || len(n.others) == 0 {
		return n.whole
	}
	return &n
}

// Searcher builds the others' searchers first; their smallest count
// bounds the conjunction's matches and chooses the plan. A scored search
// is the whole conjunction, as it would be without narrowing.
func (n *narrowedAnd) Searcher(ctx context.Context, r bi.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	if options.Score != bleve.ScoreNone {
		return n.whole.Searcher(ctx, r, m, options)
	}
	all := make([]search.Searcher, 0, len(n.others)+len(n.ranges))
	closeAll := func() { closeSearchers(all) }
	bound := ^uint64(0)
	for _, q := range n.others {
		s, err := q.Searcher(ctx, r, m, options)
		if err != nil {
			closeAll()
			return nil, err
		}
		all = append(all, s)
		bound = min(bound, s.Count())
	}
	if bound > narrowLimit {
		for _, rg := range n.ranges {
			s, err := rg.asConjunct.Searcher(ctx, r, m, options)
			if err != nil {
				closeAll()
				return nil, err
			}
			all = append(all, s)
		}
		return conjunctionSearcher(ctx, r, all, options, closeAll)
	}
	fields := make([]string, len(n.ranges))
	for i, rg := range n.ranges {
		fields[i] = rg.field
	}
	dv, err := r.DocValueReader(fields)
	if err != nil {
		closeAll()
		return nil, err
	}
	candidates, err := conjunctionSearcher(ctx, r, all, options, closeAll)
	if err != nil {
		return nil, err
	}
	check := &rangeCheck{ranges: n.ranges, dv: dv}
	return &checked{Searcher: candidates, holds: check.holds}, nil
}

// conjunctionSearcher is the conjunction of searchers, or the one.
func conjunctionSearcher(ctx context.Context, r bi.IndexReader, all []search.Searcher, options search.SearcherOptions, closeAll func()) (search.Searcher, error) {
	if len(all) == 1 {
		return all[0], nil
	}
	s, err := searcher.NewConjunctionSearcher(ctx, r, all, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	return s, nil
}

// rangeCheck accepts the candidates whose twins lie in every range.
type rangeCheck struct {
	ranges []sortedRange
	dv     bi.DocValueReader
	keys   []string // this candidate's key per range, "" when it has none
}

func (c *rangeCheck) holds(d *search.DocumentMatch) (bool, error) {
	c.keys = c.keys[:0]
	for range c.ranges {
		c.keys = append(c.keys, "")
	}
	err := c.dv.VisitDocValues(d.IndexInternalID, func(field string, term []byte) {
		for i, r := range c.ranges {
			if r.field == field {
				c.keys[i] = string(term)
			}
		}
	})
	if err != nil {
		return false, err
	}
	for i, r := range c.ranges {
		if c.keys[i] == "" || !r.holds(c.keys[i]) {
			return false, nil // a missing value lies in no range
		}
	}
	return true, nil
}
