package bleveindex

import (
	"bytes"
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
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
		for _, levels := range tries {
			runs := splitRange(s.lo, s.hi, levels.shifts)
			if !coversExactly(t, r, s.lo, s.hi, runs) {
				return
			}
		}
	}
}

// coversExactly probes a range's runs at and around its edges and at
// random inside and outside it.
func coversExactly(t *testing.T, r *rand.Rand, lo, hi int64, runs []termRun) bool {
	probes := []int64{lo, hi, lo - 1, hi + 1, lo + (hi-lo)/2, math.MinInt64, math.MaxInt64}
	for range 50 {
		if hi >= lo && hi-lo >= 0 {
			probes = append(probes, lo+r.Int64N(hi-lo+1))
		}
		probes = append(probes, lo-1-r.Int64N(1<<20), hi+1+r.Int64N(1<<20))
	}
	for _, v := range probes {
		// lo-1 and hi+1 wrap at the extremes; what counts is the truth.
		want := 0
		if v >= lo && v <= hi {
			want = 1
		}
		if !assert.Equal(t, want, covered(runs, v), "value %d in [%d, %d] at shifts %v", v, lo, hi, runsShifts(runs)) {
			return false
		}
	}
	return true
}

// runsShifts lists the shifts runs read, for a failure's message.
func runsShifts(runs []termRun) []uint {
	var out []uint
	for _, r := range runs {
		out = append(out, r.shift)
	}
	return out
}

// TestNumberTrieTerms checks that the tokenizer writes one prefix-coded
// term per shift and that its shift-0 term decodes to the value, which is
// what Bleve's numeric range facets read.
func TestNumberTrieTerms(t *testing.T) {
	float := index.Field{Name: "seconds", Type: index.NumberField}
	whole := index.Field{Name: "replies", Type: index.NumberField, Whole: true}
	millis := index.Field{Name: "createdAt", Type: index.NumberField, Whole: true, Millis: true}
	for _, c := range []struct {
		f index.Field
		v float64
	}{
		{float, 0}, {float, -1.5}, {float, 1732060800000}, {float, math.MaxFloat64}, {float, -math.MaxFloat64},
		{whole, 0}, {whole, -7}, {whole, 1732060800000}, {whole, 1 << 53}, {whole, -(1 << 53)},
		{millis, 0}, {millis, 1732060800000}, {millis, 1 << 53}, {millis, -(1 << 53)},
	} {
		code, ok := numberCode(c.f, c.v)
		assert.True(t, ok)
		tokens := numberTrie{shifts: trieOf(c.f).shifts}.Tokenize(numberValue(code))
		require.Len(t, tokens, len(trieOf(c.f).shifts))
		for i, want := range trieOf(c.f).shifts {
			shift, err := numeric.PrefixCoded(tokens[i].Term).Shift()
			require.NoError(t, err)
			assert.Equal(t, want, shift, "%s %v", c.f.Name, c.v)
		}
		i64, err := numeric.PrefixCoded(tokens[0].Term).Int64()
		assert.NoError(t, err)
		assert.Equal(t, c.v, numberOf(c.f, i64), "%s %v", c.f.Name, c.v)
	}
	assert.Empty(t, numberTrie{shifts: floatTrie.shifts}.Tokenize([]byte("not eight")))
}

// TestWholeCodesAreTheIntegers checks what a Whole field refuses, and that
// its codes are the integers (offset), so neighbouring values share their
// coarser terms.
func TestWholeCodesAreTheIntegers(t *testing.T) {
	whole := index.Field{Name: "id", Type: index.NumberField, Whole: true}
	for _, v := range []float64{1.5, -0.25, math.NaN(), math.Inf(1), math.Inf(-1), 1<<53 + 2, -(1<<53 + 2)} {
		_, ok := numberCode(whole, v)
		assert.False(t, ok, "%v", v)
	}
	code, _ := numberCode(whole, 100000)
	assert.Equal(t, int64(100000)+wholeOffset, code)
	next, _ := numberCode(whole, 100001)
	a := numberTrie{shifts: wholeTrie.shifts}.Tokenize(numberValue(code))
	b := numberTrie{shifts: wholeTrie.shifts}.Tokenize(numberValue(next))
	assert.NotEqual(t, a[0].Term, b[0].Term)
	assert.Equal(t, a[1].Term, b[1].Term, "one shift-8 term for 256 neighbours")
}

// TestWholeRangeHoldsItsIntegers checks codeRange on Whole fields against
// the bounds' plain meaning, at and around each bound, for fractional,
// exclusive, open, infinite, NaN and out-of-limit bounds.
func TestWholeRangeHoldsItsIntegers(t *testing.T) {
	whole := index.Field{Name: "number", Type: index.NumberField, Whole: true}
	f := func(v float64) *float64 { return &v }
	bounds := []*float64{nil, f(0), f(3), f(3.5), f(-3.5), f(-3), f(1 << 53), f(-(1 << 53)), f(1<<53 + 4), f(-(1<<53 + 4)),
		f(math.Inf(1)), f(math.Inf(-1)), f(math.NaN()), f(1732060800000.5)}
	holds := func(v float64, min, max *float64, minInc, maxInc bool) bool {
		return (min == nil || v > *min || minInc && v == *min) && (max == nil || v < *max || maxInc && v == *max)
	}
	for _, min := range bounds {
		for _, max := range bounds {
			for _, inc := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} {
				lo, hi, ok := codeRange(whole, min, max, inc[0], inc[1])
				var probes []float64
				for _, b := range []*float64{min, max} {
					if b != nil && !math.IsNaN(*b) && !math.IsInf(*b, 0) {
						for d := -2.0; d <= 2; d++ {
							probes = append(probes, math.Round(*b)+d)
						}
					}
				}
				probes = append(probes, 0, 1<<53, -(1 << 53), 1<<53-1, -(1<<53 - 1))
				for _, v := range probes {
					if math.Abs(v) > wholeLimit {
						continue
					}
					code, _ := numberCode(whole, v)
					got := ok && code >= lo && code <= hi
					if !assert.Equal(t, holds(v, min, max, inc[0], inc[1]), got, "%v in %v..%v %v", v, min, max, inc) {
						return
					}
				}
			}
		}
	}
}

