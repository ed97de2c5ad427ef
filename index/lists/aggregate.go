package lists

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Aggregates and facets over report rows: the filter compiled to a
// predicate over a table's rows, one pass over the company's table of the
// kind, each matching row counted through index.Groups (as every engine
// counts) or into its facets.

var _ index.PartialAggregator = (*Engine)(nil)

// tableSlots are the fields of a table's rows, a row being its index.
type tableSlots struct {
	t    *table
	word func(string) (uint32, bool) // a keyword's interned index, if any row holds it
}

func (s tableSlots) keyword(field, value string) (func(int32) bool, bool) {
	f, ok := s.t.s.words[field]
	if !ok {
		return nil, false
	}
	id, known := s.word(value)
	if !known {
		return func(int32) bool { return false }, true
	}
	return func(i int32) bool { return slices.Contains(s.t.wordsOf(i, f), id) }, true
}

// inRange reads a row's values of the field in place: the predicate of a
// report's period runs on every row of a table.
func (s tableSlots) inRange(field string, b bounds) (func(int32) bool, bool) {
	f, ok := s.t.s.numbers[field]
	if !ok {
		return nil, false
	}
	t := s.t
	return func(i int32) bool {
		// numOffsets(i)[f:] inline: its two slicings cost this loop 18%
		// (a date range over 1M rows, 6.1 against 7.2 ms).
		off, at := t.shapes.offs[int(t.shape[i])*t.shapes.width+f:], int(t.numAt[i])
		for _, c := range t.nums[at+int(off[0]) : at+int(off[1])] {
			if b.holds(t.value(f, c)) {
				return true
			}
		}
		return false
	}, true
}

func (s tableSlots) exists(field string) (func(int32) bool, bool) {
	if f, ok := s.t.s.numbers[field]; ok {
		return func(i int32) bool { return len(s.t.codesOf(i, f)) > 0 }, true
	}
	if f, ok := s.t.s.words[field]; ok {
		return func(i int32) bool { return len(s.t.wordsOf(i, f)) > 0 }, true
	}
	return nil, false
}

// holds reports whether report rows of kind hold every field.
func holds(kind index.Kind, fields ...string) bool {
	s := schemas[kind]
	if s == nil {
		return false
	}
	for _, f := range fields {
		_, num := s.numbers[f]
		_, word := s.words[f]
		if !num && !word {
			return false
		}
	}
	return true
}

// AggregateSupported reports whether Aggregate can answer r exactly as
// the full engine would: a kind with report rows, a valid request, and a
// filter and fields the rows hold; for conversations, rows holding every
// document too (a textless kind's Aggregate waits for them instead: the
// full engine does not hold it).
func (e *Engine) AggregateSupported(r index.AggregateRequest) bool {
	if index.CheckAggregate(r) != nil || !holds(r.Kind, r.Sums...) || !holds(r.Kind, r.GroupBy...) ||
		!holds(r.Kind, r.Distinct...) || (r.By != "" && !holds(r.Kind, r.By)) {
		return false
	}
	return filterSupported(r.Kind, r.Filter) && (r.Kind.Textless() || e.rowsAnswer(r.Company, r.Kind))
}

// filterSupported reports whether report rows of kind can match filter.
func filterSupported(kind index.Kind, filter query.Node) bool {
	s := schemas[kind]
	if s == nil {
		return false
	}
	if filter == nil {
		return true
	}
	_, err := compileTable(filter, newTable(s), func(string) (uint32, bool) { return 0, false })
	return err == nil
}

// compileTable compiles a filter over t's rows; word interns a keyword.
func compileTable(n query.Node, t *table, word func(string) (uint32, bool)) (func(int32) bool, error) {
	return compile(n, slots[int32](tableSlots{t: t, word: word}))
}

// Aggregate answers a request AggregateSupported accepts.
func (e *Engine) Aggregate(ctx context.Context, r index.AggregateRequest) (index.AggregateResult, error) {
	if err := index.CheckAggregate(r); err != nil {
		return index.AggregateResult{}, err
	}
	if !e.AggregateSupported(r) {
		return index.AggregateResult{}, errUnsupported
	}
	groups := index.NewGroups(r)
	unlock, err := e.readRows(ctx, r.Company, r.Kind) // a Load or Restore may have begun since AggregateSupported
	if err != nil {
		return index.AggregateResult{}, err
	}
	defer unlock()
	t := e.tableOf(r.Company, r.Kind)
	values := newRowValues(t, e.vocab)
	err = e.scan(ctx, t, r.Filter, func(i int32) {
		values.i = i
		groups.Add(values)
	})
	if err != nil {
		return index.AggregateResult{}, err
	}
	return groups.Result(), nil
}

// tableOf is the table of a company and kind, empty when it has no rows;
// callers hold the lock.
func (e *Engine) tableOf(company int64, kind index.Kind) *table {
	if t := e.tables[tableKey{company, kind}]; t != nil {
		return t
	}
	return newTable(schemas[kind])
}

