package pgindex

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parley/parley/index"
)

// PostgreSQL refuses lexemes of 2048 bytes or more. A longer token is
// stored as its first standInPrefix bytes and a hash of the whole, the
// same on both sides, so words still match exactly; a prefix longer than
// that is checked against the runs.
const (
	maxLexeme     = 2000
	standInPrefix = 1000
)

// lexeme is the tsvector lexeme of a token.
func lexeme(token string) string {
	if len(token) <= maxLexeme {
		return token
	}
	sum := sha256.Sum256([]byte(token))
	return cut(token, standInPrefix) + "#" + hex.EncodeToString(sum[:])
}

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// quote writes a lexeme as tsvector and tsquery input read it: quoted,
// with quotes doubled and backslashes escaped, so no character of a token
// is taken for syntax and PostgreSQL applies no analysis of its own.
func quote(lexeme string) string {
	return "'" + lexemeEscaper.Replace(lexeme) + "'"
}

// lexemeEscaper is built once: a Replacer builds its lookup tables on first
// use, which per token was a third of the syncer's CPU on PostgreSQL.
var lexemeEscaper = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// separators cannot occur in a token (index.Tokens yields runs of letters
// and digits): the runs of a text separate tokens by spaces and values by
// newlines, so a phrase never crosses a value.
const separators = " \n"

// analyse turns the values of a text field into the tsvector input of its
// exact forms and of its stemmed forms, and its runs: each value's exact
// forms between spaces, one value per line.
func analyse(values []string) (lexemes, stems, runs string, err error) {
	var lex, stem, run strings.Builder
	for i, v := range values {
		if i > 0 {
			run.WriteByte('\n')
		}
		run.WriteByte(' ')
		for _, t := range index.Tokens(v) {
			if strings.ContainsAny(t, separators) || strings.ContainsRune(t, 0) {
				return "", "", "", fmt.Errorf("pgindex: token %q holds a separator", t)
			}
			if lex.Len() > 0 {
				lex.WriteByte(' ')
				stem.WriteByte(' ')
			}
			lex.WriteString(quote(lexeme(t)))
			stem.WriteString(quote(lexeme(index.Stem(t))))
			run.WriteString(t)
			run.WriteByte(' ')
		}
	}
	return lex.String(), stem.String(), run.String(), nil
}

// allOf is the tsquery of documents holding every token.
func allOf(tokens []string) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = quote(lexeme(t))
	}
	return strings.Join(parts, " & ")
}

// prefixOf is the tsquery of documents holding a token that may start with
// p: exact for short prefixes, a superset for long ones.
func prefixOf(p string) string {
	return quote(cut(p, standInPrefix)) + ":*"
}

// run is how a phrase appears in runs: its tokens between spaces.
func run(tokens []string) string { return " " + strings.Join(tokens, " ") + " " }

// textArray writes a PostgreSQL array literal of strings, every element
// quoted, for columns filled from unnest (which cannot take ragged
// two-dimensional arrays).
func textArray(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		arrayEscaper.WriteString(&b, v)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// arrayEscaper escapes an array element's quotes and backslashes.
var arrayEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// text makes a keyword value storable: PostgreSQL's text holds neither NUL
// nor invalid UTF-8, which Go strings may. Both become U+FFFD, on stored
// values and on searched ones alike, so they still find each other (and a
// value with a literal U+FFFD in that place). Tokens never change: they
// are runs of letters and digits, cut at rune boundaries.
func text(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// likePattern escapes LIKE's wildcards in s.
func likePattern(s string) string { return likeEscaper.Replace(s) }

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
