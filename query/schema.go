package query

// Type is the kind of values an indexed field holds; it decides which
// query nodes a `field:value` becomes and which forms are errors.
type Type int

// Field types.
const (
	// Text fields are analysed: Match, Phrase and Prefix apply.
	Text Type = iota
	// KeywordType fields hold exact, lowercased values: Keyword and Prefix apply.
	KeywordType
	// Number fields hold float64 values: equality and ranges apply.
	Number
	// Date fields hold instants: partial dates, date math and ranges apply.
	Date
	// Bool fields are keyword fields holding "true" or "false".
	Bool
)

// FieldSpec describes one searchable name of the language.
type FieldSpec struct {
	// Name is the name users write (matched case-insensitively).
	Name string
	// Type decides how values are read.
	Type Type
	// Targets are the index fields the name searches; a value matches when
	// any target matches (Or). Usually one.
	Targets []string
	// QuotedPhrase makes a quoted value a Phrase; otherwise a quoted value on a
	// text field is an exact Match (all words, any order, exact forms), as `subject` wants.
	QuotedPhrase bool
	// Contains makes a keyword value match when it holds the written value
	// anywhere (a Contains node) instead of equal to it.
	Contains bool
	// Values, when set, closes a keyword field's set of values: each
	// accepted value (lowercase) maps to the stored values it matches
	// (status:open is active or pending). Any other value is an error
	// that suggests the closest accepted one, so a typo is never a silent
	// search for nothing.
	Values map[string][]string
}

// Schema is the set of names a document kind can be searched by.
type Schema interface {
	// Lookup finds a field by the name the user wrote (case-insensitive,
	// aliases included).
	Lookup(name string) (FieldSpec, bool)
	// Names lists every accepted name, for "did you mean" suggestions.
	Names() []string
	// DefaultFields are searched by bare terms and bare phrases.
	DefaultFields() []FieldSpec
}