// scan calls each with every live row of t matching filter; callers hold
// the read lock.
func (e *Engine) scan(ctx context.Context, t *table, filter query.Node, each func(i int32)) error {
	match := func(int32) bool { return true }
	if filter != nil {
		var err error
		if match, err = compileTable(filter, t, e.vocab.find); err != nil {
			return err
		}
	}
	if rows, ok := t.candidates(filter); ok {
		for _, i := range rows {
			if t.live(int(i)) && match(i) {
				each(i)
			}
		}
		return nil
	}
	for i := range t.size() {
		if i%checkEvery == checkEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		if t.live(i) && match(int32(i)) {
			each(int32(i))
		}
	}
	return nil
}

var _ index.KeyIDs = (*rowValues)(nil)

// rowValues are one row's values as index.Groups reads them. The fields
// of a request are few: a list looked through beats a map.
type rowValues struct {
	t     *table
	i     int32
	vocab *vocabulary
	keys  []fieldKeys
	nums  []float64 // Numbers' scratch
}

// fieldKeys is a field read as keys, with its scratch.
type fieldKeys struct {
	name   string
	buf    []string // Keys' scratch
	ids    []uint64 // KeyIDs' scratch
	number bool
	slot   int
	cache  map[uint64]string // ValueKey of the numbers seen, by their bits (-0 is not 0)
}

func newRowValues(t *table, vocab *vocabulary) *rowValues {
	return &rowValues{t: t, vocab: vocab}
}

func (v *rowValues) Numbers(field string) []float64 {
	if f, ok := v.t.s.numbers[field]; ok {
		v.nums = v.t.numbersOf(v.nums, v.i, f)
		return v.nums
	}
	return nil
}

// KeyIDs are the row's values of a field by interned index (keywords) or
// bits (numbers): one number per distinct key of the field.
func (v *rowValues) KeyIDs(field string) []uint64 {
	k := v.field(field)
	k.ids = k.ids[:0]
	if !k.number {
		for _, w := range v.t.wordsOf(v.i, k.slot) {
			k.ids = append(k.ids, uint64(w))
		}
		return k.ids
	}
	for _, c := range v.t.codesOf(v.i, k.slot) {
		k.ids = append(k.ids, math.Float64bits(v.t.value(k.slot, c)))
	}
	return k.ids
}

// KeyOf spells a key KeyIDs named.
func (v *rowValues) KeyOf(field string, id uint64) string {
	if k := v.field(field); k.number {
		return k.valueKey(math.Float64frombits(id))
	}
	return strings.Clone(v.vocab.word(uint32(id))) // a group's key outlives the request's lock
}

func (v *rowValues) Keys(field string) []string {
	k := v.field(field)
	k.buf = k.buf[:0]
	if !k.number {
		for _, w := range v.t.wordsOf(v.i, k.slot) {
			k.buf = append(k.buf, v.vocab.word(w))
		}
		return k.buf
	}
	for _, c := range v.t.codesOf(v.i, k.slot) {
		k.buf = append(k.buf, k.valueKey(v.t.value(k.slot, c)))
	}
	return k.buf
}

// field is the reading of a field as keys, made at its first use.
func (v *rowValues) field(name string) *fieldKeys {
	for i := range v.keys {
		if v.keys[i].name == name {
			return &v.keys[i]
		}
	}
	k := fieldKeys{name: name}
	if f, ok := v.t.s.numbers[name]; ok {
		k.number, k.slot, k.cache = true, f, map[uint64]string{}
	} else {
		k.slot = v.t.s.words[name]
	}
	v.keys = append(v.keys, k)
	return &v.keys[len(v.keys)-1]
}

// valueKey is index.ValueKey of a number, remembered.
func (k *fieldKeys) valueKey(n float64) string {
	s, ok := k.cache[math.Float64bits(n)]
	if !ok {
		s = index.ValueKey(n)
		k.cache[math.Float64bits(n)] = s
	}
	return s
}

// tableFacetsSupported reports whether report rows answer a facet request:
// a kind with them, a filter they can match, Values of keywords and
// Valued numbers, Ranges of numbers.
func tableFacetsSupported(r index.FacetRequest) bool {
	s := schemas[r.Kind]
	if s == nil {
		return false
	}
	for _, field := range r.Values {
		if _, ok := s.words[field]; !ok && !s.valued[field] {
			return false
		}
	}
	for _, rf := range r.Ranges {
		if _, ok := s.numbers[rf.Field]; !ok {
			return false
		}
	}
	return filterSupported(r.Kind, r.Filter)
}

