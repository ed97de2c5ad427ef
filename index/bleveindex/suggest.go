package bleveindex

import (
	"context"
	"fmt"
	"strings"

	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

var _ index.Suggester = (*Engine)(nil)

// Words walks the fuzzy term dictionary of index.WordsField, restricted to
// the company's prefix: the Levenshtein automaton (with transpositions)
// runs over "<company>:<word>", and only terms that start with the
// company's prefix are visited, so no other company's word can come back.
func (e *Engine) Words(ctx context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	idx, ok := e.indexes[kind]
	if !ok {
		return nil, fmt.Errorf("bleveindex: unknown kind %q", kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("bleveindex: words: %w", err)
	}
	r, err := in.Reader()
	if err != nil {
		return nil, fmt.Errorf("bleveindex: words: %w", err)
	}
	defer r.Close()
	fuzzy, ok := r.(bi.IndexReaderFuzzy)
	if !ok {
		return nil, fmt.Errorf("bleveindex: the index cannot search its dictionary by edit distance")
	}
	prefix := index.WordsPrefix(company)
	dict, err := fuzzy.FieldDictFuzzy(index.WordsField, prefix+word, maxEdits, prefix)
	if err != nil {
		return nil, fmt.Errorf("bleveindex: words: %w", err)
	}
	defer dict.Close()
	var out []string
	for {
		entry, err := dict.Next()
		if err != nil {
			return nil, fmt.Errorf("bleveindex: words: %w", err)
		}
		if entry == nil {
			return out, nil
		}
		if w, ok := strings.CutPrefix(entry.Term, prefix); ok {
			out = append(out, w)
		}
	}
}
