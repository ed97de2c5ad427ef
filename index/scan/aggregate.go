package scan

import (
	"context"
	"slices"
	"strings"

	"github.com/parley/parley/index"
)

var _ index.Aggregator = (*Engine)(nil)

// Aggregate computes an aggregate the plain way, bucket by bucket and
// document by document, apart from the engines' shared accumulator
// (index.Groups), so that it can be their oracle.
func (e *Engine) Aggregate(_ context.Context, r index.AggregateRequest) (index.AggregateResult, error) {
	if err := index.CheckAggregate(r); err != nil {
		return index.AggregateResult{}, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	matched, err := e.matching(r.Kind, r.Company, r.Filter)
	if err != nil {
		return index.AggregateResult{}, err
	}
	buckets := 1
	if r.By != "" {
		buckets = len(r.Edges) - 1
	}
	out := index.AggregateResult{Groups: []index.Group{}}
	for b := 0; b < buckets; b++ {
		groups := map[string]*index.Group{}
		seen := map[string]map[string]map[string]bool{}
		for _, d := range matched {
			if r.By != "" && !slices.ContainsFunc(d.Numbers[r.By], func(v float64) bool {
				return v >= r.Edges[b] && v < r.Edges[b+1]
			}) {
				continue
			}
			for _, key := range combinations(d, r.GroupBy) {
				id := strings.Join(key, "\x00")
				g := groups[id]
				if g == nil {
					g = &index.Group{Bucket: b, Key: key, Sums: map[string]index.Sum{}, Distinct: map[string]int{}}
					for _, f := range r.Sums {
						g.Sums[f] = index.Sum{}
					}
					seen[id] = map[string]map[string]bool{}
					for _, f := range r.Distinct {
						seen[id][f] = map[string]bool{}
						g.Distinct[f] = 0
					}
					groups[id] = g
				}
				g.Count++
				for _, f := range r.Sums {
					s := g.Sums[f]
					done := map[float64]bool{}
					for _, v := range d.Numbers[f] {
						if !done[v] {
							done[v] = true
							s.Count++
							s.Total += v
						}
					}
					g.Sums[f] = s
				}
				for _, f := range r.Distinct {
					for _, v := range keysOf(d, f) {
						seen[id][f][v] = true
					}
				}
			}
		}
		for id, g := range groups {
			for f, values := range seen[id] {
				g.Distinct[f] = len(values)
			}
			out.Groups = append(out.Groups, *g)
		}
	}
	index.SortGroups(out.Groups)
	return out, nil
}

// keysOf are a document's distinct values of a field, numbers as
// index.ValueKey.
func keysOf(d *doc, field string) []string {
	var out []string
	for _, v := range d.Keywords[field] {
		out = append(out, v)
	}
	for _, v := range d.Numbers[field] {
		out = append(out, index.ValueKey(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// combinations are the GroupBy keys of a document: one per combination of
// its values; none when it lacks a field.
func combinations(d *doc, fields []string) [][]string {
	keys := [][]string{{}}
	for _, f := range fields {
		var next [][]string
		for _, k := range keys {
			for _, v := range keysOf(d, f) {
				next = append(next, append(slices.Clone(k), v))
			}
		}
		keys = next
	}
	return keys
}
