package bleveindex

import (
	"strings"

	"github.com/blevesearch/bleve/v2/document"
	bi "github.com/blevesearch/bleve_index_api"
)

// phraseField is the exact twin (index.ExactField) of a text field searched
// by phrase: the words of all its values in one field, with one empty
// position between values so that no phrase spans two. Zap writes every
// occurrence's location, array positions included; one field per value
// (array positions [i], as the mapping gives array elements) cost a byte
// per word of a conversation's thread bodies, which were the largest
// field of the index. Bleve's phrase searcher and plainPhrase match terms
// at consecutive positions, so the empty position keeps values apart as
// array positions did, and an index written the older way answers the
// same. BM25 sees the same field length: the words of all values.
type phraseField struct {
	analyzedField
	values []*valueWords
}

func newPhraseField(name string, values []*valueWords, opts bi.FieldIndexingOptions) *phraseField {
	texts := make([]string, len(values))
	for i, v := range values {
		texts[i] = v.value
	}
	whole := []byte(strings.Join(texts, "\n")) // what Bleve counts as plain text
	return &phraseField{analyzedField: analyzedField{TextField: document.NewTextFieldWithIndexingOptions(name, nil, whole, opts)}, values: values}
}

func (f *phraseField) Analyze() {
	values, n := make([][]string, len(f.values)), 0
	for i, v := range f.values {
		values[i] = v.tokens()
		n += len(values[i])
	}
	words, positions := make([]string, 0, n), make([]int, 0, n)
	at := 1
	for _, value := range values {
		for _, w := range value {
			words, positions = append(words, w), append(positions, at)
			at++
		}
		at++ // the empty position between values
	}
	f.length = len(words)
	f.freqs = frequencies(words, positions, nil, f.Options())
}
