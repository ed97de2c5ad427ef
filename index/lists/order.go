package lists

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"

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
	// vals are the sort field's values of the first places of idx, those
	// that hold one (number fields only; rows without sort last).
	vals  sortedValues
	built int                // len(rows) at the build
	stale []uint64           // bit i: row index i's place is out of date
	fresh map[int64]struct{} // ids whose current row the order misses
}

// sortedValues are values in ascending order, or descending when desc.
type sortedValues struct {
	vals []float64
	desc bool
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
		if behind(len(o.fresh), o.built) {
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
		stale: make([]uint64, (len(p.rows)+63)/64), fresh: map[int64]struct{}{}, vals: sortedValues{desc: key.Desc}}
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
		o.vals.vals = make([]float64, 0, len(o.idx))
		for _, i := range o.idx {
			v, has := p.rows[i].value(f)
			if !has {
				break // rows without a value sort last
			}
			o.vals.vals = append(o.vals.vals, v)
		}
	}
	if p.orders == nil {
		p.orders = map[orderKey]*rowOrder{}
	}
	p.orders[key] = o
	return o
}

func (o *rowOrder) isStale(i int32) bool { return o.stale[i/64]&(1<<(i%64)) != 0 }

// span is the run of places whose value may lie within b: the values
// between b's bounds (inclusive, so a superset).
func (o sortedValues) span(b bounds) (from, to int) {
	// below(x, v) tells whether a place's value x comes before v.
	below := func(x, v float64) bool { return x < v }
	first, last := b.lo, b.hi
	if o.desc {
		below = func(x, v float64) bool { return x > v }
		first, last = b.hi, b.lo
	}
	if first != nil {
		from, _ = slices.BinarySearchFunc(o.vals, *first, func(x, v float64) int {
			if below(x, v) {
				return -1
			}
			return 1
		})
	}
	to = len(o.vals)
	if last != nil {
		to, _ = slices.BinarySearchFunc(o.vals, *last, func(x, v float64) int {
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
// number tells which fields are numbers.
func ranged(n query.Node, number func(string) bool) (field string, b bounds, ok bool) {
	if and, isAnd := n.(query.And); isAnd {
		for _, child := range and.Nodes {
			if field, b, ok := ranged(child, number); ok {
				return field, b, true
			}
		}
		return "", bounds{}, false
	}
	if field, b, ok := rangeOf(n); ok && number(field) {
		return field, b, true
	}
	return "", bounds{}, false
}

// rangeOf reads a number or date range node as its field and bounds
// (dates in Unix milliseconds, as rows hold them).
func rangeOf(n query.Node) (field string, b bounds, ok bool) {
	switch n := n.(type) {
	case query.NumberRange:
		return n.Field, bounds{n.Min, n.Max, n.MinInclusive, n.MaxInclusive}, true
	case query.TimeRange:
		lo, hi := index.MillisBounds(n)
		return n.Field, bounds{lo, hi, n.FromInclusive, n.ToInclusive}, true
	}
	return "", bounds{}, false
}

// selective tells whether reading n places of an order beats scanning all
// rows: under an eighth of them, since an order's places are read out of
// row order.
func selective(n, all int) bool { return n < all/8 }

// behind tells whether an order built over built rows has seen too many
// changed since (a sixteenth) to be worth keeping.
func behind(changed, built int) bool { return changed > built/16+256 }

// isListNumber tells whether list rows hold a number field.
func isListNumber(field string) bool {
	_, ok := numberFields[field]
	return ok
}

// rangeOrder is an order of the number field: the list's own when it
// sorts by the field, else one already built in either direction, else
// ascending.
func (p *part) rangeOrder(field string, sorts []index.Sort, vocab *vocabulary) *rowOrder {
	key := orderKey{Field: field}
	if len(sorts) == 1 && sorts[0].Field == field {
		key = sorts[0]
	} else {
		p.mu.Lock()
		key.Desc = p.orders[orderKey{Field: field, Desc: true}] != nil
		p.mu.Unlock()
	}
	before, _ := order([]index.Sort{key}, vocab) // a number field always has an order
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

// tableOrders are a report table's orders, one per number field a range
// asked for: a report's period is a range on a date, and at a million
// conversations a 30-day report read every row of the company's years.
type tableOrders struct {
	mu sync.Mutex // scans build orders holding the engine's read lock only
	by map[int]*tableOrder
}

// tableOrder is a table's rows with exactly one value of a number field,
// sorted by it, as of its build. Rows never change in place (a put
// appends, a remove marks the row dead), so the order stays true of its
// rows: dead ones are skipped, and rows from built on, added since, are
// checked one by one, as are rows with several values.
type tableOrder struct {
	rows  []int32
	vals  sortedValues
	many  []int32
	built int
}

// order returns t's order by number slot f, building it when missing or
// when rows added since its build pass a sixteenth of it.
func (t *table) order(f int) *tableOrder {
	t.sorted.mu.Lock()
	defer t.sorted.mu.Unlock()
	if o := t.sorted.by[f]; o != nil && !behind(t.size()-o.built, o.built) {
		return o
	}
	type place struct {
		row int32
		val float64
	}
	var places []place
	o := &tableOrder{built: t.size()}
	for i := range t.size() {
		if !t.live(i) {
			continue
		}
		switch codes := t.codesOf(int32(i), f); len(codes) {
		case 0: // never in a range
		case 1:
			places = append(places, place{int32(i), t.value(f, codes[0])})
		default:
			o.many = append(o.many, int32(i))
		}
	}
	slices.SortFunc(places, func(a, b place) int { return cmp.Compare(a.val, b.val) })
	o.rows = make([]int32, len(places))
	o.vals.vals = make([]float64, len(places))
	for k, p := range places {
		o.rows[k], o.vals.vals[k] = p.row, p.val
	}
	if t.sorted.by == nil {
		t.sorted.by = map[int]*tableOrder{}
	}
	t.sorted.by[f] = o
	return o
}

// candidates are the rows of t that a filter with a selective range on a
// number field may match, in row order (so aggregates add them up in the
// order a scan does, to the last bit of a sum); ok is false when a scan
// is cheaper.
func (t *table) candidates(filter query.Node) (rows []int32, ok bool) {
	if t.size() < minOrdered {
		return nil, false
	}
	field, b, ok := ranged(filter, func(name string) bool { _, ok := t.s.numbers[name]; return ok })
	if !ok {
		return nil, false
	}
	o := t.order(t.s.numbers[field])
	from, to := o.vals.span(b)
	added := t.size() - o.built
	if !selective(to-from+len(o.many)+added, t.size()) {
		return nil, false
	}
	// Marked in a bitmap and read back in order: sorting them was a sixth
	// of the e-mail report at 100k.
	marks := make([]uint64, (t.size()+63)/64)
	mark := func(i int32) { marks[i>>6] |= 1 << (i & 63) }
	for _, i := range o.rows[from:to] {
		mark(i)
	}
	for _, i := range o.many {
		mark(i)
	}
	for i := o.built; i < t.size(); i++ {
		mark(int32(i))
	}
	rows = make([]int32, 0, to-from+len(o.many)+added)
	for w, word := range marks {
		for ; word != 0; word &= word - 1 {
			rows = append(rows, int32(w<<6+bits.TrailingZeros64(word)))
		}
	}
	return rows, true
}
