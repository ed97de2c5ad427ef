package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/parley/parley/query"
)

// AggregateRequest asks an engine for figures over the documents matching
// a filter, in one pass: the documents are cut into buckets by a number
// field (a report's time steps) and, within a bucket, into groups by the
// values of fields (per user, per type); each group gets its count, the
// sums of number fields and the distinct values of fields. A report's
// whole series is one request where facets took one per step.
type AggregateRequest struct {
	Kind    Kind
	Company int64
	Filter  query.Node // nil means every document of the company
	// By buckets the documents by a number (or date) field: bucket i
	// holds the values v with Edges[i] <= v < Edges[i+1]. A document is
	// in every bucket holding one of its values, and in none when it has
	// none there. Without By every document is in bucket 0.
	By    string
	Edges []float64
	// GroupBy splits each bucket by the values of keyword or Valued number
	// fields: one group per combination of values a document has; a
	// document without a value of one of them is in no group.
	GroupBy []string
	// Sums are number fields to add up per group.
	Sums []string
	// Distinct are keyword or Valued number fields whose distinct values
	// are counted per group.
	Distinct []string
}

// AggregateResult holds the groups that have documents, in bucket then
// key order.
type AggregateResult struct {
	Groups []Group
}

// Group is the figures of the documents of one bucket and one combination
// of GroupBy values.
type Group struct {
	Bucket int
	Key    []string // one value per GroupBy field; numbers as ValueKey
	Count  int
	Sums   map[string]Sum
	// Distinct counts the distinct values of each Distinct field.
	Distinct map[string]int
}

// Sum is a number field's total over a group's documents: each distinct
// value of a document counts once, as in a Values facet (so that figures
// from facets and from aggregates agree), and Count says how many values
// were added.
type Sum struct {
	Count int
	Total float64
}

// Aggregator is implemented by engines that can answer aggregate requests.
type Aggregator interface {
	Aggregate(ctx context.Context, r AggregateRequest) (AggregateResult, error)
}

// CheckAggregate rejects a request engines cannot answer alike: fields
// the kind does not have, distinct or grouped numbers that are not
// Valued, and edges out of order.
func CheckAggregate(r AggregateRequest) error {
	number := func(name string) error {
		if f, ok := FieldOf(r.Kind, name); !ok || f.Type != NumberField {
			return fmt.Errorf("index: aggregate: %q is not a number field of %s", name, r.Kind)
		}
		return nil
	}
	valued := func(name string) error {
		f, ok := FieldOf(r.Kind, name)
		switch {
		case !ok || f.Type == TextField:
			return fmt.Errorf("index: aggregate: %q is not a keyword or number field of %s", name, r.Kind)
		case f.Type == NumberField && !f.Valued:
			return fmt.Errorf("index: aggregate: number field %q is not Valued", name)
		}
		return nil
	}
	if r.By != "" {
		if err := number(r.By); err != nil {
			return err
		}
		if len(r.Edges) < 2 || !slices.IsSorted(r.Edges) {
			return fmt.Errorf("index: aggregate: the edges of %q are fewer than two or out of order", r.By)
		}
	}
	for _, name := range r.Sums {
		if err := number(name); err != nil {
			return err
		}
	}
	for _, name := range append(slices.Clone(r.GroupBy), r.Distinct...) {
		if err := valued(name); err != nil {
			return err
		}
	}
	return nil
}

// BucketOf is the bucket of a request holding v: the last edge at or
// below v starts it (equal edges make empty buckets); -1 when none does.
func BucketOf(r AggregateRequest, v float64) int {
	if r.By == "" {
		return 0
	}
	i := sort.Search(len(r.Edges), func(i int) bool { return r.Edges[i] > v }) - 1
	if i < 0 || i >= len(r.Edges)-1 {
		return -1
	}
	return i
}

// Groups accumulates the groups of an aggregate, document by document;
// engines that walk documents themselves (scan, bleveindex, lists) share
// it, so they agree on what a group holds. A report's pass adds hundreds
// of thousands of documents, so Add allocates only for a new group.
type Groups struct {
	r      AggregateRequest
	groups map[string]*groupState // by groupID
	// Scratch, reused document to document.
	buckets []int
	values  [][]string // per GroupBy field, the document's values
	ids     [][]uint64 // the same, of KeyIDs documents
	at      []int      // per GroupBy field, the value of the combination
	key     []string
	keyIDs  []uint64
	id      []byte
}

type groupState struct {
	Group
	sums []Sum                 // per Sums field
	seen []map[string]struct{} // per Distinct field
	ids  []map[uint64]struct{} // per Distinct field, when documents are KeyIDs
}

// NewGroups starts the groups of a request.
func NewGroups(r AggregateRequest) *Groups {
	n := len(r.GroupBy)
	return &Groups{r: r, groups: map[string]*groupState{}, values: make([][]string, n), ids: make([][]uint64, n),
		at: make([]int, n), key: make([]string, n), keyIDs: make([]uint64, n)}
}

