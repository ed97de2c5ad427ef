package pgindex

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/parley/parley/index"
)

var _ index.Suggester = (*Engine)(nil)

// Words lists the company's exact forms within maxEdits of word. The
// candidates are the distinct lexemes of the company's text rows of the
// kind whose length is within maxEdits of the word's (an edit changes the
// length by one at most); the edit distance itself is measured in Go, by
// index.EditDistance, so the answer is the scan oracle's. This reads the
// company's text rows of the kind, so it costs in proportion to them;
// suggestions are only asked for when a search found nothing.
func (e *Engine) Words(ctx context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	n := utf8.RuneCountInString(word)
	rows, err := e.pool.Query(ctx, `SELECT DISTINCT w.lexeme FROM search_texts t, unnest(t.lexemes) AS w
WHERE t.company_id = $1 AND t.kind = $2 AND char_length(w.lexeme) BETWEEN $3 AND $4`,
		company, string(kind), n-maxEdits, n+maxEdits)
	if err != nil {
		return nil, fmt.Errorf("pgindex: words: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, fmt.Errorf("pgindex: words: %w", err)
		}
		if index.SuggestableWord(w) && index.EditDistance(word, w) <= maxEdits {
			out = append(out, w)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgindex: words: %w", err)
	}
	return out, nil
}
