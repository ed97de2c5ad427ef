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

// TestKeywordFieldIsBleves: a keyword value analysed by keywordField has
// the length and frequencies of a Bleve text field analysed by the
// mapping's keyword analyzer, and the same name, value, options and array
// positions.
func TestKeywordFieldIsBleves(t *testing.T) {
	analyzer := mapping.NewIndexMapping().AnalyzerNamed(keyword.Name)
	require.NotNil(t, analyzer)
	for _, c := range []struct {
		value string
		array []uint64
		opts  bi.FieldIndexingOptions
	}{
		{"open", nil, bi.IndexField},
		{"Tag With Spaces", []uint64{3}, bi.IndexField},
		{"", nil, bi.IndexField},
		{"status", nil, presentOptions},
		{"0000000042", nil, bi.IndexField | bi.DocValues | bi.SkipDVChunking | bi.SkipDVCompression},
	} {
		want := document.NewTextFieldCustom("f", c.array, []byte(c.value), c.opts, analyzer)
		got := newKeywordField("f", c.array, c.value, c.opts)
		want.Analyze()
		got.Analyze()
		assert.Equal(t, want.AnalyzedLength(), got.AnalyzedLength(), c.value)
		assert.Equal(t, want.AnalyzedTokenFrequencies(), got.AnalyzedTokenFrequencies(), c.value)
		assert.Equal(t, []any{want.Name(), want.Value(), want.Options(), want.ArrayPositions(), want.NumPlainTextBytes()},
			[]any{got.Name(), got.Value(), got.Options(), got.ArrayPositions(), got.NumPlainTextBytes()}, c.value)
	}
}
