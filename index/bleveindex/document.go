package bleveindex

import (
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

// sortPrefix names the keyword twin that holds a sortable number's sort
// key. A Bleve number has sixteen terms (one per precision shift), all of
// them in its doc values; the twin has one fixed-width term, so a sorted
// search reads a sixteenth of the bytes per hit and compares strings.
const sortPrefix = "s_"

// suffixPrefix names the keyword twin of a Substrings field: every suffix
// of every value, so "contains" is a prefix query on the twin instead of a
// regular expression run over the whole term dictionary.
const suffixPrefix = "x_"

// suffixes lists the distinct non-empty suffixes of values, cut at rune
// boundaries.
func suffixes(values []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range values {
		for i := range v {
			if s := v[i:]; !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// builder turns index documents into Bleve documents directly, with the
// options the kind's mapping gives each field, instead of letting the
// mapping walk a nested map by reflection for every document. It also
// stores sort values uncompressed and one term long: a sorted search reads
// them hit by hit, and decompressing a doc-value chunk of sixteen-term
// numbers for each hit was most of the cost of a sorted search.
type builder struct {
	kind  index.Kind
	exact analysis.Analyzer
	tries map[string]analysis.Analyzer // by trie name
}

func newBuilder(kind index.Kind, m mapping.IndexMapping) *builder {
	b := &builder{kind: kind, exact: m.AnalyzerNamed(exactAnalyzer), tries: map[string]analysis.Analyzer{}}
	for _, t := range tries {
		b.tries[t.name] = m.AnalyzerNamed(t.name)
	}
	return b
}

// fieldOf is the catalog field of a document field name, custom fields
// included; a name the catalog does not know is a plain keyword.
func (b *builder) fieldOf(name string) index.Field {
	if f, ok := index.FieldOf(b.kind, name); ok {
		return f
	}
	return index.Field{Name: name, Type: index.KeywordField}
}

// options are a field's indexing options. Sortable keywords keep their doc
// values uncompressed; sortable numbers keep theirs in a keyword twin (see
// document).
func options(f index.Field) bi.FieldIndexingOptions {
	opts := bi.IndexField
	if f.Sortable && f.Type != index.NumberField {
		opts |= bi.DocValues | bi.SkipDVChunking | bi.SkipDVCompression
	}
	return opts
}

// presentOptions index the names of a document's fields (PresentField)
// without a frequency and norm per posting: `field:*` is a filter, never
// scored, and nearly every document has nearly every name, so the two
// numbers were a third of the field's bytes. (Zap's one-hit encoding,
// which needs a frequency, is lost too; few names are that rare.)
const presentOptions = bi.IndexField | bi.SkipFreqNorm

// document builds the Bleve document of d. Values of a multi-valued field
// get array positions, as the mapping gives array elements, so phrases do
// not cross values; the exact twin of a phrase field keeps them apart by
// position instead (phrasefield.go). It fails on a value a Whole field
// cannot hold.
func (b *builder) document(d index.Document) (*document.Document, error) {
	doc := document.NewDocument(d.ID)
	positions := func(n, i int) []uint64 {
		if n == 1 {
			return nil
		}
		return []uint64{uint64(i)}
	}
	addValues := func(name string, opts bi.FieldIndexingOptions, values []string, analyzer analysis.Analyzer) {
		for i, v := range values {
			doc.AddField(document.NewTextFieldCustom(name, positions(len(values), i), []byte(v), opts, analyzer))
		}
	}
	addKeywords := func(name string, opts bi.FieldIndexingOptions, values []string) {
		if len(values) > 0 {
			doc.AddField(newKeywordField(name, values, opts))
		}
	}
	addWords := func(f index.Field, values []string) {
		addKeywords(f.Name, options(f), values)
	}
	addKeywords(index.PresentField, presentOptions, d.Present())
	for name, values := range d.Keywords {
		f := b.fieldOf(name)
		addWords(f, values)
		if f.Substrings {
			addWords(index.Field{Name: suffixPrefix + name}, suffixes(values))
		}
	}
	for name, values := range d.Texts {
		// The stemmed forms that differ from their words under the
		// field's name (stem.go), the exact forms (with positions, for
		// phrases: phrasefield.go) in the twin.
		f := b.fieldOf(name)
		words := make([]*valueWords, len(values))
		for i, v := range values {
			words[i] = newValueWords(v)
			doc.AddField(newStemField(name, positions(len(values), i), words[i], options(f)))
		}
		if f.Phrases && len(values) > 0 {
			doc.AddField(newPhraseField(index.ExactField(name), words, bi.IndexField|bi.IncludeTermVectors))
		} else {
			addValues(index.ExactField(name), bi.IndexField, values, b.exact)
		}
	}
	for name, values := range d.Numbers {
		f := b.fieldOf(name)
		opts, trie := options(f), b.tries[trieOf(f).name]
		if f.Key {
			keys := make([]string, len(values))
			for i, v := range values {
				keys[i] = sortKey(v)
			}
			addKeywords(name, bi.IndexField, keys)
		} else {
			for i, v := range values {
				code, ok := numberCode(f, v)
				if !ok {
					return nil, fmt.Errorf("document %s: field %s holds whole numbers of at most 53 bits, not %v", d.ID, name, v)
				}
				doc.AddField(document.NewTextFieldCustom(name, positions(len(values), i), numberValue(code), opts, trie))
			}
		}
		if f.Sortable && len(values) > 0 {
			addWords(index.Field{Name: sortPrefix + name, Type: index.KeywordField, Sortable: true},
				[]string{sortKey(slices.Min(values))})
		}
		if f.Valued && len(values) > 0 {
			keys := make([]string, len(values))
			for i, v := range values {
				keys[i] = index.ValueKey(v)
			}
			addWords(index.Field{Name: index.ValuedPrefix + name}, keys)
		}
	}
	return doc, nil
}