// tableFacets counts a request tableFacetsSupported accepts; callers hold
// the read lock.
func (e *Engine) tableFacets(ctx context.Context, r index.FacetRequest) (index.FacetResult, error) {
	out := index.FacetResult{Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	t := e.tableOf(r.Company, r.Kind)
	var counters []func(i int32)
	var finish []func()
	for name, field := range r.Values {
		c, finished := valueCounter(t, e.vocab, field)
		counters = append(counters, c)
		finish = append(finish, func() { out.Values[name] = finished() })
	}
	for name, rf := range r.Ranges {
		counts := make([]int, len(rf.Buckets))
		out.Ranges[name] = counts
		f, buckets := t.s.numbers[rf.Field], rf.Buckets
		var values []float64
		counters = append(counters, func(i int32) {
			values = t.numbersOf(values, i, f)
			for b, bucket := range buckets {
				if slices.ContainsFunc(values, func(v float64) bool { return index.InBucket(v, bucket) }) {
					counts[b]++
				}
			}
		})
	}
	err := e.scan(ctx, t, r.Filter, func(i int32) {
		out.Total++
		for _, count := range counters {
			count(i)
		}
	})
	if err != nil {
		return index.FacetResult{}, err
	}
	for _, f := range finish {
		f()
	}
	return out, nil
}

// valueCounter counts the rows per value of a field, each row's distinct
// values once. It counts interned keywords and the bits of numbers (whole
// numbers in an array), and spells them (ValueKey for numbers) once per
// value at the end: a year's rows hold tens of thousands of distinct
// seconds, and hashing strings row by row costs more than the pass.
func valueCounter(t *table, vocab *vocabulary, field string) (count func(i int32), finished func() map[string]int) {
	if f, ok := t.s.words[field]; ok {
		counts := map[uint32]int{}
		return func(i int32) {
			ws := t.wordsOf(i, f)
			for j, w := range ws {
				if !slices.Contains(ws[:j], w) {
					counts[w]++
				}
			}
		}, func() map[string]int { return vocab.spell(counts) }
	}
	f := t.s.numbers[field]
	var dense *denseCounts // taken at the first whole number in range
	hi, distinct := 0, 0   // dense[:hi] holds every count, distinct of them not 0
	sparse := map[uint64]int{}
	var vs []float64
	return func(i int32) {
			vs = t.numbersOf(vs, i, f)
			for j, v := range vs {
				bits := math.Float64bits(v)
				if slices.ContainsFunc(vs[:j], func(w float64) bool { return math.Float64bits(w) == bits }) {
					continue
				}
				if n := int(v); float64(n) == v && n >= 0 && n < denseValues && bits != negativeZero {
					if dense == nil {
						dense = denseCounters.Get().(*denseCounts)
					}
					if dense[n]++; dense[n] == 1 {
						distinct++
					}
					hi = max(hi, n+1)
					continue
				}
				sparse[bits]++
			}
		}, func() map[string]int {
			out := make(map[string]int, len(sparse)+distinct)
			for bits, n := range sparse {
				out[index.ValueKey(math.Float64frombits(bits))] += n
			}
			if dense != nil {
				for v, n := range dense[:hi] {
					if n > 0 {
						out[index.ValueKey(float64(v))] += int(n)
					}
				}
				clear(dense[:hi])
				denseCounters.Put(dense)
			}
			return out
		}
}

// denseValues bounds the whole numbers valueCounter counts in an array
// rather than a map: seconds up to a few days, counts, ids.
const denseValues = 1 << 18

type denseCounts [denseValues]int32

// denseCounters recycles valueCounter's arrays, handed back cleared. An
// array grown per request to the largest value met was half of the
// productivity report's time at 100k (allocating, clearing and copying up
// to a megabyte for each of its facets).
var denseCounters = sync.Pool{New: func() any { return new(denseCounts) }}

var negativeZero = math.Float64bits(math.Copysign(0, -1))

// rowsAnswer reports whether the report rows of a company and kind hold
// every document: no Load is still filling them, and no document had more
// values than a row holds (table.overflow).
func (e *Engine) rowsAnswer(company int64, kind index.Kind) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.rowsComplete(company, kind)
}

// rowsComplete is rowsAnswer for callers holding the lock.
func (e *Engine) rowsComplete(company int64, kind index.Kind) bool {
	t := e.tables[tableKey{company, kind}]
	return e.reportsReady() && (t == nil || !t.overflow)
}

// errOverflow is a textless kind's answer when a document had more values
// than a row holds. Documents' values are bounded well below that (at most
// parley.MaxTags tags), so it is a bug, told rather than answered wrong.
var errOverflow = errors.New("lists: a document has more values than a report row holds")

// readRows takes the read lock once the report rows of a company and kind
// hold every document, and returns its unlock. For conversations, which
// the full engine holds too, rows still filling or overflowed are
// errUnsupported, so the router asks the full engine. A textless kind is
// the list engine's alone (see index.Router): it waits, as long as ctx
// lets it, for a fill under way, and fails when the fill failed.
func (e *Engine) readRows(ctx context.Context, company int64, kind index.Kind) (unlock func(), err error) {
	for {
		e.mu.RLock()
		fill := e.fill
		if fill == nil || fill.err != nil || fill.stopped || !kind.Textless() {
			break
		}
		e.mu.RUnlock()
		select {
		case <-fill.done: // ended; a newer Load may have begun another
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if e.rowsComplete(company, kind) {
		return e.mu.RUnlock, nil
	}
	defer e.mu.RUnlock()
	switch {
	case !kind.Textless():
		return nil, errUnsupported
	case e.fill != nil && e.fill.err != nil:
		return nil, fmt.Errorf("lists: fill the report rows: %w", e.fill.err)
	case e.fill != nil:
		return nil, errFillStopped // the engine closed
	}
	return nil, errOverflow
}
