package index

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/parley/parley/query"
)

// FacetRequest asks an engine for counts over the documents matching a
// filter, without loading them: numeric range buckets, and the count of
// each distinct value of a field (from which callers derive sums, averages
// and distinct counts). Reports are built from these.
type FacetRequest struct {
	Kind    Kind
	Company int64
	Filter  query.Node // nil means every document of the company
	// Ranges counts documents per bucket of a numeric field.
	Ranges map[string]RangeFacet
	// Values counts documents per distinct value of a field; the field
	// must be a keyword field or a number field marked Valued.
	Values map[string]string
}

// RangeFacet buckets a numeric field. Each bucket holds values v with
// Min <= v < Max; a nil bound is open.
type RangeFacet struct {
	Field   string
	Buckets []Bucket
}

// Bucket is one range of a RangeFacet.
type Bucket struct {
	Min, Max *float64
}

// FacetResult holds the counts asked for.
type FacetResult struct {
	Total  int
	Ranges map[string][]int          // per facet, one count per bucket
	Values map[string]map[string]int // per facet, count per value
}

// Faceter is implemented by engines that can answer facet requests.
type Faceter interface {
	Facets(ctx context.Context, r FacetRequest) (FacetResult, error)
}

// ValueKey renders a number the way Values reports it, so engines agree:
// strconv.FormatFloat(v, 'f', -1, 64). Whole numbers, which most counted
// values are (seconds, ids), take FormatInt's shorter path to the same
// digits: formatting was a seventh of the whole-range chat report.
func ValueKey(v float64) string {
	if n := int64(v); float64(n) == v && -maxExactInt <= n && n <= maxExactInt && (n != 0 || !math.Signbit(v)) {
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// maxExactInt bounds the whole numbers a float64 holds exactly.
const maxExactInt = 1 << 53

// ParseValueKey reads back a number as ValueKey spells it: it is
// strconv.ParseFloat(k, 64), with whole numbers of up to 15 digits (below
// 2^53, so exact) read digit by digit. Reports turn every counted value
// back into a number, and parsing was a sixth of the whole-range chat
// report.
func ParseValueKey(k string) (float64, error) {
	digits, negative := strings.CutPrefix(k, "-")
	if len(digits) == 0 || len(digits) > 15 {
		return strconv.ParseFloat(k, 64)
	}
	var n int64
	for i := range len(digits) {
		c := digits[i]
		if c < '0' || c > '9' {
			return strconv.ParseFloat(k, 64)
		}
		n = n*10 + int64(c-'0')
	}
	if negative {
		return math.Copysign(float64(n), -1), nil // "-0" is negative zero, as ParseFloat reads it
	}
	return float64(n), nil
}

// ValuedPrefix names the keyword twin of a Valued number field in engines
// that need one to count distinct values.
const ValuedPrefix = "v_"

// InBucket reports whether v falls in b (Min inclusive, Max exclusive).
func InBucket(v float64, b Bucket) bool {
	return (b.Min == nil || v >= *b.Min) && (b.Max == nil || v < *b.Max)
}
