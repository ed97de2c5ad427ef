package lists

import (
	"container/heap"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// predicate tells whether a list row matches a filter.
type predicate = func(*row) bool

// checkEvery is how many rows a search scans between looks at its context.
const checkEvery = 1 << 16

var errUnsupported = errors.New("lists: request needs the full engine")

// Supports reports whether the engine can answer r exactly as the full
// engine would: a conversation request with no scored query, whose filter
// and sort use only the fields rows hold; or a textless kind's request
// (searchTable), which the engine answers alone.
func (e *Engine) Supports(r index.Request) bool {
	if r.Kind.Textless() {
		_, _, err := tablePlan(r)
		return err == nil
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, _, err := e.listPlan(r)
	return err == nil
}

// listPlan is plan on the engine's list rows, errUnsupported while a
// fill still puts them (see rowFill); callers hold the read lock.
func (e *Engine) listPlan(r index.Request) (predicate, func(a, b *row) bool, error) {
	if e.fill != nil && e.fill.listRows {
		return nil, nil, errUnsupported
	}
	return plan(r, e.vocab)
}

// plan compiles a request into its predicate and its order, or
// errUnsupported; keywords are looked up in vocab, so callers hold the
// read lock while they use them.
func plan(r index.Request, vocab *vocabulary) (predicate, func(a, b *row) bool, error) {
	if r.Kind != index.Conversations || r.Query != nil {
		return nil, nil, errUnsupported
	}
	match := predicate(func(*row) bool { return true })
	if r.Filter != nil {
		var err error
		if match, err = compile(r.Filter, slots[*row](listSlots{vocab})); err != nil {
			return nil, nil, err
		}
	}
	before, err := order(r.Sort, vocab)
	if err != nil {
		return nil, nil, err
	}
	return match, before, nil
}

// Search answers a request Supports accepts: for conversations, one pass
// over the company's rows of the statuses the filter allows, keeping the
// best Offset+Limit in a bounded heap; for a textless kind, searchTable.
func (e *Engine) Search(ctx context.Context, r index.Request) (index.Result, error) {
	if err := ctx.Err(); err != nil {
		return index.Result{}, err
	}
	if r.Kind.Textless() {
		return e.searchTable(ctx, r)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	match, before, err := e.listPlan(r)
	if err != nil {
		return index.Result{}, err
	}
	keep := 0 // Limit 0 only counts
	if r.Limit > 0 {
		keep = r.Offset + r.Limit
	}
	best := &ranking{before: before}
	var runs [][]*row // ranked rows beside the heap's (order.go)
	total := 0

	offer := func(row *row) {
		switch {
		case len(best.rows) < keep:
			heap.Push(best, row)
		case keep > 0 && before(row, best.rows[0]):
			best.rows[0] = row
			heap.Fix(best, 0)
		}
	}

	statuses, narrowed := statusesOf(r.Filter)
	counts, countsOK := countable(r.Filter)
	fieldName, span, rangedOK := ranged(r.Filter, isListNumber)
	for status, p := range e.parts[r.Company] {
		if narrowed && !slices.Contains(statuses, status) {
			continue
		}
		switch {
		case len(p.rows) < minOrdered:
			// Small parts are scanned: an order would cost more than it saves.
		case countsOK && len(r.Sort) == 1:
			// Counted without a scan; the page is the first matches of
			// the order the list asks.
			if !counts.allows(status) {
				continue
			}
			total += counts.count(p)
			if keep == 0 {
				continue
			}
			// The order's rows come ranked: they make a run of their own,
			// merged with the others at the end, where pushing them
			// through the heap cost a comparison per level each. The
			// fresh rows, which may rank anywhere, go through the heap.
			o := p.order(r.Sort[0], before)
			run := make([]*row, 0, min(keep, len(p.rows)))
			p.walk(o, 0, len(o.idx), match, func(row *row) bool {
				run = append(run, row)
				return len(run) < keep
			}, offer)
			runs = append(runs, run)
			continue
		case rangedOK:
			// A selective range: only its run of the field's order.
			o := p.rangeOrder(fieldName, r.Sort, e.vocab)
			if from, to := o.vals.span(span); selective(to-from+len(o.fresh), len(p.rows)) {
				all := func(row *row) { total++; offer(row) }
				p.walk(o, from, to, match, func(row *row) bool { all(row); return true }, all)
				continue
			}
		}
		for i := range p.rows {
			if i%checkEvery == checkEvery-1 && ctx.Err() != nil {
				return index.Result{}, ctx.Err()
			}
			row := &p.rows[i]
			if match(row) {
				total++
				offer(row)
			}
		}
	}
	ranked := make([]*row, len(best.rows))
	for i := len(ranked) - 1; i >= 0; i-- {
		ranked[i] = heap.Pop(best).(*row)
	}
	if len(runs) > 0 {
		ranked = merge(append(runs, ranked), keep, before)
	}
	out := index.Result{Total: total, IDs: []string{}}
	for i := r.Offset; i < len(ranked); i++ {
		out.IDs = append(out.IDs, index.FormatID(int64(ranked[i].nums[fID])))
	}
	return out, nil
}

// ranking is a heap whose root is the row that ranks last, so a better row
// can replace it.
type ranking struct {
	rows   []*row
	before func(a, b *row) bool
}

func (h *ranking) Len() int           { return len(h.rows) }
func (h *ranking) Less(i, j int) bool { return h.before(h.rows[j], h.rows[i]) }
func (h *ranking) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *ranking) Push(x any)         { h.rows = append(h.rows, x.(*row)) }
func (h *ranking) Pop() any {
	last := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return last
}

// order builds "a ranks before b" the way the full engine sorts: each sort
// field by its value, missing values last whatever the direction, then the
// numeric id in the direction of the last sort. Keywords are spelled
// through vocab.
func order(sorts []index.Sort, vocab *vocabulary) (func(a, b *row) bool, error) {
	var keys []sortField
	desc := true
	for _, s := range sorts {
		desc = s.Desc
		if f, ok := numberFields[s.Field]; ok {
			keys = append(keys, sortField{f, -1, s.Desc})
			continue
		}
		if f, ok := keywordFields[s.Field]; ok {
			keys = append(keys, sortField{-1, f, s.Desc})
			continue
		}
		return nil, errUnsupported // score and text sorts
	}
	keys = append(keys, sortField{fID, -1, desc})
	return func(a, b *row) bool {
		for _, k := range keys {
			var av, bv sortValue
			if k.num >= 0 {
				av.num, av.has = a.value(k.num)
				bv.num, bv.has = b.value(k.num)
			} else {
				av.word, bv.word = vocab.word(a.words[k.word]), vocab.word(b.words[k.word])
				av.has, bv.has = a.words[k.word] != noWord, b.words[k.word] != noWord
			}
			if c := compareValues(av, bv, k.num < 0, k.desc); c != 0 {
				return c < 0
			}
		}
		return false
	}, nil
}

// sortField is one field of an order: its position among a row's numbers
// or among its keywords (the other is -1), and its direction.
type sortField struct {
	num, word int
	desc      bool
}

// sortValue is a row's value of one sort field (for a field of several
// values, its smallest).
type sortValue struct {
	num  float64
	word string
	has  bool
}

// compareValues compares two rows' values of one sort field as the full
// engine ranks them: missing values last whatever the direction, then by
// value, the keyword when word, else the number, in the direction asked.
func compareValues(a, b sortValue, word, desc bool) int {
	switch {
	case !a.has && !b.has:
		return 0
	case !a.has:
		return 1
	case !b.has:
		return -1
	}
	c := 0
	switch {
	case word:
		c = strings.Compare(a.word, b.word)
	case a.num < b.num:
		c = -1
	case a.num > b.num:
		c = 1
	}
	if desc {
		c = -c
	}
	return c
}

// slots are the fields of a row type R a filter may read: keyword
// matches and number values, looked up once when the filter is compiled.
// List rows (listSlots) and report rows (tableSlots) each have theirs;
// compile is shared.
type slots[R any] interface {
	// keyword is the predicate "the field holds value", ok false when rows
	// do not hold the field.
	keyword(field, value string) (match func(R) bool, ok bool)
	// inRange is the predicate "a value of the field is within r" (see
	// bounds), ok false when rows do not hold the field.
	inRange(field string, r bounds) (match func(R) bool, ok bool)
	// exists is the predicate "the field holds a value" (field:*), ok
	// false when rows cannot tell.
	exists(field string) (match func(R) bool, ok bool)
}

// compile turns a filter into a predicate over rows of type R, or
// errUnsupported when a node needs what the rows do not hold.
func compile[R any](n query.Node, s slots[R]) (func(R) bool, error) {
	switch n := n.(type) {
	case query.All:
		return func(R) bool { return true }, nil
	case query.Not:
		inner, err := compile(n.Node, s)
		if err != nil {
			return nil, err
		}
		return func(r R) bool { return !inner(r) }, nil
	case query.And:
		parts, err := compileAll(n.Nodes, s)
		if err != nil {
			return nil, err
		}
		return func(r R) bool {
			for _, p := range parts {
				if !p(r) {
					return false
				}
			}
			return true
		}, nil
	case query.Or:
		parts, err := compileAll(n.Nodes, s)
		if err != nil {
			return nil, err
		}
		return func(r R) bool {
			for _, p := range parts {
				if p(r) {
					return true
				}
			}
			return false
		}, nil
	case query.Keyword:
		if match, ok := s.keyword(n.Field, n.Value); ok {
			return match, nil
		}
	case query.NumberRange, query.TimeRange:
		field, b, _ := rangeOf(n)
		if match, ok := s.inRange(field, b); ok {
			return match, nil
		}
	case query.FieldExists:
		if match, ok := s.exists(n.Field); ok {
			return match, nil
		}
	}
	return nil, errUnsupported
}

func compileAll[R any](nodes []query.Node, s slots[R]) ([]func(R) bool, error) {
	out := make([]func(R) bool, 0, len(nodes))
	for _, n := range nodes {
		p, err := compile(n, s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// bounds are a range's: a nil bound is open. A row without a value never
// matches a range, as in the full engine.
type bounds struct {
	lo, hi         *float64
	loIncl, hiIncl bool
}

// holds reports whether v is within the bounds.
func (b bounds) holds(v float64) bool {
	if b.lo != nil && (v < *b.lo || (v == *b.lo && !b.loIncl)) {
		return false
	}
	if b.hi != nil && (v > *b.hi || (v == *b.hi && !b.hiIncl)) {
		return false
	}
	return true
}

// listSlots are the fields of list rows, their keywords numbered by vocab.
type listSlots struct{ vocab *vocabulary }

func (s listSlots) keyword(field, value string) (func(*row) bool, bool) {
	f, ok := keywordFields[field]
	if !ok && field != tagField {
		return nil, false
	}
	id, known := s.vocab.find(value)
	switch {
	case !known:
		return func(*row) bool { return false }, true // no row holds it
	case field == tagField:
		return func(r *row) bool { return slices.Contains(r.tags, id) }, true
	}
	return func(r *row) bool { return r.words[f] == id }, true
}

func (listSlots) inRange(field string, b bounds) (func(*row) bool, bool) {
	f, ok := numberFields[field]
	if !ok {
		return nil, false
	}
	return func(r *row) bool { return r.has&(1<<f) != 0 && b.holds(r.nums[f]) }, true
}

// exists is not asked of lists: their filters never test presence.
func (listSlots) exists(string) (func(*row) bool, bool) { return nil, false }

// statusesOf finds the statuses a filter allows when it says so at its top
// level (a status, or an OR of statuses, ANDed with the rest), so only
// those partitions are scanned. narrowed is false when any status may
// match.
func statusesOf(n query.Node) (statuses []string, narrowed bool) {
	if s, ok := statusSet(n); ok {
		return s, true
	}
	if and, ok := n.(query.And); ok {
		for _, c := range and.Nodes {
			if s, ok := statusesOf(c); ok {
				return s, true
			}
		}
	}
	return nil, false
}
