package query

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Syntax nodes print in query syntax, so that Parse(n.String()) gives the
// same tree back (columns aside): values are escaped or quoted as needed,
// And and Or are parenthesised infix lists, Not is a NOT prefix. Query
// nodes print as function-like terms for golden files and logs; they are
// not meant to be parsed.

// String prints the clause in query syntax, escaping or quoting the value.
func (n Field) String() string {
	var v string
	if n.Quoted {
		v = quoteValue(n.Value)
	} else {
		// A bare term starts a clause, where a sign would be an operator.
		v = escapeWord(n.Value, n.Field != "")
		if n.Wildcard {
			v += "*"
		}
	}
	if n.Field == "" {
		return v
	}
	return n.Field + ":" + v
}

// String prints the range in query syntax, `*` for an open end.
func (n Range) String() string {
	open, close := "{", "}"
	if n.LowerInclusive {
		open = "["
	}
	if n.UpperInclusive {
		close = "]"
	}
	r := open + bound(n.Lower, n.LowerOpen) + " TO " + bound(n.Upper, n.UpperOpen) + close
	if n.Field == "" {
		return r
	}
	return n.Field + ":" + r
}

func bound(v string, open bool) string {
	if open {
		return "*"
	}
	return escapeWord(v, true)
}

// String prints `field:*`.
func (n Exists) String() string { return n.Field + ":*" }

// String prints `(a AND b ...)`.
func (n And) String() string { return join(n.Nodes, " AND ") }

// String prints `(a OR b ...)`.
func (n Or) String() string { return join(n.Nodes, " OR ") }

func join(nodes []Node, op string) string {
	parts := make([]string, len(nodes))
	for i, c := range nodes {
		parts[i] = str(c)
	}
	return "(" + strings.Join(parts, op) + ")"
}

// String prints `NOT x`.
func (n Not) String() string { return "NOT " + str(n.Node) }

// str prints a child that programmatic code may have left nil.
func str(n Node) string {
	if n == nil {
		return "<nil>"
	}
	return n.String()
}

// String prints `ALL`.
func (All) String() string { return "ALL" }

// String prints `match(field, "text")`, or `exact(field, "text")` for
// exact forms.
func (n Match) String() string {
	if n.Exact {
		return call("exact", n.Field, n.Text)
	}
	return call("match", n.Field, n.Text)
}

// String prints `phrase(field, "text")`.
func (n Phrase) String() string { return call("phrase", n.Field, n.Text) }

// String prints `keyword(field, "value")`.
func (n Keyword) String() string { return call("keyword", n.Field, n.Value) }

// String prints `prefix(field, "value")`.
func (n Prefix) String() string { return call("prefix", n.Field, n.Value) }

// String prints contains(field, "value").
func (n Contains) String() string { return call("contains", n.Field, n.Value) }

func call(name, field, value string) string {
	return name + "(" + field + ", " + strconv.Quote(value) + ")"
}

// String prints `range(field, [min TO max])`, brackets showing
// inclusiveness and `*` for an open end.
func (n NumberRange) String() string {
	num := func(v *float64) string {
		if v == nil {
			return "*"
		}
		// 'f' keeps ids and counts free of exponents; 'g' stops huge values
		// from printing hundreds of digits.
		if math.Abs(*v) < 1e21 {
			return strconv.FormatFloat(*v, 'f', -1, 64)
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return "range(" + n.Field + ", " + brackets(num(n.Min), num(n.Max), n.MinInclusive, n.MaxInclusive) + ")"
}

// String prints `time(field, [from TO to})` with RFC 3339 UTC instants,
// brackets showing inclusiveness and `*` for an open end.
func (n TimeRange) String() string {
	t := func(v *time.Time) string {
		if v == nil {
			return "*"
		}
		return v.UTC().Format(time.RFC3339Nano)
	}
	return "time(" + n.Field + ", " + brackets(t(n.From), t(n.To), n.FromInclusive, n.ToInclusive) + ")"
}

func brackets(lower, upper string, lowerInclusive, upperInclusive bool) string {
	open, close := "{", "}"
	if lowerInclusive {
		open = "["
	}
	if upperInclusive {
		close = "]"
	}
	return open + lower + " TO " + upper + close
}

// String prints `exists(field)`.
func (n FieldExists) String() string { return "exists(" + n.Field + ")" }

// isReserved reports characters that end a word unless escaped; it mirrors
// reservedChars in the lexer.
func isReserved(r rune) bool {
	return strings.ContainsRune("\t\n\v\f\r ()[]{}:\"\\", r) || unicode.Is(unicode.Z, r)
}

// plainDateTime is a value the DateTime token reproduces as it is, so it can
// be printed without escaping its colons.
var plainDateTime = regexp.MustCompile(`^` + dateTimeHead + `[^` + reservedChars + `*]*$`)

// escapeWord writes v so that it lexes back as one word with value v. A
// leading sign is left bare where the grammar accepts one (signOK: after
// ':' and in ranges); everything else that the lexer would read as an
// operator or a wildcard gets a backslash.
func escapeWord(v string, signOK bool) string {
	if plainDateTime.MatchString(v) {
		return v
	}
	var b strings.Builder
	if signOK && len(v) > 1 && (v[0] == '-' || v[0] == '+') {
		b.WriteByte(v[0])
		v = v[1:]
	}
	switch {
	case v == "AND", v == "OR", v == "NOT", v == "TO",
		strings.HasPrefix(v, "&&"), strings.HasPrefix(v, "||"):
		b.WriteByte('\\')
	}
	for i, r := range v {
		if isReserved(r) || r == '*' || (i == 0 && strings.ContainsRune("-+!", r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// quoteValue writes v as a quoted value of the query language, where a
// backslash escapes the next character (unlike strconv.Quote, which would
// turn a newline into "\n" and so into "n" when parsed back).
func quoteValue(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
