package query

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary text through the whole pipeline. No input may
// panic; every error must be an *Error with a sensible column; and every
// syntax tree must print as text that parses back to the same tree.
func FuzzParse(f *testing.F) {
	for _, q := range validQueries {
		f.Add(q)
	}
	for _, q := range invalidQueries {
		f.Add(q)
	}
	s := newTestSchema()
	f.Fuzz(func(t *testing.T, in string) { checkParse(t, s, in) })
}

// longWordForms are the places a word takes in a query: alone, quoted,
// under a text, keyword or number field, as a prefix, in a group and a
// range, negated.
var longWordForms = []string{"%s", `"%s"`, "subject:%s", "body:\"%s\"", "tag:%s", "number:%s", "%s*", "email:%s*",
	"(%s OR refund)", "createdAt:[%s TO *]", "-%s", "NOT tag:%s"}

// FuzzParseLongWords is FuzzParse for queries made of one word of any
// length (word repeated, up to just past MaxLength), in any form: random
// inputs are rarely long. Run longer with:
// go test ./query -run XXX -fuzz FuzzParseLongWords -fuzztime 5m
func FuzzParseLongWords(f *testing.F) {
	for _, seed := range []struct {
		word   string
		repeat uint16
	}{{"refund", 1}, {"q", 2498}, {"q", MaxLength}, {"ab", 1300}, {"é", 2000}, {`\*`, 1000}, {"7", 3000}} {
		for form := range longWordForms {
			f.Add(seed.word, seed.repeat, uint8(form))
		}
	}
	s := newTestSchema()
	f.Fuzz(func(t *testing.T, word string, repeat uint16, form uint8) {
		times := min(1+int(repeat), (MaxLength+2)/max(len(word), 1))
		checkParse(t, s, fmt.Sprintf(longWordForms[int(form)%len(longWordForms)], strings.Repeat(word, times)))
	})
}

// checkParse runs in through the whole pipeline: no panic; every error an
// *Error with a sensible column; every syntax tree printed as text that
// parses back to the same tree.
func checkParse(t *testing.T, s testSchema, in string) {
	t.Helper()
	n, err := Parse(in)
	if err != nil {
		assertError(t, err, in)
		return
	}
	printed := n.String()
	q, err := Check(n, s, testNow)
	if err != nil {
		assertError(t, err, in)
	} else {
		_ = q.String()
	}

	again, err := Parse(printed)
	if err != nil {
		// Printing adds parentheses and escapes, which can push a query
		// that was just within the limits over them.
		if len(printed) > MaxLength || strings.Contains(err.Error(), "too deeply nested") {
			return
		}
		t.Fatalf("%q printed as %q, which does not parse: %v", in, printed, err)
	}
	if !reflect.DeepEqual(stripColumns(n), stripColumns(again)) {
		t.Fatalf("%q printed as %q, which parses as %s", in, printed, again)
	}
}

func assertError(t *testing.T, err error, in string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %T %v is not an *Error", in, err, err)
	}
	if e.Message == "" || e.Column < 1 {
		t.Fatalf("%q: bad error %#v", in, e)
	}
	// Valid UTF-8 inputs have a column within the query or just past it.
	if utf8.ValidString(in) && len(in) <= MaxLength && e.Column > utf8.RuneCountInString(in)+1 {
		t.Fatalf("%q: column %d is past the end: %s", in, e.Column, e.Message)
	}
}
