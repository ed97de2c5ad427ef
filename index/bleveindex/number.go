package bleveindex

import (
	"encoding/binary"
	"math"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/registry"
	bq "github.com/blevesearch/bleve/v2/search/query"
)

// A number that is not a Key is indexed as a trie of prefix-coded terms,
// as Bleve's own numeric fields are, but with a precision step of 8 bits
// instead of 4: eight terms per value, not sixteen. Most of them are unique
// (dates in milliseconds, ids): in a 10,000-conversation partition Bleve's
// numbers were about four fifths of all dictionary terms, and building and
// merging those dictionaries was a good part of indexing's CPU. A range
// then reads up to 255 terms per level at its two edges instead of 15,
// which costs little next to the postings it unions.
//
// The terms are Bleve's prefix-coded ones (numeric.PrefixCoded), so the
// shift-0 term still decodes to the value: Bleve's numeric range facets,
// which read only shift-0 terms, work unchanged on these fields.

// numberStep is the trie's precision step, in bits.
const numberStep = 8

const (
	numberTokenizer = "parley_number"
	numberAnalyzer  = "parley_number"
)

func init() {
	registry.RegisterTokenizer(numberTokenizer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return numberTrie{}, nil
	})
}

// numberValue is what the builder hands the tokenizer for one value: the
// value's sortable int64 (numeric.Float64ToInt64), big-endian.
func numberValue(v float64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(numeric.Float64ToInt64(v)))
}

// numberTrie turns a numberValue into its terms, one per shift.
type numberTrie struct{}

func (numberTrie) Tokenize(input []byte) analysis.TokenStream {
	if len(input) != 8 {
		return nil // not a numberValue: nothing to index
	}
	v := int64(binary.BigEndian.Uint64(input))
	out := make(analysis.TokenStream, 0, 64/numberStep)
	for shift := uint(0); shift < 64; shift += numberStep {
		out = append(out, &analysis.Token{Term: numeric.MustNewPrefixCodedInt64(v, shift), Position: 1, Type: analysis.Numeric})
	}
	return out
}

// numberRange is the query of a range over a trie-indexed number: the
// range split into runs of terms, one run per shift at each edge (as
// Bleve's numeric range searcher splits with its own step), each a term
// range. A nil bound is open.
func numberRange(field string, min, max *float64, minInclusive, maxInclusive bool) bq.Query {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if min != nil {
		lo = numeric.Float64ToInt64(*min)
		if !minInclusive {
			if lo == math.MaxInt64 {
				return bleve.NewMatchNoneQuery()
			}
			lo++
		}
	}
	if max != nil {
		hi = numeric.Float64ToInt64(*max)
		if !maxInclusive {
			if hi == math.MinInt64 {
				return bleve.NewMatchNoneQuery()
			}
			hi--
		}
	}
	runs := splitRange(lo, hi, numberStep)
	if len(runs) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	inclusive := true
	var qs []bq.Query
	for _, r := range runs {
		q := bleve.NewTermRangeInclusiveQuery(string(numeric.MustNewPrefixCodedInt64(r.lo, r.shift)),
			string(numeric.MustNewPrefixCodedInt64(r.hi, r.shift)), &inclusive, &inclusive)
		q.SetField(field)
		qs = append(qs, q)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// termRun is the values lo..hi (inclusive) at one shift: the terms
// PrefixCoded(lo, shift) through PrefixCoded(hi, shift).
type termRun struct {
	lo, hi int64
	shift  uint
}

// splitRange splits lo..hi into the fewest runs of trie terms: at each
// shift, the partial blocks at both edges, then the rest one shift
// coarser. It is Lucene's and Bleve's splitting (Bleve's
// search/searcher.splitInt64Range), with the step as a parameter.
func splitRange(lo, hi int64, step uint) []termRun {
	var out []termRun
	if lo > hi {
		return out
	}
	for shift := uint(0); ; shift += step {
		diff := int64(1) << (shift + step)
		mask := ((int64(1) << step) - 1) << shift
		hasLower := lo&mask != 0
		hasUpper := hi&mask != mask
		nextLo, nextHi := lo&^mask, hi&^mask
		if hasLower {
			nextLo = (lo + diff) &^ mask
		}
		if hasUpper {
			nextHi = (hi - diff) &^ mask
		}
		if shift+step >= 64 || nextLo > nextHi || nextLo < lo || nextHi > hi {
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
}
