package query

import (
	"errors"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Check resolves a syntax tree from Parse against a schema into query nodes
// (Match, Phrase, Keyword, Prefix, NumberRange, TimeRange, FieldExists,
// And, Or, Not). Date math is resolved against now. Query nodes already in
// the tree pass through unchanged, so programmatic filters may be mixed in.
// The error, if any, is an *Error with the column of the offending clause.
func Check(n Node, s Schema, now time.Time) (Node, error) {
	c := checker{schema: s, now: now.UTC()}
	q, err := c.node(n)
	if err != nil {
		return nil, err
	}
	return q, nil
}

type checker struct {
	schema Schema
	now    time.Time
}

func (c checker) node(n Node) (Node, *Error) {
	switch n := n.(type) {
	case nil:
		return nil, &Error{Column: 1, Message: "empty query"}
	case And:
		nodes, err := c.nodes(n.Nodes)
		if err != nil {
			return nil, err
		}
		return AllOf(nodes...), nil
	case Or:
		nodes, err := c.nodes(n.Nodes)
		if err != nil {
			return nil, err
		}
		return newOr(nodes), nil
	case Not:
		inner, err := c.node(n.Node)
		if err != nil {
			return nil, err
		}
		return Not{Node: inner}, nil
	case Field:
		if n.Field == "" {
			return c.defaults(n)
		}
		spec, err := c.lookup(n.Field, n.Column)
		if err != nil {
			return nil, err
		}
		q, _, err := c.value(spec, n)
		return q, err
	case Range:
		return c.rangeNode(n)
	case Exists:
		spec, err := c.lookup(n.Field, n.Column)
		if err != nil {
			return nil, err
		}
		return perTarget(spec, func(t string) Node { return FieldExists{Field: t} }), nil
	default:
		return n, nil
	}
}

func (c checker) nodes(in []Node) ([]Node, *Error) {
	out := make([]Node, 0, len(in))
	for _, n := range in {
		q, err := c.node(n)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// defaults searches a bare term in every default field that can hold it: a
// number or date default field is skipped when the term is not one.
func (c checker) defaults(f Field) (Node, *Error) {
	var nodes []Node
	for _, spec := range c.schema.DefaultFields() {
		q, fits, err := c.value(spec, f)
		if !fits {
			continue
		}
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, q)
	}
	if len(nodes) == 0 {
		return nil, newError(f.Column, "no default field can search "+strconv.Quote(f.Value), ", name a field as in field:value")
	}
	return newOr(nodes), nil
}

func (c checker) lookup(name string, column int) (FieldSpec, *Error) {
	if name == "" {
		return FieldSpec{}, newError(column, "missing field name", "")
	}
	spec, ok := c.schema.Lookup(name)
	if ok {
		return spec, nil
	}
	hint := ""
	if s := suggest(name, c.schema.Names()); s != "" {
		hint = "; did you mean " + strconv.Quote(s) + "?"
	}
	return FieldSpec{}, newError(column, "unknown field "+strconv.Quote(name), hint)
}

// value turns `field:value` into query nodes. fits is false when the value
// cannot be of the field's type at all (a word in a number field); that is
// an error for a named field and a reason to skip a default field.
func (c checker) value(spec FieldSpec, f Field) (q Node, fits bool, err *Error) {
	switch spec.Type {
	case Text:
		return perTarget(spec, func(t string) Node {
			switch {
			case f.Wildcard:
				return Prefix{Field: t, Value: strings.ToLower(f.Value)}
			case f.Quoted && spec.QuotedPhrase:
				return Phrase{Field: t, Text: f.Value}
			default:
				return Match{Field: t, Text: f.Value, Exact: f.Quoted}
			}
		}), true, nil
	case KeywordType:
		if spec.Values != nil {
			return c.closedValue(spec, f)
		}
		return perTarget(spec, func(t string) Node {
			switch {
			case spec.Contains:
				return Contains{Field: t, Value: strings.ToLower(f.Value)}
			case f.Wildcard:
				return Prefix{Field: t, Value: strings.ToLower(f.Value)}
			}
			return Keyword{Field: t, Value: strings.ToLower(f.Value)}
		}), true, nil
	case Bool:
		v := strings.ToLower(f.Value)
		if f.Wildcard || (v != "true" && v != "false") {
			return nil, false, newError(f.Column, "invalid value "+quoteInput(f)+" for field "+strconv.Quote(f.Field), ", expected true or false")
		}
		return perTarget(spec, func(t string) Node { return Keyword{Field: t, Value: v} }), true, nil
	case Number:
		v, ok := parseNumber(f.Value)
		if f.Wildcard || !ok {
			return nil, false, newError(f.Column, "invalid number "+quoteInput(f)+" for field "+strconv.Quote(f.Field), "")
		}
		return perTarget(spec, func(t string) Node {
			return Equal(t, v)
		}), true, nil
	case Date:
		d, derr := parseDate(f.Value, c.now)
		if f.Wildcard || derr != nil {
			return nil, false, dateError(derr, quoteInput(f), f.Field, f.Column)
		}
		from, to := d.t, d.t
		toInclusive := d.unit == ""
		if !toInclusive {
			to = d.end()
		}
		return perTarget(spec, func(t string) Node {
			return TimeRange{Field: t, From: &from, To: &to, FromInclusive: true, ToInclusive: toInclusive}
		}), true, nil
	}
	return nil, false, newError(f.Column, "field "+strconv.Quote(f.Field)+" has an unknown type", "")
}

// closedValue turns a value of a closed keyword field into the stored
// values it stands for; a wildcard takes every accepted value it prefixes.
// A value outside the set is an error, with the closest accepted value or
// else the whole set.
func (c checker) closedValue(spec FieldSpec, f Field) (Node, bool, *Error) {
	v := strings.ToLower(f.Value)
	var stored []string
	for _, accepted := range slices.Sorted(maps.Keys(spec.Values)) {
		if accepted == v || f.Wildcard && strings.HasPrefix(accepted, v) {
			for _, s := range spec.Values[accepted] {
				if !slices.Contains(stored, s) {
					stored = append(stored, s)
				}
			}
		}
	}
	if len(stored) == 0 {
		accepted := slices.Sorted(maps.Keys(spec.Values))
		hint := ", expected one of: " + strings.Join(accepted, ", ")
		if s := suggest(f.Value, accepted); s != "" && !f.Wildcard {
			hint = "; did you mean " + strconv.Quote(s) + "?"
		}
		return nil, false, newError(f.Column, "invalid value "+quoteInput(f)+" for field "+strconv.Quote(f.Field), hint)
	}
	nodes := make([]Node, 0, len(stored))
	for _, s := range stored {
		nodes = append(nodes, perTarget(spec, func(t string) Node { return Keyword{Field: t, Value: s} }))
	}
	return newOr(nodes), true, nil
}

// quoteInput quotes a value as written, wildcard included, for messages.
func quoteInput(f Field) string {
	if f.Wildcard {
		return strconv.Quote(f.Value + "*")
	}
	return strconv.Quote(f.Value)
}

func (c checker) rangeNode(r Range) (Node, *Error) {
	if r.Field == "" {
		return nil, newError(r.Column, "range without a field", "")
	}
	spec, err := c.lookup(r.Field, r.Column)
	if err != nil {
		return nil, err
	}
	switch spec.Type {
	case Number:
		lo, err := c.numberBound(r, r.Lower, r.LowerOpen)
		if err != nil {
			return nil, err
		}
		hi, err := c.numberBound(r, r.Upper, r.UpperOpen)
		if err != nil {
			return nil, err
		}
		return perTarget(spec, func(t string) Node {
			return NumberRange{Field: t, Min: lo, Max: hi, MinInclusive: lo != nil && r.LowerInclusive, MaxInclusive: hi != nil && r.UpperInclusive}
		}), nil
	case Date:
		return c.timeRange(spec, r)
	}
	kind := map[Type]string{Text: "text", KeywordType: "keyword", Bool: "bool"}[spec.Type]
	return nil, newError(r.Column, "range not allowed on "+kind+" field "+strconv.Quote(r.Field), "")
}

func (c checker) numberBound(r Range, v string, open bool) (*float64, *Error) {
	if open {
		return nil, nil
	}
	n, ok := parseNumber(v)
	if !ok {
		return nil, newError(r.Column, "invalid number "+strconv.Quote(v)+" for field "+strconv.Quote(r.Field), "")
	}
	return &n, nil
}

// timeRange resolves a date range. A bound that names a period (2014,
// NOW/DAY) is widened or narrowed by its bracket: an inclusive bound takes
// the whole period in, an exclusive one leaves it all out, so
// [2014 TO 2015} is 2014-01-01 <= t < 2015-01-01 and [2014 TO 2014-12-01]
// ends at the end of December 1st.
func (c checker) timeRange(spec FieldSpec, r Range) (Node, *Error) {
	var from, to *time.Time
	var fromInclusive, toInclusive bool
	if !r.LowerOpen {
		d, err := parseDate(r.Lower, c.now)
		if err != nil {
			return nil, dateError(err, strconv.Quote(r.Lower), r.Field, r.Column)
		}
		t := d.t
		fromInclusive = r.LowerInclusive
		if d.unit != "" {
			if !r.LowerInclusive {
				t = d.end()
			}
			fromInclusive = true
		}
		from = &t
	}
	if !r.UpperOpen {
		d, err := parseDate(r.Upper, c.now)
		if err != nil {
			return nil, dateError(err, strconv.Quote(r.Upper), r.Field, r.Column)
		}
		t := d.t
		toInclusive = r.UpperInclusive
		if d.unit != "" {
			if r.UpperInclusive {
				t = d.end()
			}
			toInclusive = false
		}
		to = &t
	}
	return perTarget(spec, func(t string) Node {
		return TimeRange{Field: t, From: from, To: to, FromInclusive: fromInclusive, ToInclusive: toInclusive}
	}), nil
}

func dateError(err error, quoted, field string, column int) *Error {
	var ue *unitError
	if errors.As(err, &ue) {
		return newError(column, "unknown date math unit "+strconv.Quote(ue.unit)+" in "+quoted+" for field "+strconv.Quote(field),
			", use YEAR, MONTH, WEEK, DAY, HOUR, MINUTE or SECOND")
	}
	return newError(column, "invalid date "+quoted+" for field "+strconv.Quote(field), "")
}

// perTarget builds one node per index field the name searches, ORed. A spec
// without targets searches the field of its own name.
func perTarget(spec FieldSpec, build func(target string) Node) Node {
	targets := spec.Targets
	if len(targets) == 0 {
		targets = []string{spec.Name}
	}
	nodes := make([]Node, len(targets))
	for i, t := range targets {
		nodes[i] = build(t)
	}
	return newOr(nodes)
}

// number is a plain decimal; strconv.ParseFloat alone would also take
// "NaN", "Inf" and hexadecimal.
var number = regexp.MustCompile(`^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$`)

func parseNumber(s string) (float64, bool) {
	if !number.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// suggest finds the accepted name closest to name, if it is close enough
// to be a typo (at most two edits, a swap of neighbours counting one).
// Ties go to the alphabetically first.
func suggest(name string, names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	best, bestDist := "", 3
	for _, n := range names {
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and swaps of two neighbouring letters each
// count one, since a swap ("stauts") is as common a typo as a wrong letter.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
