// Package scan is a brute-force search engine: it keeps documents in memory
// and evaluates query nodes over every one of them. It is the oracle every
// other engine is compared with in tests and the baseline of benchmarks,
// and, in production, the matcher of workflow conditions: Match evaluates
// nodes against one conversation's document, so a workflow decides exactly
// as a search would without asking an engine.
package scan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Engine is the scan implementation of index.Engine.
type Engine struct {
	mu   sync.RWMutex
	docs map[index.Kind]map[string]*doc
}

// doc is a document with its text fields analysed once, at Apply.
type doc struct {
	index.Document
	tokens map[string][][]string // per text field, the exact forms of each value
	stems  map[string][][]string // per text field, the stemmed forms of each value
}

func analyse(d index.Document) *doc {
	out := &doc{Document: d, tokens: map[string][][]string{}, stems: map[string][][]string{}}
	for f, values := range d.Texts {
		for _, v := range values {
			tokens := index.Tokens(v)
			stems := make([]string, len(tokens))
			for i, t := range tokens {
				stems[i] = index.Stem(t)
			}
			out.tokens[f] = append(out.tokens[f], tokens)
			out.stems[f] = append(out.stems[f], stems)
		}
	}
	return out
}

var _ index.Engine = (*Engine)(nil)

// New returns an empty engine.
func New() *Engine {
	return &Engine{docs: map[index.Kind]map[string]*doc{}}
}