// DocValues are one document's values of the fields an aggregate reads:
// numbers for By and Sums, keys (keywords, ValueKey of numbers) for
// GroupBy and Distinct.
type DocValues interface {
	Numbers(field string) []float64
	Keys(field string) []string
}

// KeyIDs are DocValues that also name a field's keys by numbers, one per
// distinct key of the field (an interned keyword's index, a number's
// bits): groups are then found and distinct values counted by numbers,
// and a key is spelt (KeyOf) only when its group is new.
type KeyIDs interface {
	DocValues
	KeyIDs(field string) []uint64
	KeyOf(field string, id uint64) string
}

// Add counts a document into its groups: one per bucket and combination
// of its GroupBy values.
func (g *Groups) Add(d DocValues) {
	buckets := g.buckets[:0]
	if g.r.By == "" {
		buckets = append(buckets, 0)
	} else {
		for _, v := range d.Numbers(g.r.By) {
			if b := BucketOf(g.r, v); b >= 0 && !slices.Contains(buckets, b) {
				buckets = append(buckets, b)
			}
		}
	}
	g.buckets = buckets
	if len(buckets) == 0 {
		return
	}
	kd, byID := d.(KeyIDs)
	count := func(i int) int { return len(g.values[i]) }
	if byID {
		count = func(i int) int { return len(g.ids[i]) }
	}
	for i, field := range g.r.GroupBy {
		if byID {
			g.ids[i] = distinct(kd.KeyIDs(field))
		} else {
			g.values[i] = distinct(d.Keys(field))
		}
		if count(i) == 0 {
			return
		}
		g.at[i] = 0
	}
	for {
		for i := range g.at {
			if byID {
				g.keyIDs[i] = g.ids[i][g.at[i]]
			} else {
				g.key[i] = g.values[i][g.at[i]]
			}
		}
		for _, b := range buckets {
			g.addTo(b, d)
		}
		// The next combination, the last field's values turning fastest.
		i := len(g.at) - 1
		for ; i >= 0; i-- {
			if g.at[i]++; g.at[i] < count(i) {
				break
			}
			g.at[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// addTo counts a document into the group of a bucket and g.key (g.keyIDs
// for KeyIDs documents).
func (g *Groups) addTo(bucket int, d DocValues) {
	id := binary.LittleEndian.AppendUint32(g.id[:0], uint32(bucket))
	kd, byID := d.(KeyIDs)
	if byID {
		for _, k := range g.keyIDs {
			id = binary.LittleEndian.AppendUint64(id, k)
		}
	} else {
		for _, k := range g.key {
			id = append(append(id, k...), 0)
		}
	}
	g.id = id
	s := g.groups[string(id)]
	if s == nil {
		if byID {
			for i, field := range g.r.GroupBy {
				g.key[i] = kd.KeyOf(field, g.keyIDs[i])
			}
		}
		s = &groupState{Group: Group{Bucket: bucket, Key: slices.Clone(g.key)},
			sums: make([]Sum, len(g.r.Sums)), seen: make([]map[string]struct{}, len(g.r.Distinct)),
			ids: make([]map[uint64]struct{}, len(g.r.Distinct))}
		for i := range s.seen {
			s.seen[i], s.ids[i] = map[string]struct{}{}, map[uint64]struct{}{}
		}
		g.groups[string(id)] = s
	}
	s.Count++
	for i, f := range g.r.Sums {
		for _, v := range distinct(d.Numbers(f)) {
			s.sums[i].Count++
			s.sums[i].Total += v
		}
	}
	if ids, ok := d.(KeyIDs); ok {
		for i, f := range g.r.Distinct {
			for _, v := range ids.KeyIDs(f) {
				s.ids[i][v] = struct{}{}
			}
		}
		return
	}
	for i, f := range g.r.Distinct {
		for _, v := range d.Keys(f) {
			s.seen[i][v] = struct{}{}
		}
	}
}

// Result is the groups counted, in bucket then key order.
func (g *Groups) Result() AggregateResult {
	out := AggregateResult{Groups: []Group{}}
	for _, s := range g.groups {
		s.Sums, s.Distinct = map[string]Sum{}, map[string]int{}
		for i, f := range g.r.Sums {
			s.Sums[f] = s.sums[i]
		}
		for i, f := range g.r.Distinct {
			s.Distinct[f] = len(s.seen[i]) + len(s.ids[i]) // one of them is empty
		}
		out.Groups = append(out.Groups, s.Group)
	}
	SortGroups(out.Groups)
	return out
}

// SortGroups puts groups in bucket then key order.
func SortGroups(groups []Group) {
	slices.SortFunc(groups, func(a, b Group) int {
		if a.Bucket != b.Bucket {
			return a.Bucket - b.Bucket
		}
		return slices.Compare(a.Key, b.Key)
	})
}

// distinct is values without repeats, sorted.
func distinct[T cmp.Ordered](values []T) []T {
	if len(values) < 2 {
		return values
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}
