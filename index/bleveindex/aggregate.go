package bleveindex

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/search"

	"github.com/parley/parley/index"
)

var _ index.Aggregator = (*Engine)(nil)

// Aggregate walks the filter's matches once, reading each match's values
// of the asked fields from the segments' doc values (Bleve uninverts, and
// caches per segment, the fields indexed without them), and counts it into
// its groups. Facets would need one search per bucket of a series.
func (e *Engine) Aggregate(ctx context.Context, r index.AggregateRequest) (index.AggregateResult, error) {
	if err := index.CheckAggregate(r); err != nil {
		return index.AggregateResult{}, err
	}
	if _, ok := e.mappings[r.Kind]; !ok {
		return index.AggregateResult{}, fmt.Errorf("bleveindex: unknown kind %q", r.Kind)
	}
	q, err := filterQuery(r.Kind, r.Filter)
	if err != nil {
		return index.AggregateResult{}, err
	}
	groups := index.NewGroups(r)
	p, err := e.acquire(partitionKey{r.Kind, r.Company}, false)
	if err != nil {
		return index.AggregateResult{}, err
	}
	if p == nil {
		return groups.Result(), nil
	}
	defer e.release(p)
	in, err := p.idx.Advanced()
	if err != nil {
		return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
	}
	reader, err := in.Reader()
	if err != nil {
		return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
	}
	defer reader.Close()
	searcher, err := q.Searcher(ctx, reader, p.idx.Mapping(), search.SearcherOptions{Score: bleve.ScoreNone}) // aggregates read no score
	if err != nil {
		return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
	}
	defer searcher.Close()

	values := newAggregateValues(r)
	dvr, err := reader.DocValueReader(values.fields)
	if err != nil {
		return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
	}
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(searcher.DocumentMatchPoolSize(), 0), IndexReader: reader}
	visited := 0
	for {
		if visited++; visited%1024 == 0 && ctx.Err() != nil {
			return index.AggregateResult{}, ctx.Err()
		}
		dm, err := searcher.Next(sctx)
		if err != nil {
			return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
		}
		if dm == nil {
			break
		}
		values.reset()
		if err := dvr.VisitDocValues(dm.IndexInternalID, values.visit); err != nil {
			return index.AggregateResult{}, fmt.Errorf("bleveindex: aggregate: %w", err)
		}
		groups.Add(values)
		sctx.DocumentMatchPool.Put(dm)
	}
	return groups.Result(), nil
}

// aggregateValues holds one match's values of the fields an aggregate
// reads, decoded from their Bleve terms.
type aggregateValues struct {
	fields  []string               // Bleve fields to visit
	number  map[string]index.Field // Bleve field -> number field it holds
	key     map[string]string      // Bleve field -> keyword or Valued field it holds
	numbers map[string][]float64
	keys    map[string][]string
}

func newAggregateValues(r index.AggregateRequest) *aggregateValues {
	v := &aggregateValues{number: map[string]index.Field{}, key: map[string]string{},
		numbers: map[string][]float64{}, keys: map[string][]string{}}
	addField := func(name string) {
		for _, f := range v.fields {
			if f == name {
				return
			}
		}
		v.fields = append(v.fields, name)
	}
	numbers := r.Sums
	if r.By != "" {
		numbers = append([]string{r.By}, numbers...)
	}
	for _, name := range numbers {
		v.number[name] = numberField(r.Kind, name)
		addField(name)
	}
	for _, name := range append(append([]string{}, r.GroupBy...), r.Distinct...) {
		field := name
		if f, _ := index.FieldOf(r.Kind, name); f.Type == index.NumberField {
			field = index.ValuedPrefix + name
		}
		v.key[field] = name
		addField(field)
	}
	return v
}

func (v *aggregateValues) reset() {
	for f, values := range v.numbers {
		v.numbers[f] = values[:0]
	}
	for f, values := range v.keys {
		v.keys[f] = values[:0]
	}
}

// visit decodes one term: a number's shift-0 trie term or its Key term, or
// a keyword (a Valued number's twin holds its index.ValueKey).
func (v *aggregateValues) visit(field string, term []byte) {
	if name, ok := v.key[field]; ok {
		v.keys[name] = append(v.keys[name], string(term))
	}
	f, ok := v.number[field]
	if !ok {
		return
	}
	name := f.Name
	if f.Key {
		if n, ok := fromSortKey(term); ok {
			v.numbers[name] = append(v.numbers[name], n)
		}
		return
	}
	coded := numeric.PrefixCoded(term)
	if shift, err := coded.Shift(); err != nil || shift != 0 {
		return
	}
	if i, err := coded.Int64(); err == nil {
		v.numbers[name] = append(v.numbers[name], numberOf(f, i))
	}
}

func (v *aggregateValues) Numbers(field string) []float64 { return v.numbers[field] }
func (v *aggregateValues) Keys(field string) []string     { return v.keys[field] }
