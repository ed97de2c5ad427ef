package bleveindex

import (
	"context"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

// A text field's stemmed forms are indexed only where a word's stem
// differs from the word itself. The exact twin (index.ExactField) already
// holds every word, so a stem that equals its word would be a second
// posting of the same fact: in the bench's text (generated words, almost
// none of which stemming changes) the stemmed body field was a sixth of
// the whole index, and in English prose (this repository's README, as
// paragraphs) about two thirds of its postings are of such words.
//
// A word then matches a document when some word of the document has the
// same stem s, which is exactly: s is among the field's stemmed forms (a
// word that stemming changed into s), or s is a word of the exact twin
// whose own stem is s (a word stemming leaves alone). Snowball's stemmer
// is not idempotent ("conversation" gives "convers", whose own stem is
// "conver"), so the second case is taken only when Stem(s) == s.

// stemField is the stemmed-form field of one text value: the stems of the
// words stemming changes, while its length (BM25's field length) stays the
// number of words in the value, as if every stem were there.
type stemField struct {
	analyzedField
	words *valueWords
}

func newStemField(name string, arrayPositions []uint64, words *valueWords, opts bi.FieldIndexingOptions) *stemField {
	return &stemField{analyzedField{TextField: document.NewTextFieldWithIndexingOptions(name, arrayPositions, []byte(words.value), opts)}, words}
}

func (f *stemField) Analyze() {
	words := f.words.tokens()
	var changed []string
	var positions []int
	for i, w := range words {
		if s := index.Stem(w); s != w {
			changed, positions = append(changed, s), append(positions, i+1)
		}
	}
	f.length = len(words)
	f.freqs = frequencies(changed, positions, f.ArrayPositions(), f.Options())
}

// valueWords is one text value and its words (index.Tokens), split when
// the first field that indexes them is analyzed: a phrase field's stemmed
// forms and its exact twin index the same words, and splitting each value
// a second time was a sixth of the time a rebuild spent analysing them.
type valueWords struct {
	value string
	once  sync.Once
	words []string
}

func newValueWords(value string) *valueWords { return &valueWords{value: value} }

// tokens are the value's words; callers do not change them.
func (w *valueWords) tokens() []string {
	w.once.Do(func() { w.words = index.Tokens(w.value) })
	return w.words
}

// analyzedField is a text field whose Analyze, written by the type that
// embeds it, sets its length and token frequencies itself rather than
// running an analyzer over the value.
type analyzedField struct {
	*document.TextField
	length int
	freqs  bi.TokenFrequencies
}

func (f *analyzedField) AnalyzedLength() int { return f.length }

func (f *analyzedField) AnalyzedTokenFrequencies() bi.TokenFrequencies { return f.freqs }

// stemMatch is the query of one unquoted word, given as its stem, in a
// text field: the stemmed-form term, or that term in the exact twin when
// the stem is its own stem (see above). A term with no postings is left
// out, so a stem found in one place only is a plain term searcher, which
// Bleve can intersect as bitmaps in an unscored search.
type stemMatch struct {
	field, stem string
	boost       float64
}

func (q stemMatch) Searcher(ctx context.Context, r bi.IndexReader, _ mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	fields := []string{q.field}
	if index.Stem(q.stem) == q.stem {
		fields = append(fields, index.ExactField(q.field))
	}
	var found []search.Searcher
	closeAll := func() { closeSearchers(found) }
	for _, field := range fields {
		s, err := searcher.NewTermSearcher(ctx, r, q.stem, field, q.boost, options)
		if err != nil {
			closeAll()
			return nil, err
		}
		if s.Count() == 0 {
			if err := s.Close(); err != nil {
				closeAll()
				return nil, err
			}
			continue
		}
		found = append(found, s)
	}
	switch len(found) {
	case 0:
		return searcher.NewMatchNoneSearcher(r)
	case 1:
		return found[0], nil
	}
	s, err := searcher.NewDisjunctionSearcher(ctx, r, found, 1, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	return s, nil
}

// stemMatches is the query of every stem of a text: one stemMatch per
// distinct stem, all of which must match.
func stemMatches(field string, stems []string, boost float64) bq.Query {
	var parts []bq.Query
	seen := map[string]bool{}
	for _, s := range stems {
		if !seen[s] {
			seen[s] = true
			parts = append(parts, stemMatch{field: field, stem: s, boost: boost})
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return bleve.NewConjunctionQuery(parts...)
}
