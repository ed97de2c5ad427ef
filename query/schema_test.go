package query

import (
	"strings"
	"time"
)

// testSchema mirrors Parley's conversation fields, so that the package is
// tested against the names users really type without importing index/.
type testSchema struct {
	byName   map[string]FieldSpec
	names    []string
	defaults []FieldSpec
}

func newTestSchema() testSchema {
	s := testSchema{byName: map[string]FieldSpec{}}
	add := func(spec FieldSpec, aliases ...string) {
		for _, name := range append([]string{spec.Name}, aliases...) {
			s.byName[strings.ToLower(name)] = spec
			s.names = append(s.names, name)
		}
	}
	one := func(name string, typ Type, target string) FieldSpec {
		return FieldSpec{Name: name, Type: typ, Targets: []string{target}}
	}
	add(one("subject", Text, "subject"))
	add(FieldSpec{Name: "body", Type: Text, Targets: []string{"body"}, QuotedPhrase: true})
	add(one("tag", KeywordType, "tag"))
	add(one("mailbox", KeywordType, "mailboxName"), "mailboxName")
	add(one("mailboxid", Number, "mailboxId"))
	add(one("createdAt", Date, "createdAt"))
	add(one("modifiedAt", Date, "modifiedAt"))
	add(one("email", KeywordType, "email"))
	add(one("customerIds", Number, "customerId"))
	add(one("number", Number, "number"))
	add(one("id", Number, "id"))
	add(one("assigned", KeywordType, "assigned"))
	add(one("attachments", Bool, "hasAttachments"), "attachment")
	add(one("replyUserIds", Number, "replyUserId"))
	status := one("status", KeywordType, "status")
	status.Values = map[string][]string{"active": {"active"}, "all": {"active", "pending", "closed", "spam"},
		"closed": {"closed"}, "open": {"active", "pending"}, "pending": {"pending"}, "spam": {"spam"}}
	add(status)
	typ := one("type", KeywordType, "type")
	typ.Values = map[string][]string{"chat": {"chat"}, "email": {"email"}, "phone": {"phone"}}
	add(typ)
	add(one("folder", Number, "folderId"))
	s.defaults = []FieldSpec{
		s.byName["subject"],
		s.byName["body"],
		one("customerName", Text, "customerName"),
		s.byName["email"],
	}
	return s
}

func (s testSchema) Lookup(name string) (FieldSpec, bool) {
	spec, ok := s.byName[strings.ToLower(name)]
	return spec, ok
}

func (s testSchema) Names() []string { return s.names }

func (s testSchema) DefaultFields() []FieldSpec { return s.defaults }

// testNow is the fixed clock of every test: a Saturday.
var testNow = time.Date(2026, 11, 21, 12, 34, 56, 0, time.UTC)
