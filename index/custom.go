package index

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/query"
)

// CustomFieldPrefix is how the query language names a custom field: cf<id>.
const CustomFieldPrefix = "cf"

// customSchema extends a schema with the cf<id> names of a company's custom
// fields, typed by their definitions (read on the first custom field
// looked up).
type customSchema struct {
	base      query.Schema
	mailboxes []parley.Mailbox
	defs      map[int64]parley.FieldDef
}

// ConversationSchemaFor is the conversation schema plus the custom fields
// of the given mailboxes (cf<id>): dropdowns by option id, numbers and
// dates with ranges, single- and multi-line text as full text.
func ConversationSchemaFor(mailboxes []parley.Mailbox) query.Schema {
	return &customSchema{base: ConversationSchema, mailboxes: mailboxes}
}

func (s *customSchema) Lookup(name string) (query.FieldSpec, bool) {
	if spec, ok := s.base.Lookup(name); ok {
		return spec, true
	}
	if len(name) <= len(CustomFieldPrefix) || !strings.EqualFold(name[:len(CustomFieldPrefix)], CustomFieldPrefix) {
		return query.FieldSpec{}, false
	}
	id, err := strconv.ParseInt(name[len(CustomFieldPrefix):], 10, 64)
	if err != nil {
		return query.FieldSpec{}, false
	}
	if s.defs == nil {
		s.defs = map[int64]parley.FieldDef{}
		for _, m := range s.mailboxes {
			for _, f := range m.Fields {
				s.defs[f.ID] = f
			}
		}
	}
	def, ok := s.defs[id]
	if !ok {
		return query.FieldSpec{}, false
	}
	return customSpec(name, def), true
}

func customSpec(name string, def parley.FieldDef) query.FieldSpec {
	id := FormatID(def.ID)
	switch def.Type {
	case parley.FieldNumber:
		return query.FieldSpec{Name: name, Type: query.Number, Targets: []string{CustomNumberPrefix + id}}
	case parley.FieldDate:
		return query.FieldSpec{Name: name, Type: query.Date, Targets: []string{CustomNumberPrefix + id}}
	case parley.FieldDropdown:
		return query.FieldSpec{Name: name, Type: query.KeywordType, Targets: []string{CustomKeywordPrefix + id}}
	case parley.FieldMultiLine:
		return query.FieldSpec{Name: name, Type: query.Text, Targets: []string{CustomTextPrefix + id}, QuotedPhrase: true}
	default:
		return query.FieldSpec{Name: name, Type: query.Text, Targets: []string{CustomTextPrefix + id}}
	}
}

func (s *customSchema) Names() []string {
	names := s.base.Names()
	for id := range s.defs {
		names = append(names, CustomFieldPrefix+FormatID(id))
	}
	sort.Strings(names)
	return names
}

func (s *customSchema) DefaultFields() []query.FieldSpec { return s.base.DefaultFields() }

// CustomFieldFilter is the filter of one customFieldsByIds pair (Help Scout's docs):
// exact match for every type except single-line text, which is full-text
// searched; a dropdown takes the option id; multi-line fields are not
// supported. The error is a validation error on `customFieldsByIds`.
func CustomFieldFilter(def parley.FieldDef, value string) (query.Node, error) {
	id := FormatID(def.ID)
	bad := func(code, msg string) error {
		return parley.InvalidParameter("customFieldsByIds", code, fmt.Sprintf("field %d: %s", def.ID, msg), id+":"+value)
	}
	switch def.Type {
	case parley.FieldMultiLine:
		return nil, bad(parley.CodeValueNotSupported, "multi-line fields cannot be filtered")
	case parley.FieldSingleLine:
		return query.Match{Field: CustomTextPrefix + id, Text: value}, nil
	case parley.FieldDropdown:
		for _, o := range def.Options {
			if FormatID(o.ID) == value {
				return query.Keyword{Field: CustomKeywordPrefix + id, Value: value}, nil
			}
		}
		return nil, bad(parley.CodeValueNotSupported, "must be the id of one of the dropdown's options")
	case parley.FieldNumber:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, bad(parley.CodeInvalidNumber, "must be a number")
		}
		return query.Equal(CustomNumberPrefix+id, f), nil
	case parley.FieldDate:
		t, err := time.Parse("2006-01-02", value)
		if err != nil {
			return nil, bad(parley.CodeMalformedDate, "must be a date YYYY-MM-DD")
		}
		ms := Millis(t)
		return query.Equal(CustomNumberPrefix+id, ms), nil
	}
	return nil, bad(parley.CodeValueNotSupported, "unknown field type")
}
