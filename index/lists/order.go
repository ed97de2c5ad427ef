package lists

import (
	"slices"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Sorted orders: a part's rows kept sorted by a sort field, so that a list
// need not scan every row of a company.
//
// A scan costs a pass over every row of the statuses asked: 13 ms for the
// 366,000 conversations of a company of a million. Two list shapes can do
// with far fewer rows:
//   - a list whose filter is statuses and mailboxes only (an inbox, "all
//     conversations"): its total is the part's per-mailbox counts, and its
//     page the first rows of the order that match;
//   - a list with a selective range on a number field (modifiedSince, a
//     week of createdAt): its rows are a run of the field's order, found
//     by binary search.
//
// Orders are built on first use and kept while writes are few: a write
// marks the row's place in each order out of date and lists its id as
// fresh. A search skips the out-of-date places and checks the fresh rows
// one by one; once the fresh rows pass a sixteenth of the order's, the
// order is dropped and the next search builds it again.

// rowOrder is a part's rows, by index, as one sort put them when it was
// built.
type rowOrder struct {
	idx []int32 // row indexes, in the order
	// vals are the sort field's values of idx (number fields only); the
	// first present of them hold a value, the rest none.
	vals    []float64
	present int
	built   int                // len(rows) at the build
	stale   []uint64           // bit i: row index i's place is out of date
	fresh   map[int64]struct{} // ids whose current row the order misses
	numeric bool               // vals are held (a number field's order)
	desc    bool
}

// minOrdered is the fewest rows a part must have for searches to use
// orders; tests lower it.
var minOrdered = 4096

// orderKey names an order: a field and a direction.
type orderKey = index.Sort

// touch records that row i, holding id, changed (was put, moved or
// removed); orders that fall too far behind are dropped. Callers hold the
// engine's write lock.
func (p *part) touch(i int, id int64) {
	for key, o := range p.orders {
		if i < o.built {
			o.stale[i/64] |= 1 << (i % 64)
		}
		o.fresh[id] = struct{}{}
		if len(o.fresh) > o.built/16+256 {
			delete(p.orders, key)
		}
	}
}

// order returns the part's order for key, building it when missing.
// Callers hold the engine's read lock: p.mu keeps two searches from
// building at once.
func (p *part) order(key orderKey, before func(a, b *row) bool) *rowOrder {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o := p.orders[key]; o != nil {
		return o
	}
	o := &rowOrder{idx: make([]int32, len(p.rows)), built: len(p.rows),
		stale: make([]uint64, (len(p.rows)+63)/64), fresh: map[int64]struct{}{}, desc: key.Desc}
	for i := range o.idx {
		o.idx[i] = int32(i)
	}
	slices.SortFunc(o.idx, func(a, b int32) int {
		switch {
		case before(&p.rows[a], &p.rows[b]):
			return -1
		case before(&p.rows[b], &p.rows[a]):
			return 1
		}
		return 0
	})
	if f, ok := numberFields[key.Field]; ok {
		o.numeric = true
		o.vals = make([]float64, len(o.idx))
		for k, i := range o.idx {
			v, has := p.rows[i].value(f)
			if !has {
				break // rows without a value sort last
			}
			o.vals[k] = v
			o.present++
		}
	}
	if p.orders == nil {
		p.orders = map[orderKey]*rowOrder{}
	}
	p.orders[key] = o
	return o
}

func (o *rowOrder) isStale(i int32) bool { return o.stale[i/64]&(1<<(i%64)) != 0 }

// span is the run of the order's places whose value may lie within b:
// the present values between b's bounds (inclusive, so a superset).
func (o *rowOrder) span(b bounds) (from, to int) {
	vals := o.vals[:o.present]
	// below(v) tells whether a place's value comes before v in the order.
	below := func(x, v float64) bool { return x < v }
	if o.desc {
		below = func(x, v float64) bool { return x > v }
	}
	first, last := b.lo, b.hi
	if o.desc {
		first, last = b.hi, b.lo
	}
	if first != nil {
		from, _ = slices.BinarySearchFunc(vals, *first, func(x, v float64) int {
			if below(x, v) {
				return -1
			}
			return 1
		})
	}
	to = len(vals)
	if last != nil {
		to, _ = slices.BinarySearchFunc(vals, *last, func(x, v float64) int {
			if below(v, x) {
				return 1
			}
			return -1
		})
	}
	return from, max(from, to)
}

// walk offers the part's rows in places [from, to) of the order that are
// up to date and match, in the order, until ordered says it has enough;
// then it offers the fresh rows that match, which may rank anywhere, to
// fresh.
func (p *part) walk(o *rowOrder, from, to int, match predicate, ordered func(*row) bool, fresh func(*row)) {
	for _, i := range o.idx[from:to] {
		if o.isStale(i) {
			continue
		}
		if r := &p.rows[i]; match(r) && !ordered(r) {
			break
		}
	}
	for id := range o.fresh {
		if i, ok := p.pos[id]; ok {
			if r := &p.rows[i]; match(r) {
				fresh(r)
			}
		}
	}
}

// counted is what a filter says about a part's rows when it says nothing
// beyond statuses and mailboxes: then a part's matches are counted without
// a scan. statuses are the allowed sets (a row must be in each); mailboxes,
// when any, the allowed mailbox ids.
type counted struct {
	statuses  [][]string
	mailboxes []float64
	any       bool // no mailbox condition
}

// countable reads a filter as statuses and mailboxes only, or reports
// false.
func countable(n query.Node) (counted, bool) {
	c := counted{any: true}
	var visit func(query.Node) bool
	visit = func(n query.Node) bool {
		switch n := n.(type) {
		case nil, query.All:
			return true
		case query.And:
			for _, child := range n.Nodes {
				if !visit(child) {
					return false
				}
			}
			return true
		}
		if s, ok := statusSet(n); ok {
			c.statuses = append(c.statuses, s)
			return true
		}
		if m, ok := mailboxSet(n); ok {
			if c.any {
				c.mailboxes, c.any = m, false
			} else {
				c.mailboxes = slices.DeleteFunc(c.mailboxes, func(v float64) bool { return !slices.Contains(m, v) })
			}
			return true
		}
		return false
	}
	return c, visit(n)
}

// allows tells whether rows of status may match.
func (c counted) allows(status string) bool {
	for _, s := range c.statuses {
		if !slices.Contains(s, status) {
			return false
		}
	}
	return true
}

// count is the part's rows the filter matches.
func (c counted) count(p *part) int {
	if c.any {
		return len(p.rows)
	}
	n := 0
	for _, m := range slices.Compact(slices.Sorted(slices.Values(c.mailboxes))) {
		n += p.mailboxes[m]
	}
	return n
}

// statusSet reads a status keyword, or an OR of them.
func statusSet(n query.Node) ([]string, bool) {
	var out []string
	for _, leaf := range orLeaves(n) {
		k, ok := leaf.(query.Keyword)
		if !ok || k.Field != "status" {
			return nil, false
		}
		out = append(out, k.Value)
	}
	return out, true
}

// mailboxSet reads a mailbox id equality, or an OR of them.
func mailboxSet(n query.Node) ([]float64, bool) {
	var out []float64
	for _, leaf := range orLeaves(n) {
		r, ok := leaf.(query.NumberRange)
		if !ok || r.Field != "mailboxId" || r.Min == nil || r.Max == nil || *r.Min != *r.Max || !r.MinInclusive || !r.MaxInclusive {
			return nil, false
		}
		out = append(out, *r.Min)
	}
	return out, true
}

// orLeaves are an OR's children, or the node itself.
func orLeaves(n query.Node) []query.Node {
	if or, ok := n.(query.Or); ok {
		return or.Nodes
	}
	return []query.Node{n}
}

// ranged finds a range on a number field among a filter's top-level
// conditions (ANDed with the rest): every match has a value within it.
func ranged(n query.Node) (field string, b bounds, ok bool) {
	switch n := n.(type) {
	case query.And:
		for _, child := range n.Nodes {
			if field, b, ok := ranged(child); ok {
				return field, b, true
			}
		}
	case query.NumberRange:
		if _, ok := numberFields[n.Field]; ok {
			return n.Field, bounds{n.Min, n.Max, n.MinInclusive, n.MaxInclusive}, true
		}
	case query.TimeRange:
		if _, ok := numberFields[n.Field]; ok {
			lo, hi := index.MillisBounds(n)
			return n.Field, bounds{lo, hi, n.FromInclusive, n.ToInclusive}, true
		}
	}
	return "", bounds{}, false
}

// rangeOrder is an order of the number field: the list's own when it
// sorts by the field, else one already built in either direction, else
// ascending.
func (p *part) rangeOrder(field string, sorts []index.Sort) *rowOrder {
	key := orderKey{Field: field}
	if len(sorts) == 1 && sorts[0].Field == field {
		key = sorts[0]
	} else {
		p.mu.Lock()
		key.Desc = p.orders[orderKey{Field: field, Desc: true}] != nil
		p.mu.Unlock()
	}
	before, _ := order([]index.Sort{key}) // a number field always has an order
	return p.order(key, before)
}

// merge takes the first keep rows of ranked runs.
func merge(runs [][]*row, keep int, before func(a, b *row) bool) []*row {
	out := make([]*row, 0, keep)
	for len(out) < keep {
		best := -1
		for i, run := range runs {
			if len(run) > 0 && (best < 0 || before(run[0], runs[best][0])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, runs[best][0])
		runs[best] = runs[best][1:]
	}
	return out
}
