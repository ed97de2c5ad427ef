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
	idx, ok := e.indexes[r.Kind]
	if !ok {
		return index.FacetResult{}, fmt.Errorf("bleveindex: unknown kind %q", r.Kind)
	}
	q, err := filterQuery(r.Kind, r.Company, r.Filter)
	if err != nil {
		return index.FacetResult{}, err
	}
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	for name, rf := range r.Ranges {
		fr := bleve.NewFacetRequest(rf.Field, len(rf.Buckets))
		for i, b := range rf.Buckets {
			fr.AddNumericRange(strconv.Itoa(i), b.Min, b.Max)
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
	res, err := idx.SearchInContext(ctx, req)
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

// filterQuery is the company ANDed with a filter, for searches and facets.
func filterQuery(kind index.Kind, company int64, filter query.Node) (bq.Query, error) {
	c := bleve.NewTermQuery(index.FormatID(company))
	c.SetField(index.CompanyField)
	if filter == nil {
		return c, nil
	}
	f, err := translate(kind, filter)
	if err != nil {
		return nil, err
	}
	if _, all := f.(*bq.MatchAllQuery); all {
		// A filter that restricts nothing (an owner's list of every
		// status): a match-all beside the company would walk every
		// document of the index.
		return c, nil
	}
	return bleve.NewConjunctionQuery(c, f), nil
}