// Apply stores and removes documents. The oracle keeps nothing on disk, so
// a batch is as durable as it will ever be at once.
func (e *Engine) Apply(_ context.Context, b index.Batch, durable func(error)) error {
	if durable != nil {
		defer durable(nil)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.docs[b.Kind]
	if m == nil {
		m = map[string]*doc{}
		e.docs[b.Kind] = m
	}
	for _, d := range b.Upserts {
		m[d.ID] = analyse(d)
	}
	for _, id := range b.Deletes {
		delete(m, id)
	}
	return nil
}

// Close does nothing.
func (e *Engine) Close() error { return nil }

// Search evaluates the query over every document of the kind and company.
func (e *Engine) Search(_ context.Context, r index.Request) (index.Result, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var hits []index.Document
	for _, d := range e.docs[r.Kind] {
		if d.Company != r.Company {
			continue
		}
		ok, err := matches(r, d)
		if err != nil {
			return index.Result{}, err
		}
		if ok {
			hits = append(hits, d.Document)
		}
	}
	sortHits(r.Kind, hits, r.Sort)
	out := index.Result{Total: len(hits), IDs: []string{}}
	for i := r.Offset; i < len(hits) && i < r.Offset+r.Limit; i++ {
		out.IDs = append(out.IDs, hits[i].ID)
	}
	return out, nil
}

// matches applies the request's query and filter; both must hold.
func matches(r index.Request, d *doc) (bool, error) {
	for _, n := range []query.Node{r.Query, r.Filter} {
		if n == nil {
			continue
		}
		if ok, err := eval(n, d); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func eval(n query.Node, d *doc) (bool, error) {
	switch n := n.(type) {
	case query.All:
		return true, nil
	case query.And:
		for _, c := range n.Nodes {
			if ok, err := eval(c, d); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case query.Or:
		for _, c := range n.Nodes {
			if ok, err := eval(c, d); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case query.Not:
		ok, err := eval(n.Node, d)
		return !ok, err
	case query.Match:
		want, forms := index.Tokens(n.Text), d.tokens[n.Field]
		if !n.Exact {
			want, forms = index.Stems(n.Text), d.stems[n.Field]
		}
		if len(want) == 0 {
			return false, nil
		}
		for _, t := range want {
			if !hasToken(forms, t) {
				return false, nil
			}
		}
		return true, nil
	case query.Phrase:
		want := index.Tokens(n.Text)
		if len(want) == 0 {
			return false, nil
		}
		for _, tokens := range d.tokens[n.Field] {
			if containsRun(tokens, want) {
				return true, nil
			}
		}
		return false, nil
	case query.Keyword:
		for _, v := range d.Keywords[n.Field] {
			if v == n.Value {
				return true, nil
			}
		}
		return false, nil
	case query.Prefix:
		for _, v := range d.Keywords[n.Field] {
			if strings.HasPrefix(v, n.Value) {
				return true, nil
			}
		}
		folded := index.Fold(n.Value) // text fields compare folded exact forms
		for _, tokens := range d.tokens[n.Field] {
			for _, t := range tokens {
				if strings.HasPrefix(t, folded) {
					return true, nil
				}
			}
		}
		return false, nil
	case query.Contains:
		for _, v := range d.Keywords[n.Field] {
			if strings.Contains(v, n.Value) {
				return true, nil
			}
		}
		return false, nil
	case query.NumberRange:
		return anyIn(d.Numbers[n.Field], n.Min, n.Max, n.MinInclusive, n.MaxInclusive), nil
	case query.TimeRange:
		min, max := index.MillisBounds(n)
		return anyIn(d.Numbers[n.Field], min, max, n.FromInclusive, n.ToInclusive), nil
	case query.FieldExists:
		for _, f := range d.Present() {
			if f == n.Field {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("scan: cannot evaluate %T", n)
}

func hasToken(values [][]string, want string) bool {
	for _, tokens := range values {
		for _, t := range tokens {
			if t == want {
				return true
			}
		}
	}
	return false
}

func anyIn(values []float64, min, max *float64, minIncl, maxIncl bool) bool {
	for _, v := range values {
		if min != nil && (v < *min || (v == *min && !minIncl)) {
			continue
		}
		if max != nil && (v > *max || (v == *max && !maxIncl)) {
			continue
		}
		return true
	}
	return false
}

func containsRun(tokens, want []string) bool {
	for i := 0; i+len(want) <= len(tokens); i++ {
		match := true
		for j := range want {
			if tokens[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// sortHits orders like the Bleve engine: each sort field by its smallest
// value, missing values last whatever the direction, the numeric id last
// (see index.TieBreak). The oracle does not compute BM25 scores: a score
// sort orders by the tie-break alone, so tests compare score-sorted
// results as sets.
func sortHits(kind index.Kind, hits []index.Document, sorts []index.Sort) {
	all := index.TieBreak(kind, sorts)
	desc := true
	if len(all) > 0 {
		desc = all[len(all)-1].Desc
	}
	sort.SliceStable(hits, func(i, j int) bool {
		for _, s := range all {
			if s.Field == index.ScoreField {
				continue
			}
			if c := compareField(&hits[i], &hits[j], s); c != 0 {
				return c < 0
			}
		}
		// Kinds without a numeric id break ties on the document id.
		c := strings.Compare(hits[i].ID, hits[j].ID)
		if desc {
			c = -c
		}
		return c < 0
	})
}

// compareField compares two documents on one sort field, direction applied.
func compareField(a, b *index.Document, s index.Sort) int {
	av, aok := sortKey(a, s.Field)
	bv, bok := sortKey(b, s.Field)
	switch {
	case !aok && !bok:
		return 0
	case !aok:
		return 1
	case !bok:
		return -1
	}
	c := 0
	switch x := av.(type) {
	case float64:
		y := bv.(float64)
		if x < y {
			c = -1
		} else if x > y {
			c = 1
		}
	case string:
		c = strings.Compare(x, bv.(string))
	}
	if s.Desc {
		c = -c
	}
	return c
}

func sortKey(d *index.Document, field string) (any, bool) {
	if vs := d.Numbers[field]; len(vs) > 0 {
		m := vs[0]
		for _, v := range vs {
			m = min(m, v)
		}
		return m, true
	}
	if vs := d.Keywords[field]; len(vs) > 0 {
		m := vs[0]
		for _, v := range vs {
			m = min(m, v)
		}
		return m, true
	}
	return nil, false
}

var _ index.Faceter = (*Engine)(nil)

// matching lists the documents of a kind and company that a filter (nil:
// every one) selects; the caller holds the read lock.
func (e *Engine) matching(kind index.Kind, company int64, filter query.Node) ([]*doc, error) {
	var out []*doc
	for _, d := range e.docs[kind] {
		if d.Company != company {
			continue
		}
		if filter != nil {
			ok, err := eval(filter, d)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Facets counts by brute force what the Bleve engine counts with facets.
func (e *Engine) Facets(_ context.Context, r index.FacetRequest) (index.FacetResult, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := index.FacetResult{Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	for name, rf := range r.Ranges {
		out.Ranges[name] = make([]int, len(rf.Buckets))
	}
	for name := range r.Values {
		out.Values[name] = map[string]int{}
	}
	matched, err := e.matching(r.Kind, r.Company, r.Filter)
	if err != nil {
		return index.FacetResult{}, err
	}
	for _, d := range matched {
		out.Total++
		for name, rf := range r.Ranges {
			for i, b := range rf.Buckets {
				for _, v := range d.Numbers[rf.Field] {
					if index.InBucket(v, b) {
						out.Ranges[name][i]++
						break
					}
				}
			}
		}
		for name, field := range r.Values {
			seen := map[string]bool{}
			for _, v := range d.Keywords[field] {
				seen[v] = true
			}
			for _, v := range d.Numbers[field] {
				seen[index.ValueKey(v)] = true
			}
			for v := range seen {
				out.Values[name][v]++
			}
		}
	}
	return out, nil
}

var _ index.Suggester = (*Engine)(nil)

// Words compares the query word with every word of the company's documents.
func (e *Engine) Words(_ context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, d := range e.docs[kind] {
		if d.Company != company {
			continue
		}
		for _, values := range d.tokens {
			for _, tokens := range values {
				for _, t := range tokens {
					if !seen[t] && index.SuggestableWord(t) && index.EditDistance(word, t) <= maxEdits {
						seen[t] = true
						out = append(out, t)
					}
				}
			}
		}
	}
	return out, nil
}
