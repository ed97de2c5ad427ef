package bleveindex

import (
	"context"
	"fmt"
	"strings"

	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

var _ index.Suggester = (*Engine)(nil)

// Words walks, with a Levenshtein automaton (transpositions included), the
// term dictionaries of the exact forms of every text field of the
// company's partition: its own words only, since the partition holds only
// its documents.
func (e *Engine) Words(ctx context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	if _, ok := e.mappings[kind]; !ok {
		return nil, fmt.Errorf("bleveindex: unknown kind %q", kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := e.acquire(partitionKey{kind, company}, false)
	if err != nil || p == nil {
		return nil, err
	}
	defer e.release(p)
	in, err := p.idx.Advanced()
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
	fields, err := r.Fields()
	if err != nil {
		return nil, fmt.Errorf("bleveindex: words: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, field := range fields {
		if !strings.HasPrefix(field, index.ExactPrefix) {
			continue
		}
		if err := fuzzyTerms(fuzzy, field, word, maxEdits, func(term string) {
			if !seen[term] && index.SuggestableWord(term) {
				seen[term] = true
				out = append(out, term)
			}
		}); err != nil {
			return nil, fmt.Errorf("bleveindex: words: %w", err)
		}
	}
	return out, nil
}

// fuzzyTerms calls fn with every term of field within maxEdits of word.
func fuzzyTerms(r bi.IndexReaderFuzzy, field, word string, maxEdits int, fn func(string)) error {
	dict, err := r.FieldDictFuzzy(field, word, maxEdits, "")
	if err != nil {
		return err
	}
	defer dict.Close()
	for {
		entry, err := dict.Next()
		if err != nil {
			return err
		}
		if entry == nil {
			return nil
		}
		fn(entry.Term)
	}
}
