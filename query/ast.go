// Package query is Parley's advanced search language: a participle grammar
// (unexported) that produces a syntax tree, and a checker that resolves that
// tree against a field Schema into the engine-neutral AST that every search
// engine translates. It knows no engine and no HTTP.
//
// The pipeline has two steps, each with its own node family:
//
//	Parse(input)              -> syntax nodes  (Field, Value, Range with raw text and columns)
//	Check(syntax, schema, now) -> query nodes   (Match, Phrase, Keyword, Prefix, NumberRange,
//	                                             TimeRange, Exists, And, Or, Not, All)
//
// Engines only ever see query nodes. Programmatic filters (list parameters,
// report filters, the caller's company) are built directly as query nodes.
package query

import "time"

// Node is any node of either family. String prints a canonical form that is
// stable across runs, for golden files and logs.
type Node interface {
	String() string
	node()
}

// ---- Syntax family: what the user wrote. Produced by Parse, consumed by Check.

// Field is `field:value`, `field:"quoted value"` or a bare term (Field == "").
// Value has backslash escapes resolved. Wildcard is true when the unquoted
// value ended with an unescaped `*` (which is removed from Value); a lone `*`
// value is parsed as Exists instead.
type Field struct {
	Field    string
	Value    string
	Quoted   bool
	Wildcard bool
	Column   int // 1-based column of the field name (or of the value for a bare term)
}

// Range is `field:[lower TO upper]`, `{...}` or mixed brackets. An open end
// (`*`) is the empty string with Open set.
type Range struct {
	Field                          string
	Lower, Upper                   string
	LowerOpen, UpperOpen           bool
	LowerInclusive, UpperInclusive bool
	Column                         int
}

// Exists is `field:*`: the document has any value in the field.
type Exists struct {
	Field  string
	Column int
}

// ---- Shared boolean nodes (both families).

// And matches documents matched by every child.
type And struct{ Nodes []Node }

// Or matches documents matched by at least one child.
type Or struct{ Nodes []Node }

// Not matches documents not matched by its child. A pure negative query is
// Not on its own; engines evaluate it against All.
type Not struct{ Node Node }

// All matches every document (of the searched kind and company).
type All struct{}

// ---- Query family: what to find. Produced by Check or built by code.

// Match is a full-text match on a text field: every word of Text (after
// the engines' shared analysis, see index.Tokens) must occur in the field,
// in any order. Words match any of their forms (their stems are compared)
// unless Exact, which a quoted value sets: then the exact forms are
// compared, case and accents still folded.
type Match struct {
	Field string
	Text  string
	Exact bool
}

// Phrase is a full-text match of the words of Text, adjacent and in order,
// in their exact forms (a phrase is always quoted).
type Phrase struct {
	Field string
	Text  string
}

// Keyword is an exact match of a keyword field's value. Keyword values are
// stored and compared lowercased; Value is already lowercased.
type Keyword struct {
	Field string
	Value string
}

// Prefix matches a keyword value, or the exact form of a word of a text
// field, that starts with Value (lowercased; on a text field engines also
// fold its accents as the analysis does).
type Prefix struct {
	Field string
	Value string
}

// Contains matches a keyword value that holds Value (lowercased) anywhere,
// as the customer list's `email` wants ("contains").
type Contains struct {
	Field string
	Value string
}

// NumberRange matches numeric values between Min and Max. A nil bound is
// open. Equality is Min == Max, both inclusive.
type NumberRange struct {
	Field                      string
	Min, Max                   *float64
	MinInclusive, MaxInclusive bool
}

// TimeRange matches date values between From and To (UTC). A nil bound is open.
type TimeRange struct {
	Field                      string
	From, To                   *time.Time
	FromInclusive, ToInclusive bool
}

// FieldExists matches documents with any value in Field.
type FieldExists struct {
	Field string
}

func (Field) node()       {}
func (Range) node()       {}
func (Exists) node()      {}
func (And) node()         {}
func (Or) node()          {}
func (Not) node()         {}
func (All) node()         {}
func (Match) node()       {}
func (Phrase) node()      {}
func (Keyword) node()     {}
func (Prefix) node()      {}
func (Contains) node()    {}
func (NumberRange) node() {}
func (TimeRange) node()   {}
func (FieldExists) node() {}
