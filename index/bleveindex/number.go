package bleveindex

import (
	"encoding/binary"
	"math"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/registry"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/parley/parley/index"
)

// A number that is not a Key is indexed as a trie of prefix-coded terms,
// as Bleve's own numeric fields are, but with a precision step of 8 bits
// instead of 4: at most eight terms per value, not sixteen (fewer for
// Whole and Millis fields, below). Most of them are unique
// (dates in milliseconds, ids): in a 10,000-conversation partition Bleve's
// numbers were about four fifths of all dictionary terms, and building and
// merging those dictionaries was a good part of indexing's CPU. A range
// then reads up to 255 terms per level at its two edges instead of 15,
// which costs little next to the postings it unions.
//
// The trie is built over an int64, the value's code (numberCode): a
// float's sortable bits (numeric.Float64ToInt64), as Bleve's own numbers,
// or, for a Whole field, the integer itself. An integer's float has zeros
// in its low bits (a date in milliseconds eleven of them, an id in the
// hundred thousands thirty-six), so a trie over the float repeats one
// unique term at each shift those zeros span: an id had five unique terms,
// a date four or five. Over the integer, each shift groups 256 times more
// neighbours, so only the finest terms are unique: one for an id, three
// for a date (to 65 seconds) at the bench's density.
//
// The terms are Bleve's prefix-coded ones (numeric.PrefixCoded), so the
// shift-0 term still decodes to the code. Bleve's numeric range facets
// read only shift-0 terms and take the code for a float's bits; for a
// Whole field, facets.go hands them bounds coded the same way (codeBound).
//
// A time in milliseconds (a Millis field) keeps four of those levels:
// shifts 0, 16, 24 and 32. Its shift-8 term (256 ms) was as unique as its
// shift-0 term, because the API's times are whole seconds, so it only
// doubled the dictionary; without it a range's edge reads the shift-0
// terms of up to 65 seconds, which hold a handful of values. Its terms
// above shift 32 (49 days) were one or two per field for every date since
// 2004, each a posting in every document. A range over decades reads a
// few hundred shift-32 terms instead. An index written with all eight
// levels still answers these ranges exactly: it holds these four too.

// A trie is one way of indexing numbers: its levels (shifts, ascending,
// from 0) and the name of its tokenizer and analyzer.
type trie struct {
	name   string
	shifts []uint
}

var (
	// floatTrie indexes a float's bits at every eighth bit.
	floatTrie = trie{"parley_number", []uint{0, 8, 16, 24, 32, 40, 48, 56}}
	// wholeTrie stops at shift 40: a Whole code is the value plus 2^53, so
	// its terms above were one or two for every value under 2^48, each a
	// posting in every document. A range reaching past 2^40 reads a few
	// shift-40 terms instead.
	wholeTrie = trie{"parley_whole", []uint{0, 8, 16, 24, 32, 40}}
	// millisTrie is a Millis field's, above.
	millisTrie = trie{"parley_millis", []uint{0, 16, 24, 32}}
	tries      = []trie{floatTrie, wholeTrie, millisTrie}
)

// trieOf is the trie number field f is indexed and searched with.
func trieOf(f index.Field) trie {
	switch {
	case f.Millis:
		return millisTrie
	case f.Whole:
		return wholeTrie
	}
	return floatTrie
}

func init() {
	for _, t := range tries {
		registry.RegisterTokenizer(t.name, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
			return numberTrie{shifts: t.shifts}, nil
		})
	}
}

// wholeLimit bounds a Whole field's values: integers a float64 holds
// exactly.
const wholeLimit = 1 << 53

// wholeOffset is added to a Whole field's values to make their codes: it
// keeps them above zero, because Bleve's facets decode a code as a float's
// bits, and the codes -1 and 0 decode to -0 and +0, which compare equal.
const wholeOffset = wholeLimit + 1

// numberField is the catalog field of a number a query or an aggregate
// names; a name the catalog does not know is a plain number (float coded).
func numberField(kind index.Kind, name string) index.Field {
	if f, ok := index.FieldOf(kind, name); ok {
		return f
	}
	return index.Field{Name: name, Type: index.NumberField}
}

// numberCode is the int64 the trie of v in field f is built over; ok is
// false for a value a Whole field cannot hold (not an integer, or beyond
// wholeLimit). A Whole value's code is the value plus wholeOffset.
func numberCode(f index.Field, v float64) (code int64, ok bool) {
	if !f.Whole {
		return numeric.Float64ToInt64(v), true
	}
	if v != math.Trunc(v) || math.Abs(v) > wholeLimit {
		return 0, false
	}
	return int64(v) + wholeOffset, true
}

// numberOf decodes a shift-0 term's code of field f.
func numberOf(f index.Field, code int64) float64 {
	if f.Whole {
		return float64(code - wholeOffset)
	}
	return numeric.Int64ToFloat64(code)
}

// numberValue is what the builder hands the tokenizer for one value: its
// code, big-endian.
func numberValue(code int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(code))
}

// numberTrie turns a numberValue into its terms, one per shift.
type numberTrie struct{ shifts []uint }

func (t numberTrie) Tokenize(input []byte) analysis.TokenStream {
	if len(input) != 8 {
		return nil // not a numberValue: nothing to index
	}
	v := int64(binary.BigEndian.Uint64(input))
	out := make(analysis.TokenStream, 0, len(t.shifts))
	for _, shift := range t.shifts {
		out = append(out, &analysis.Token{Term: numeric.MustNewPrefixCodedInt64(v, shift), Position: 1, Type: analysis.Numeric})
	}
	return out
}

