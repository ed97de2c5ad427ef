package query

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// A query that uses NOW-relative date math (`waitingSince:[* TO
// NOW-2DAYS]`) matches a document differently as time passes, while the
// document stands still. What it matches can change only when such a
// value, resolved at the moment, crosses a date of the document it is
// compared with: NowBounds finds those values and Crossings the instants
// they cross a date, so a caller can find when a query will start to
// match a document by evaluating it at those instants only.

// NowBound is a NOW-relative date value of a query and the field it is
// compared with, as written.
type NowBound struct {
	Field string
	Value string
}

// NowBounds lists the NOW-relative date values of a syntax tree (as Parse
// returns it): range bounds and field values that start with NOW.
func NowBounds(n Node) []NowBound {
	var out []NowBound
	var walk func(Node)
	walk = func(n Node) {
		switch n := n.(type) {
		case And:
			for _, c := range n.Nodes {
				walk(c)
			}
		case Or:
			for _, c := range n.Nodes {
				walk(c)
			}
		case Not:
			walk(n.Node)
		case Field:
			if isNow(n.Value) {
				out = append(out, NowBound{Field: n.Field, Value: n.Value})
			}
		case Range:
			for _, v := range []string{n.Lower, n.Upper} {
				if isNow(v) {
					out = append(out, NowBound{Field: n.Field, Value: v})
				}
			}
		}
	}
	walk(n)
	return out
}

func isNow(v string) bool { return len(v) >= 3 && strings.EqualFold(v[:3], "now") }

// Crossings lists the instants after which comparing the date t with the
// NOW-relative value v may answer differently: the earliest instants at
// which v, resolved then, reaches t and passes it, and, when v rounds to a
// period (NOW/DAY), at which the period's end does (an inclusive upper
// bound covers the whole period). A value that is not NOW-relative, or
// does not parse, has none.
func Crossings(v string, t time.Time) []time.Time {
	if !isNow(v) {
		return nil
	}
	var ops []dateMath
	for rest := v[3:]; rest != ""; {
		m := dateOp.FindStringSubmatch(rest)
		if m == nil {
			return nil
		}
		rest = rest[len(m[0]):]
		unit, ok := dateUnit(m[3])
		if !ok {
			return nil
		}
		op := dateMath{unit: unit, round: m[1] == ""}
		if !op.round {
			n, err := strconv.Atoi(m[2])
			if err != nil || n > maxAmount {
				return nil
			}
			if op.n = n; m[1] == "-" {
				op.n = -n
			}
		}
		ops = append(ops, op)
	}
	targets := []time.Time{t, t.Add(time.Nanosecond)}
	for _, op := range ops {
		if op.round {
			before := shift(t, -1, op.unit) // the period that ends at t starts here
			targets = append(targets, before, before.Add(time.Nanosecond))
		}
	}
	var out []time.Time
	for _, target := range targets {
		if at, ok := reaches(ops, target); ok && !slices.Contains(out, at) {
			out = append(out, at)
		}
	}
	return out
}

// dateMath is one operation of a date value: shift by n units, or round
// down to the unit.
type dateMath struct {
	n     int
	unit  string
	round bool
}

// reaches is the earliest instant now at which NOW followed by ops
// resolves to target or later. Every operation is monotone, so it undoes
// them from the last: a round down reaches target from the first period
// start at or after it, a shift from target shifted back (moved forward
// to the next day while a month's clamping keeps it short).
func reaches(ops []dateMath, target time.Time) (time.Time, bool) {
	x := target.UTC()
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		if y := x.Year(); y < 1 || y > 9999 {
			return time.Time{}, false
		}
		if op.round {
			if f := floor(x, op.unit); !f.Equal(x) {
				x = shift(f, 1, op.unit)
			}
			continue
		}
		y := shift(x, -op.n, op.unit)
		for range 4 {
			if !shift(y, op.n, op.unit).Before(x) {
				break
			}
			y = floor(y, "day").AddDate(0, 0, 1)
		}
		x = y
	}
	return x, true
}
