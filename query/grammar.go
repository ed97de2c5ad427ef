package query

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The lexer is context free, so the token rules carry a few decisions:
//
//   - A word may not start with '-', '+' or '!': there they are prefix
//     operators. Inside a word they are ordinary characters, so e-mail
//     addresses like john+tag@example.co.uk and date math like NOW-7DAYS/DAY
//     stay one word.
//   - A word may start with '*' only when more characters follow, so that
//     `*foo` reaches the parser as one word and gets a clear "leading
//     wildcard" error instead of silently becoming `* foo`.
//   - DateTime comes before Word because a timestamp holds ':', which would
//     otherwise end the word. Its tail takes word characters so that anchored
//     date math (2013-01-01T00:00:00Z/YEAR) stays one token.
//   - "&&" and "||" are tried before Word; a lone '&' or '|' is a word.
//   - Whitespace (rule name in lower case) is skipped by the lexer.
const (
	spaceChars = `\s\v\p{Z}`
	// reservedChars end a word unless escaped.
	reservedChars = spaceChars + `()\[\]{}:"\\`
	escaped       = `\\(?s:.)`
	wordTail      = `(?:` + escaped + `|[^` + reservedChars + `])*`
	wordStart     = `(?:` + escaped + `|\*+(?:` + escaped + `|[^` + reservedChars + `*])|[^` + reservedChars + `*+!-])`
	// dateTimeHead is the part of a timestamp that the Word rule could not
	// lex on its own (it contains ':').
	dateTimeHead = `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?`
)

var queryLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "whitespace", Pattern: `[` + spaceChars + `]+`},
	{Name: "DateTime", Pattern: dateTimeHead + wordTail},
	{Name: "Quoted", Pattern: `"(?:` + escaped + `|[^"\\])*"`},
	{Name: "Operator", Pattern: `&&|\|\|`},
	{Name: "Word", Pattern: wordStart + wordTail},
	{Name: "Punct", Pattern: `[()\[\]{}:!*+-]`},
})

// The grammar structs follow the precedence OR < AND (explicit or implicit)
// < prefix operators < primary. Operator words are excluded from terms with
// negative lookahead so that `a OR b` never reads OR as a search word.

type gOr struct {
	And []*gAnd `parser:"@@ ( ( 'OR' | '||' ) @@ )*"`
}

type gAnd struct {
	Unary []*gUnary `parser:"@@ ( ( 'AND' | '&&' )? @@ )*"`
}

type gUnary struct {
	Pos     lexer.Position
	Op      string    `parser:"(  @( 'NOT' | '!' | '-' | '+' )"`
	Next    *gUnary   `parser:"   @@ )"`
	Primary *gPrimary `parser:"| @@"`
}

type gPrimary struct {
	Pos    lexer.Position
	Group  *gOr         `parser:"  '(' @@ ')'"`
	Range  *gRange      `parser:"| @@"`
	Quoted *lexer.Token `parser:"| @Quoted"`
	Term   *lexer.Token `parser:"| (?! 'AND' | 'OR' | 'NOT' ) @( Word | DateTime )"`
	Colon  bool         `parser:"  ( @':'"`
	Value  *gValue      `parser:"    @@ )?"`
}

// gValue is what may follow `field:`.
type gValue struct {
	Pos    lexer.Position
	Group  *gOr         `parser:"  '(' @@ ')'"`
	Range  *gRange      `parser:"| @@"`
	Star   bool         `parser:"| @'*'"`
	Quoted *lexer.Token `parser:"| @Quoted"`
	Word   *gWord       `parser:"| @@"`
}

// gWord is an unquoted value. A sign is accepted because after ':' or inside
// a range a '-' is part of the value (number:-5), not an operator; the
// converter requires the sign to touch the word.
type gWord struct {
	Sign *lexer.Token `parser:"@( '-' | '+' )?"`
	Word lexer.Token  `parser:"(?! 'AND' | 'OR' | 'NOT' | 'TO' ) @( Word | DateTime )"`
}

type gRange struct {
	Pos   lexer.Position
	Open  string  `parser:"@( '[' | '{' )"`
	Lower *gBound `parser:"@@ 'TO'"`
	Upper *gBound `parser:"@@"`
	Close string  `parser:"@( ']' | '}' )"`
}

type gBound struct {
	Pos    lexer.Position
	Star   bool         `parser:"  @'*'"`
	Quoted *lexer.Token `parser:"| @Quoted"`
	Word   *gWord       `parser:"| @@"`
}

// Token types, for checks made on the token stream.
var (
	wordToken     = queryLexer.Symbols()["Word"]
	dateTimeToken = queryLexer.Symbols()["DateTime"]
	quotedToken   = queryLexer.Symbols()["Quoted"]
)

// queryParser is built once; participle parsers are safe for concurrent use.
//
// Every alternative of the grammar is decided by its first token, so the
// parser commits as soon as a branch has consumed one: lookahead 0 makes a
// branch that fails after that an error at the token where it failed, rather
// than a silent backtrack that would report some earlier token instead.
var queryParser = participle.MustBuild[gOr](participle.Lexer(queryLexer), participle.UseLookahead(0))
