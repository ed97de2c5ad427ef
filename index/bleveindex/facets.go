package bleveindex

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// maxFacetValues bounds the distinct values one Values facet returns; a
// field with more answers an error rather than a truncated (wrong) figure.
const maxFacetValues = 1 << 20

var _ index.Faceter = (*Engine)(nil)

// Facets counts, over the documents matching the filter, the documents per
// numeric bucket and per distinct value, with Bleve's facets: no document
// is loaded.
func (e *Engine) Facets(ctx context.Context, r index.FacetRequest) (index.FacetResult, error) {
	if _, ok := e.mappings[r.Kind]; !ok {
		return index.FacetResult{}, fmt.Errorf("bleveindex: unknown kind %q", r.Kind)
	}
	q, err := filterQuery(r.Kind, r.Filter)
	if err != nil {
		return index.FacetResult{}, err
	}
	p, err := e.acquire(partitionKey{r.Kind, r.Company}, false)
	if err != nil {
		return index.FacetResult{}, err
	}
	if p == nil {
		return emptyFacets(r), nil
	}
	defer e.release(p)
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = bleve.ScoreNone // facets count; nothing reads a score
	for name, rf := range r.Ranges {
		f := numberField(r.Kind, rf.Field)
		if f.Key {
			return index.FacetResult{}, fmt.Errorf("bleveindex: field %q is a Key: no range facets", rf.Field)
		}
		fr := bleve.NewFacetRequest(rf.Field, len(rf.Buckets))
		for i, b := range rf.Buckets {
			fr.AddNumericRange(strconv.Itoa(i), codeBound(f, b.Min), codeBound(f, b.Max))
		}
		req.AddFacet("r:"+name, fr)
	}
	for name, field := range r.Values {
		if f, ok := index.FieldOf(r.Kind, field); ok && f.Type == index.NumberField {
			if !f.Valued {
				return index.FacetResult{}, fmt.Errorf("bleveindex: field %q is not Valued", field)
			}
			field = index.ValuedPrefix + field
		}
		req.AddFacet("v:"+name, bleve.NewFacetRequest(field, maxFacetValues))
	}
	res, err := p.idx.SearchInContext(ctx, req)
	if err != nil {
		return index.FacetResult{}, fmt.Errorf("bleveindex: facets: %w", err)
	}
	out := index.FacetResult{Total: int(res.Total), Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	for name, rf := range r.Ranges {
		counts := make([]int, len(rf.Buckets))
		if fr := res.Facets["r:"+name]; fr != nil {
			for _, nr := range fr.NumericRanges {
				if i, err := strconv.Atoi(nr.Name); err == nil && i < len(counts) {
					counts[i] = nr.Count
				}
			}
		}
		out.Ranges[name] = counts
	}
	for name := range r.Values {
		values := map[string]int{}
		if fr := res.Facets["v:"+name]; fr != nil {
			if fr.Other > 0 {
				return index.FacetResult{}, fmt.Errorf("bleveindex: facet %q has more than %d values", name, maxFacetValues)
			}
			for _, t := range fr.Terms.Terms() {
				values[t.Term] = t.Count
			}
		}
		out.Values[name] = values
	}
	return out, nil
}

// emptyFacets is the answer for a company with no documents of a kind:
// every asked bucket and value list, empty.
func emptyFacets(r index.FacetRequest) index.FacetResult {
	out := index.FacetResult{Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	for name, rf := range r.Ranges {
		out.Ranges[name] = make([]int, len(rf.Buckets))
	}
	for name := range r.Values {
		out.Values[name] = map[string]int{}
	}
	return out
}

// filterQuery translates a filter for searches and facets; no filter
// matches every document of the partition (the company's).
func filterQuery(kind index.Kind, filter query.Node) (bq.Query, error) {
	if filter == nil {
		return bleve.NewMatchAllQuery(), nil
	}
	return translate(kind, filter)
}