// TestCodeBoundKeepsBucketMembership checks the bounds a range facet on a
// Whole field hands Bleve: a value's decoded code compares with them as
// the value compares with the bucket's bounds (Min <= v < Max).
func TestCodeBoundKeepsBucketMembership(t *testing.T) {
	whole := index.Field{Name: "replies", Type: index.NumberField, Whole: true}
	for _, b := range []float64{0, 1, 2.5, -2.5, -1, 1732060800000, 1<<53 + 8, -(1<<53 + 8), math.Inf(1), math.Inf(-1)} {
		bound := *codeBound(whole, &b)
		for _, v := range []float64{-3, -2, -1, 0, 1, 2, 3, 1732060799999, 1732060800000, 1732060800001, 1 << 53, -(1 << 53)} {
			code, _ := numberCode(whole, v)
			decoded := numeric.Int64ToFloat64(code) // what Bleve's facet compares
			assert.Equal(t, v >= b, decoded >= bound, "%v >= %v", v, b)
			assert.Equal(t, v < b, decoded < bound, "%v < %v", v, b)
		}
	}
	assert.Nil(t, codeBound(whole, nil))
	seconds := 2.5
	assert.Equal(t, &seconds, codeBound(index.Field{Name: "responseSeconds", Type: index.NumberField}, &seconds))
}

// TestWholeFieldRefusesFractions: a batch holding a value a Whole field
// cannot index fails whole, saying which, and indexes none of its
// documents.
func TestWholeFieldRefusesFractions(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	good := conversation("1", 1, "refund")
	bad := conversation("2", 1, "refund")
	bad.Numbers["createdAt"] = []float64{1.5}
	var durable error
	err = e.Apply(context.Background(), index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{good, bad}},
		func(err error) { durable = err })
	require.EqualError(t, err, "bleveindex: document 2: field createdAt holds whole numbers of at most 53 bits, not 1.5")
	assert.Equal(t, err, durable, "the batch is reported failed")
	assert.Empty(t, searchIDs(t, e, 1, query.Match{Field: "subject", Text: "refund"}))
}

// TestMillisFieldKeepsItsLevels checks the levels each trie is indexed
// with (a Millis field's four, a Whole field's six), and that ranges
// over a Millis field, with edges inside, on and across its 65-second and
// 4.6-hour blocks, find exactly the documents a plain comparison finds.
func TestMillisFieldKeepsItsLevels(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	const base = 1732060800000 // 2024-11-20, on no block edge of its own
	offsets := []int64{0, 999, 1000, 65535, 65536, 65537, 131072, 1 << 24, 1<<24 + 1, 1<<32 - 1, 1 << 32, 1<<32 + 5000, -1, -65536, -(1 << 24)}
	var docs []index.Document
	for i, off := range offsets {
		d := conversation(strconv.Itoa(i+1), 1, "refund")
		d.Numbers["createdAt"] = []float64{float64(base + off)}
		docs = append(docs, d)
	}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})

	shifts := func(field string) []uint {
		seen := map[uint]bool{}
		for _, term := range fieldTerms(t, e, 1, field) {
			shift, err := numeric.PrefixCoded(term).Shift()
			require.NoError(t, err)
			seen[shift] = true
		}
		return slices.Sorted(maps.Keys(seen))
	}
	assert.Equal(t, millisTrie.shifts, shifts("createdAt"))
	assert.Equal(t, wholeTrie.shifts, shifts("id"))

	r := rand.New(rand.NewPCG(7, 11))
	edges := []int64{math.MinInt32}
	for _, off := range offsets {
		edges = append(edges, off-1, off, off+1)
	}
	for range 200 {
		lo, hi := edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
		minInc, maxInc := r.IntN(2) == 0, r.IntN(2) == 0
		min, max := float64(base+lo), float64(base+hi)
		var want []string
		for i, off := range offsets {
			if (off > lo || minInc && off == lo) && (off < hi || maxInc && off == hi) {
				want = append(want, strconv.Itoa(i+1))
			}
		}
		res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Limit: 100,
			Filter: query.NumberRange{Field: "createdAt", Min: &min, Max: &max, MinInclusive: minInc, MaxInclusive: maxInc}})
		require.NoError(t, err)
		if !assert.ElementsMatch(t, want, res.IDs, "createdAt in %d..%d (inclusive %v, %v)", lo, hi, minInc, maxInc) {
			return
		}
	}
}
