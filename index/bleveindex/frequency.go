package bleveindex

import (
	"strings"

	"github.com/blevesearch/bleve/v2/document"
	bi "github.com/blevesearch/bleve_index_api"
)

// frequencies is what Bleve's analysis.TokenFrequency makes of the tokens
// words[i] at positions[i] (i+1 when positions is nil), built from the
// words as they are: Bleve's version wants a token stream (a struct and a
// byte slice per word) and allocates a TokenFreq per term and a growing
// location list per term, and at a bulk load that allocation was a tenth
// of the CPU spent analysing documents. Here the terms' TokenFreqs, bytes
// and location lists each come from one block. Locations carry no byte
// offsets (Start and End stay 0): Parley never highlights, and the words
// of a text value no longer know where they stood in it.
func frequencies(words []string, positions []int, arrayPositions []uint64, opts bi.FieldIndexingOptions) bi.TokenFrequencies {
	out := make(bi.TokenFrequencies, len(words))
	if len(words) == 0 {
		return out
	}
	size := 0
	for _, w := range words {
		size += len(w)
	}
	terms := make([]byte, 0, size)
	freqs := make([]bi.TokenFreq, 0, len(words)) // never grows: pointers into it stay valid
	of := make([]*bi.TokenFreq, len(words))      // each word's term
	for i, w := range words {
		tf, ok := out[w]
		if !ok {
			at := len(terms)
			terms = append(terms, w...)
			freqs = append(freqs, bi.TokenFreq{Term: terms[at:len(terms):len(terms)]})
			tf = &freqs[len(freqs)-1]
			out[w] = tf
		}
		tf.SetFrequency(tf.Frequency() + 1)
		of[i] = tf
	}
	if opts.IncludeTermVectors() {
		locations := make([]bi.TokenLocation, len(words))
		pointers := make([]*bi.TokenLocation, len(words))
		next := 0
		for t := range freqs { // each term's list is a window of the pointers
			n := freqs[t].Frequency()
			freqs[t].Locations = pointers[next : next : next+n]
			next += n
		}
		for i := range words {
			position := i + 1
			if positions != nil {
				position = positions[i]
			}
			locations[i] = bi.TokenLocation{ArrayPositions: arrayPositions, Position: position}
			of[i].Locations = append(of[i].Locations, &locations[i])
		}
	}
	if opts.SkipFreqNorm() {
		for t := range freqs {
			freqs[t].SetFrequency(0)
		}
	}
	return out
}

// keywordField is every value a document holds in a keyword field, each
// value itself a term at its own position, as Bleve's keyword analyzer
// gives it, without running the analyzer or building a token for it.
// Keyword fields are never indexed with term vectors (options), so no byte
// offsets or array positions are lost.
//
// One field holds all of a document's values of a name, not one field a
// value as the mapping makes them: the segment builder merges a document's
// fields of one name into the same postings, lengths and frequencies
// anyway, so the index is the same, but it visits each field through
// every section of the segment, with maps of its own. A conversation was
// 89 fields of 49 names, 33 of them one name each in index.PresentField.
type keywordField struct {
	analyzedField
	values []string // kept as strings so Analyze converts nothing back
}

// newKeywordField is the keyword field of values. Its value (read only
// when a field is stored, and for Bleve's count of plain-text bytes) is
// the values end to end.
func newKeywordField(name string, values []string, opts bi.FieldIndexingOptions) *keywordField {
	return &keywordField{analyzedField{TextField: document.NewTextFieldWithIndexingOptions(name, nil, []byte(strings.Join(values, "")), opts)}, values}
}

func (f *keywordField) Analyze() {
	f.length = len(f.values)
	f.freqs = frequencies(f.values, nil, nil, f.Options())
}
