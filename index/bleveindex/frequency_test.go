package bleveindex

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bi "github.com/blevesearch/bleve_index_api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFrequenciesAreBleves: frequencies gives exactly what Bleve's own
// analysis.TokenFrequency gives for the same words as tokens: terms,
// counts, and locations in order with their positions and array
// positions, under every combination of the options Parley indexes with.
func TestFrequenciesAreBleves(t *testing.T) {
	words := []struct {
		name      string
		words     []string
		positions []int
	}{
		{"none", nil, nil},
		{"one", []string{"refund"}, nil},
		{"repeated", []string{"the", "order", "the", "refund", "the", "order"}, nil},
		{"positions", []string{"a", "b", "a", "c"}, []int{1, 2, 4, 9}},
		{"empty word", []string{"", "x", ""}, []int{3, 5, 7}},
		{"accents", []string{"café", "cafe", "café"}, nil},
	}
	options := []bi.FieldIndexingOptions{
		bi.IndexField,
		bi.IndexField | bi.IncludeTermVectors,
		bi.IndexField | bi.SkipFreqNorm,
		bi.IndexField | bi.IncludeTermVectors | bi.SkipFreqNorm,
		bi.IndexField | bi.DocValues | bi.SkipDVChunking | bi.SkipDVCompression,
	}
	for _, w := range words {
		for _, opts := range options {
			for _, array := range [][]uint64{nil, {2}} {
				t.Run(w.name+"/"+opts.String(), func(t *testing.T) {
					want := analysis.TokenFrequency(wordTokens(w.words, w.positions), array, opts)
					assert.Equal(t, want, frequencies(w.words, w.positions, array, opts))
				})
			}
		}
	}
}

// TestKeywordFieldIsBleves: a keyword field of values, analysed by
// keywordField, has the length and frequencies the segment builder makes
// of Bleve text fields, one a value, analysed by the mapping's keyword
// analyzer: it sums their lengths and merges their frequencies (zap's
// invertedIndexOpaque.process). Name and options are theirs too, and the
// value the values end to end.
func TestKeywordFieldIsBleves(t *testing.T) {
	analyzer := mapping.NewIndexMapping().AnalyzerNamed(keyword.Name)
	require.NotNil(t, analyzer)
	for _, c := range []struct {
		values []string
		opts   bi.FieldIndexingOptions
	}{
		{[]string{"open"}, bi.IndexField},
		{[]string{"Tag With Spaces", "vip", "Tag With Spaces"}, bi.IndexField},
		{[]string{""}, bi.IndexField},
		{[]string{"status", "tag", "createdAt"}, presentOptions},
		{[]string{"0000000042"}, bi.IndexField | bi.DocValues | bi.SkipDVChunking | bi.SkipDVCompression},
		{[]string{"b", "a", "b"}, bi.IndexField | bi.DocValues | bi.SkipDVChunking | bi.SkipDVCompression},
	} {
		length, freqs, plain := 0, bi.TokenFrequencies(nil), 0
		for i, v := range c.values {
			var array []uint64
			if len(c.values) > 1 {
				array = []uint64{uint64(i)}
			}
			one := document.NewTextFieldCustom("f", array, []byte(v), c.opts, analyzer)
			one.Analyze()
			length += one.AnalyzedLength()
			plain += int(one.NumPlainTextBytes())
			if freqs == nil {
				freqs = one.AnalyzedTokenFrequencies()
			} else {
				freqs.MergeAll("f", one.AnalyzedTokenFrequencies())
			}
		}
		got := newKeywordField("f", c.values, c.opts)
		got.Analyze()
		assert.Equal(t, length, got.AnalyzedLength(), c.values)
		assert.Equal(t, counted(freqs), counted(got.AnalyzedTokenFrequencies()), c.values)
		assert.Equal(t, []any{"f", c.opts, plain}, []any{got.Name(), got.Options(), int(got.NumPlainTextBytes())}, c.values)
	}
}

// counted is each term's frequency and number of locations (keyword
// fields have none; Bleve's merge leaves an empty list where ours is nil).
func counted(freqs bi.TokenFrequencies) map[string][2]int {
	out := map[string][2]int{}
	for term, tf := range freqs {
		out[term] = [2]int{tf.Frequency(), len(tf.Locations)}
	}
	return out
}
