package pgindex

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parley/parley/index"
)

var _ index.Suggester = (*Engine)(nil)

// Words lists the company's exact forms within maxEdits of word. The
// candidates are the distinct lexemes of the company's text columns of
// the kind (and of its documents' extra text fields) whose length is
// within maxEdits of the word's (an edit changes the length by one at
// most); the edit distance itself is measured in Go, by
// index.EditDistance, so the answer is the scan oracle's. This reads the
// company's rows of the kind, so it costs in proportion to them;
// suggestions are only asked for when a search found nothing.
func (e *Engine) Words(ctx context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	l, ok := layouts[kind]
	if !ok {
		return nil, fmt.Errorf("pgindex: words: unknown kind %q", kind)
	}
	var lexemes []string
	for _, c := range l.columns {
		if c.field.Type == index.TextField {
			lex, _, _ := c.textColumns()
			lexemes = append(lexemes, "d."+lex)
		}
	}
	sql := `SELECT w.lexeme FROM ` + l.table + ` d, jsonb_each(d.extra->'t') x, unnest((x.value->>'l')::tsvector) AS w
WHERE d.company_id = $1 AND char_length(w.lexeme) BETWEEN $2 AND $3`
	if len(lexemes) > 0 {
		sql = `SELECT w.lexeme FROM ` + l.table + ` d, unnest(` + strings.Join(lexemes, " || ") + `) AS w
WHERE d.company_id = $1 AND char_length(w.lexeme) BETWEEN $2 AND $3
UNION ` + sql
	} else {
		sql = "SELECT DISTINCT " + strings.TrimPrefix(sql, "SELECT ")
	}
	n := utf8.RuneCountInString(word)
	rows, err := e.pool.Query(ctx, sql, company, n-maxEdits, n+maxEdits)
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
