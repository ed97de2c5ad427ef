package bleveindex

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/stretchr/testify/assert"
)

// covered reports whether one of runs holds v's term at the run's shift.
func covered(runs []termRun, v int64) int {
	n := 0
	for _, r := range runs {
		term := numeric.MustNewPrefixCodedInt64(v, r.shift)
		if bytes.Compare(term, numeric.MustNewPrefixCodedInt64(r.lo, r.shift)) >= 0 &&
			bytes.Compare(term, numeric.MustNewPrefixCodedInt64(r.hi, r.shift)) <= 0 {
			n++
		}
	}
	return n
}

// TestSplitRangeCoversExactly checks, on random and extreme ranges, that a
// value inside is covered by exactly one run and a value outside by none,
// so a range query neither misses nor double-counts a document.
func TestSplitRangeCoversExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	type span struct{ lo, hi int64 }
	spans := []span{
		{math.MinInt64, math.MaxInt64}, {0, 0}, {-1, 1}, {255, 256}, {0, 1 << 16}, {math.MaxInt64 - 3, math.MaxInt64},
		{math.MinInt64, math.MinInt64 + 300}, {5, 4},
	}
	for range 300 {
		lo := r.Int64N(1<<42) - 1<<41
		spans = append(spans, span{lo, lo + r.Int64N(1<<uint(r.IntN(40)))})
	}
	for _, s := range spans {
		runs := splitRange(s.lo, s.hi, numberStep)
		probes := []int64{s.lo, s.hi, s.lo - 1, s.hi + 1, s.lo + (s.hi-s.lo)/2, math.MinInt64, math.MaxInt64}
		for range 50 {
			if s.hi >= s.lo && s.hi-s.lo >= 0 {
				probes = append(probes, s.lo+r.Int64N(s.hi-s.lo+1))
			}
			probes = append(probes, s.lo-1-r.Int64N(1<<20), s.hi+1+r.Int64N(1<<20))
		}
		for _, v := range probes {
			// lo-1 and hi+1 wrap at the extremes; what counts is the truth.
			want := 0
			if v >= s.lo && v <= s.hi {
				want = 1
			}
			if !assert.Equal(t, want, covered(runs, v), "value %d in [%d, %d]", v, s.lo, s.hi) {
				return
			}
		}
	}
}

// TestNumberTrieTerms checks that the tokenizer writes one prefix-coded
// term per shift and that its shift-0 term decodes to the value, which is
// what Bleve's numeric range facets read.
func TestNumberTrieTerms(t *testing.T) {
	for _, v := range []float64{0, -1.5, 1732060800000, math.MaxFloat64, -math.MaxFloat64} {
		tokens := numberTrie{}.Tokenize(numberValue(v))
		assert.Len(t, tokens, 64/numberStep)
		i64, err := numeric.PrefixCoded(tokens[0].Term).Int64()
		assert.NoError(t, err)
		assert.Equal(t, v, numeric.Int64ToFloat64(i64))
	}
	assert.Empty(t, numberTrie{}.Tokenize([]byte("not eight")))
}