// numberRange is the query of a range over a trie-indexed number: the
// range split into runs of terms, one run per shift at each edge (as
// Bleve's numeric range searcher splits with its own step), each a term
// range. A nil bound is open.
func numberRange(f index.Field, min, max *float64, minInclusive, maxInclusive bool) bq.Query {
	lo, hi, ok := codeRange(f, min, max, minInclusive, maxInclusive)
	if !ok {
		return bleve.NewMatchNoneQuery()
	}
	runs := splitRange(lo, hi, trieOf(f).shifts)
	if len(runs) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	inclusive := true
	var qs []bq.Query
	for _, r := range runs {
		q := bleve.NewTermRangeInclusiveQuery(string(numeric.MustNewPrefixCodedInt64(r.lo, r.shift)),
			string(numeric.MustNewPrefixCodedInt64(r.hi, r.shift)), &inclusive, &inclusive)
		q.SetField(f.Name)
		qs = append(qs, q)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// codeRange is the range of codes (inclusive) of the values a range holds;
// ok is false when it holds none that could be indexed.
func codeRange(f index.Field, min, max *float64, minInclusive, maxInclusive bool) (lo, hi int64, ok bool) {
	if f.Whole {
		lo, hi, ok = wholeRange(min, max, minInclusive, maxInclusive)
		return lo + wholeOffset, hi + wholeOffset, ok
	}
	lo, hi = int64(math.MinInt64), int64(math.MaxInt64)
	if min != nil {
		lo = numeric.Float64ToInt64(*min)
		if !minInclusive {
			if lo == math.MaxInt64 {
				return 0, 0, false
			}
			lo++
		}
	}
	if max != nil {
		hi = numeric.Float64ToInt64(*max)
		if !maxInclusive {
			if hi == math.MinInt64 {
				return 0, 0, false
			}
			hi--
		}
	}
	return lo, hi, lo <= hi
}

// wholeRange is the integers a range holds, within wholeLimit.
func wholeRange(min, max *float64, minInclusive, maxInclusive bool) (lo, hi int64, ok bool) {
	lo, hi = -wholeLimit, wholeLimit
	if min != nil {
		switch m := *min; {
		case math.IsNaN(m) || m > wholeLimit:
			return 0, 0, false
		case m >= -wholeLimit:
			lo = int64(math.Ceil(m))
			if float64(lo) == m && !minInclusive {
				lo++
			}
		}
	}
	if max != nil {
		switch m := *max; {
		case math.IsNaN(m) || m < -wholeLimit:
			return 0, 0, false
		case m <= wholeLimit:
			hi = int64(math.Floor(m))
			if float64(hi) == m && !maxInclusive {
				hi--
			}
		}
	}
	return lo, hi, lo <= hi
}

// codeBound turns a range facet's bound on a Whole field into the float
// Bleve's facet compares a decoded shift-0 term with: Bleve decodes the
// code as a float's bits, and that decoding keeps order, so a value v
// holds v >= b exactly when its code's float is at least the float of
// the code of b's ceiling.
func codeBound(f index.Field, b *float64) *float64 {
	if b == nil || !f.Whole || math.IsNaN(*b) {
		return b
	}
	c := int64(wholeLimit + 1) // above every value
	switch {
	case *b < -wholeLimit:
		c = -wholeLimit - 1 // below every value
	case *b <= wholeLimit:
		c = int64(math.Ceil(*b))
	}
	v := numeric.Int64ToFloat64(c + wholeOffset)
	return &v
}

// termRun is the values lo..hi (inclusive) at one shift: the terms
// PrefixCoded(lo, shift) through PrefixCoded(hi, shift).
type termRun struct {
	lo, hi int64
	shift  uint
}

// splitRange splits lo..hi into the fewest runs of trie terms at the
// given shifts (ascending, from 0): at each shift, the partial blocks at
// both edges, then the rest one shift coarser; the coarsest shift takes
// all that is left. It is Lucene's and Bleve's splitting (Bleve's
// search/searcher.splitInt64Range), with the levels as a parameter.
func splitRange(lo, hi int64, shifts []uint) []termRun {
	var out []termRun
	if lo > hi {
		return out
	}
	for i, shift := range shifts {
		if i+1 == len(shifts) {
			return append(out, termRun{lo: lo, hi: hi, shift: shift})
		}
		next := shifts[i+1]
		diff := int64(1) << next
		mask := diff - int64(1)<<shift // the bits from shift up to next
		hasLower := lo&mask != 0
		hasUpper := hi&mask != mask
		nextLo, nextHi := lo&^mask, hi&^mask
		if hasLower {
			nextLo = (lo + diff) &^ mask
		}
		if hasUpper {
			nextHi = (hi - diff) &^ mask
		}
		if nextLo > nextHi || nextLo < lo || nextHi > hi {
			return append(out, termRun{lo: lo, hi: hi, shift: shift})
		}
		if hasLower {
			out = append(out, termRun{lo: lo, hi: lo | mask, shift: shift})
		}
		if hasUpper {
			out = append(out, termRun{lo: hi &^ mask, hi: hi, shift: shift})
		}
		lo, hi = nextLo, nextHi
	}
	return out
}
