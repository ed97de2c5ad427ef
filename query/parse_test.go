package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTrees(t *testing.T) {
	t.Parallel()
	bare := func(v string, col int) Field { return Field{Value: v, Column: col} }
	tests := []struct {
		in   string
		want Node
	}{
		{`refund`, bare("refund", 1)},
		{`"credit card"`, Field{Value: "credit card", Quoted: true, Column: 1}},
		{`subject:refun*`, Field{Field: "subject", Value: "refun", Wildcard: true, Column: 1}},
		{`subject:\*`, Field{Field: "subject", Value: "*", Column: 1}},
		{`  email:*`, Exists{Field: "email", Column: 3}},
		{`a b OR c`, Or{Nodes: []Node{And{Nodes: []Node{bare("a", 1), bare("b", 3)}}, bare("c", 8)}}},
		{`a AND (b AND c)`, And{Nodes: []Node{bare("a", 1), bare("b", 8), bare("c", 14)}}},
		{`(a OR b) OR c`, Or{Nodes: []Node{bare("a", 2), bare("b", 7), bare("c", 13)}}},
		{`+a`, bare("a", 2)},
		{`-a`, Not{Node: bare("a", 2)}},
		{`- -a`, Not{Node: Not{Node: bare("a", 4)}}},
		{`tag:(a OR -b)`, Or{Nodes: []Node{
			Field{Field: "tag", Value: "a", Column: 6},
			Not{Node: Field{Field: "tag", Value: "b", Column: 12}},
		}}},
		{`number:{-1 TO *]`, Range{Field: "number", Lower: "-1", UpperOpen: true, UpperInclusive: true, Column: 1}},
		{`createdAt:[NOW-7DAYS/DAY TO "2024"}`, Range{Field: "createdAt", Lower: "NOW-7DAYS/DAY", Upper: "2024", LowerInclusive: true, Column: 1}},
		{`créé\:x`, bare("créé:x", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestErrorColumns pins the column of errors whose position matters most;
// every other error's column is recorded in testdata/invalid.golden.
func TestErrorColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		column  int
		message string
	}{
		{`(subject:refund OR tag:)`, 24, `unexpected ")" at column 24, expected a value`},
		{`(subject:refund`, 16, `unexpected end of query at column 16, expected ")"`},
		{`subject:"refund`, 9, `unterminated quoted value at column 9`},
		{`a )`, 3, `unexpected ")" at column 3, there is no "(" to close`},
		{`a AND OR b`, 7, `unexpected "OR" at column 7, expected a term`},
		{`créé AND (`, 11, `unexpected end of query at column 11, expected a term`},
		{`créé:x`, 1, `invalid field name "créé" at column 1, quote the value or write \: to search for ":"`},
		{`été "x`, 5, `unterminated quoted value at column 5`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			var e *Error
			require.True(t, errors.As(err, &e), "got %v", err)
			assert.Equal(t, tt.column, e.Column)
			assert.Equal(t, tt.message, e.Message)
			assert.Equal(t, tt.message, e.Error())
		})
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	accepted := []string{
		"subject:" + strings.Repeat("a", MaxLength-len("subject:")),
		strings.Repeat("(", MaxDepth) + "a" + strings.Repeat(")", MaxDepth),
		strings.Repeat("NOT ", MaxDepth) + "a",
		strings.Repeat("(NOT ", MaxDepth/2) + "a" + strings.Repeat(")", MaxDepth/2),
		strings.Repeat("x ", MaxClauses),
		"tag:(" + strings.Repeat("x ", MaxClauses) + ")",
		`body:"` + strings.Repeat("the ", MaxPhraseWords) + `"`,
	}
	for _, in := range accepted {
		_, err := Parse(in)
		assert.NoError(t, err, "%.40q", in)
	}
	rejected := []struct{ in, message string }{
		{strings.Repeat("a", MaxLength+1), "query too long"},
		{strings.Repeat("(", 100_000), "query too long"},
		{strings.Repeat("(", 2000), "too deeply nested at column 33"},
		{strings.Repeat("(NOT ", MaxDepth/2) + "-a" + strings.Repeat(")", MaxDepth/2), "too deeply nested at column 81"},
		{"tag:(" + strings.Repeat("x ", MaxClauses+1) + ")", "too many clauses at column 518"},
		{strings.Repeat("x ", MaxClauses) + "y:[1 TO 2]", "too many clauses at column 513"},
		{`body:"` + strings.Repeat("the ", MaxPhraseWords+1) + `"`, "phrase too long at column 6"},
		{`a "` + strings.Repeat("the\t", MaxPhraseWords+1) + `"`, "phrase too long at column 3"},
	}
	for _, tt := range rejected {
		_, err := Parse(tt.in)
		require.Error(t, err, "%.40q", tt.in)
		assert.Contains(t, err.Error(), tt.message)
	}
}

// TestRoundTrip checks that syntax nodes print as query text that parses
// back to the same tree, for every golden query and for values that need
// escaping.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	inputs := append([]string{
		`subject:"a\"b\\c"`, `\AND \OR \NOT \TO`, `\&&x \||y \!z \+p \-m`, `tag:\-`, `tag:\-\-x`,
		`number:-\-1`, `number:[-1 TO +2}`, `subject:\*\**`, `a\ b\:c\(d\)e\[f\]g\{h\}`,
		`"line\nbreak"`, "\"real\nbreak\"", `x:2024-01-01T00:00:00Z`, `x:2024-01-01T00\:00`,
		`createdAt:[2024-01-01T00:00:00Z TO 2024-01-01T00:00:00Z/DAY]`, `createdAt:["a b" TO "*"]`,
		`é\ ü`, `subject:(a OR (b c)) -(d OR e)`, `NOT (a OR b)`, `NOT NOT a`,
	}, validQueries...)
	for _, in := range inputs {
		n, err := Parse(in)
		require.NoError(t, err, in)
		again, err := Parse(n.String())
		require.NoError(t, err, "%s printed as %s", in, n)
		assert.Equal(t, stripColumns(n), stripColumns(again), "%s printed as %s", in, n)
	}
}

// stripColumns zeroes the columns, which printing does not preserve.
func stripColumns(n Node) Node {
	switch n := n.(type) {
	case Field:
		n.Column = 0
		return n
	case Range:
		n.Column = 0
		return n
	case Exists:
		n.Column = 0
		return n
	case And:
		return And{Nodes: stripAll(n.Nodes)}
	case Or:
		return Or{Nodes: stripAll(n.Nodes)}
	case Not:
		return Not{Node: stripColumns(n.Node)}
	}
	return n
}

func stripAll(nodes []Node) []Node {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		out[i] = stripColumns(n)
	}
	return out
}
