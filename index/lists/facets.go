package lists

import (
	"context"
	"slices"

	"github.com/parley/parley/index"
)

// Facets beside a list are counted here when the list's filter is one the
// engine can match and every counted field is one rows hold: the keywords
// (status, state, type, mailbox and assignee names), the tags, and the
// numbers (for range buckets). A pass over the company's rows of the
// wanted statuses counts them all, where the full engine visits each
// matching document's values field by field.

var _ index.PartialFaceter = (*Engine)(nil)

// FacetsSupported reports whether Facets can answer r exactly as the full
// engine would.
func (e *Engine) FacetsSupported(r index.FacetRequest) bool {
	e.mu.RLock()
	_, err := e.facetPlan(r)
	e.mu.RUnlock()
	return err == nil || (tableFacetsSupported(r) && (r.Kind.Textless() || e.rowsAnswer(r.Company, r.Kind)))
}

// facetCounter counts one row into a facet.
type facetCounter func(r *row)

// facetPlan compiles the request's filter (see listPlan); it fails when a
// field is not one rows hold. Callers hold the read lock.
func (e *Engine) facetPlan(r index.FacetRequest) (predicate, error) {
	if r.Kind != index.Conversations {
		return nil, errUnsupported
	}
	for _, field := range r.Values {
		if _, ok := keywordFields[field]; !ok && field != tagField {
			return nil, errUnsupported
		}
	}
	for _, rf := range r.Ranges {
		if _, ok := numberFields[rf.Field]; !ok {
			return nil, errUnsupported
		}
	}
	match, _, err := e.listPlan(index.Request{Kind: r.Kind, Filter: r.Filter})
	return match, err
}

// Facets counts, over the rows matching the filter, the rows per value and
// per bucket asked for: on list rows when they hold the fields, else on
// report rows.
func (e *Engine) Facets(ctx context.Context, r index.FacetRequest) (index.FacetResult, error) {
	if err := ctx.Err(); err != nil {
		return index.FacetResult{}, err
	}
	e.mu.RLock()
	match, err := e.facetPlan(r)
	if err != nil {
		e.mu.RUnlock()
		if !tableFacetsSupported(r) {
			return index.FacetResult{}, err
		}
		unlock, err := e.readRows(ctx, r.Company, r.Kind)
		if err != nil {
			return index.FacetResult{}, err
		}
		defer unlock()
		return e.tableFacets(ctx, r)
	}
	defer e.mu.RUnlock()
	out := index.FacetResult{Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	var counters []facetCounter
	words := map[string]map[uint32]int{} // Values' counts by keyword number
	for name, field := range r.Values {
		counts := map[uint32]int{}
		words[name] = counts
		if field == tagField {
			counters = append(counters, func(r *row) {
				for _, t := range r.tags {
					counts[t]++
				}
			})
			continue
		}
		f := keywordFields[field]
		counters = append(counters, func(r *row) {
			if v := r.words[f]; v != noWord {
				counts[v]++
			}
		})
	}
	for name, rf := range r.Ranges {
		counts := make([]int, len(rf.Buckets))
		out.Ranges[name] = counts
		f, buckets := numberFields[rf.Field], rf.Buckets
		counters = append(counters, func(r *row) {
			v, ok := r.value(f)
			if !ok {
				return
			}
			for i, b := range buckets {
				if index.InBucket(v, b) {
					counts[i]++
				}
			}
		})
	}

	statuses, narrowed := statusesOf(r.Filter)
	scanned := 0
	for status, p := range e.parts[r.Company] {
		if narrowed && !slices.Contains(statuses, status) {
			continue
		}
		for i := range p.rows {
			if scanned++; scanned%checkEvery == 0 && ctx.Err() != nil {
				return index.FacetResult{}, ctx.Err()
			}
			row := &p.rows[i]
			if !match(row) {
				continue
			}
			out.Total++
			for _, count := range counters {
				count(row)
			}
		}
	}
	for name, counts := range words {
		out.Values[name] = e.vocab.spell(counts)
	}
	return out, nil
}
