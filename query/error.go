package query

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Error is a query that cannot be parsed or checked. Message is meant for
// the person who wrote the query and already names the column; Column is
// 1-based and counts characters (not bytes) from the start of the query.
type Error struct {
	Column  int
	Message string
}

// Error returns Message.
func (e *Error) Error() string { return e.Message }

// source is the query text, kept to turn byte offsets into columns.
type source string

// col returns the 1-based character column of a byte offset.
func (s source) col(offset int) int {
	offset = min(max(offset, 0), len(s))
	return utf8.RuneCountInString(string(s[:offset])) + 1
}

// newError builds the usual message shape: what went wrong, where, and an
// optional hint that starts with its own separator.
func newError(column int, what, hint string) *Error {
	return &Error{Column: column, Message: fmt.Sprintf("%s at column %d%s", what, column, hint)}
}

// errorAt is newError at a byte offset of the query.
func (s source) errorAt(offset int, what, hint string) *Error {
	return newError(s.col(offset), what, hint)
}

// errorEnd builds an Error about the end of the query: Column points just
// past the last character, and the message says so, as every other
// message names its column.
func (s source) errorEnd(what, hint string) *Error {
	return newError(s.col(len(s)), what, hint)
}

// lexError explains why the lexer stopped. Every character lexes somewhere
// except an unpaired quote and a backslash at the very end.
func (s source) lexError(err error) *Error {
	offset := len(s)
	if e, ok := err.(*lexer.Error); ok {
		offset = e.Pos.Offset
	}
	switch {
	case offset < len(s) && s[offset] == '"':
		return s.errorAt(offset, "unterminated quoted value", "")
	case offset < len(s) && s[offset] == '\\':
		return s.errorAt(offset, `nothing to escape after "\"`, `, write \\ to search for a backslash`)
	default:
		return s.errorAt(offset, "unexpected character", "")
	}
}

// syntaxError turns the position where participle gave up into a message.
// Participle's own text names grammar structs, so the expectation is worked
// out again from the tokens before the failure: with this grammar the
// previous token or two decide what was allowed.
func (s source) syntaxError(tokens []lexer.Token, offset int) *Error {
	i := 0
	for i < len(tokens)-1 && tokens[i].Pos.Offset < offset {
		i++
	}
	tok := tokens[i]
	at := func(expected string) *Error {
		if tok.EOF() {
			return s.errorEnd("unexpected end of query", ", expected "+expected)
		}
		return s.errorAt(tok.Pos.Offset, "unexpected "+describe(tok), ", expected "+expected)
	}

	var prev, prev2 *lexer.Token
	if i > 0 {
		prev = &tokens[i-1]
	}
	if i > 1 {
		prev2 = &tokens[i-2]
	}
	inRange, seenTO, openParens := false, false, 0
	for _, t := range tokens[:i] {
		switch t.Value {
		case "[", "{":
			inRange, seenTO = true, false
		case "]", "}":
			inRange = false
		case "TO":
			seenTO = inRange
		case "(":
			openParens++
		case ")":
			openParens--
		}
	}
	isOp := func(t *lexer.Token, ops ...string) bool {
		if t == nil || t.EOF() {
			return false
		}
		for _, op := range ops {
			if t.Value == op {
				return true
			}
		}
		return false
	}
	afterSign := isOp(prev, "-", "+")
	valueStart := func(t *lexer.Token) bool {
		return isOp(t, ":", "[", "{") || (inRange && isOp(t, "TO"))
	}

	switch {
	case isOp(prev, ":") || (afterSign && isOp(prev2, ":")):
		return at("a value")
	case inRange && (valueStart(prev) || (afterSign && valueStart(prev2))):
		return at("a range bound")
	case isOp(prev, "(", "AND", "OR", "NOT", "&&", "||", "!", "-", "+"):
		return at("a term")
	case tok.Value == ")" && openParens <= 0:
		return s.errorAt(tok.Pos.Offset, `unexpected ")"`, `, there is no "(" to close`)
	case prev == nil:
		return at("a term")
	case inRange && !seenTO:
		return at(`"TO"`)
	case inRange:
		return at(`"]" or "}"`)
	case tok.EOF():
		return at(`")"`)
	case len(tok.Value) == 1 && isReserved(rune(tok.Value[0])):
		return s.errorAt(tok.Pos.Offset, "unexpected "+describe(tok), `, write \`+tok.Value+" to search for it")
	default:
		return at("an operator or a term")
	}
}

// describe quotes a token for a message, shortening long words.
func describe(tok lexer.Token) string {
	if tok.EOF() {
		return "end of query"
	}
	v, long := tok.Value, utf8.RuneCountInString(tok.Value) > 40
	if long {
		v = string([]rune(v)[:40]) + "..."
	}
	if tok.Type == quotedToken {
		// Already in quotes; quoting again would only add backslashes.
		if long {
			v += `"`
		}
		return v
	}
	return strconv.Quote(v)
}
