package pgindex

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

// layout is the typed table of one document kind: one column per catalog
// field (three for a text field), named after it in snake case.
type layout struct {
	table   string
	columns []column
	byField map[string]column
}

// column is where one catalog field's values live.
type column struct {
	field index.Field
	name  string // the SQL column (a text field's three columns start with it)
	many  bool   // an array: the field may hold several values
}

// sqlName is the column quoted for SQL: some fields (from, type, number)
// are SQL keywords.
func (c column) sqlName() string { return pgx.Identifier{c.name}.Sanitize() }

// sqlType is the column's SQL type; text fields have three columns (see
// textColumns) and no single type.
func (c column) sqlType() string {
	number := c.field.Type == index.NumberField
	switch {
	case number && c.many:
		return "double precision[]"
	case number:
		return "double precision"
	case c.many:
		return `text[] COLLATE "C"`
	}
	return `text COLLATE "C"`
}

// textColumns are the columns of a text field: its exact forms and its
// stemmed forms as tsvectors, and its runs (see analyse).
func (c column) textColumns() (lexemes, stems, runs string) {
	return pgx.Identifier{c.name + "_lexemes"}.Sanitize(), pgx.Identifier{c.name + "_stems"}.Sanitize(), pgx.Identifier{c.name + "_runs"}.Sanitize()
}

// manyValued lists, per kind, the keyword and number fields whose
// documents may hold several values (index/indexer's builders fill them
// from lists: tags, e-mails, thread customers, reply times). Every other
// keyword or number field holds at most one value, so it is a scalar
// column that a btree can order and filter; Apply refuses a document with
// two values in one.
var manyValued = map[index.Kind][]string{
	index.Conversations: {"tag", "email", "customerId", "replyUserId", "activityAt", "replyAt", "responseSeconds", "responseOfficeSeconds", "savedReplyId", "workflowId"},
	index.Customers:     {"email", "emailDomain", "mailboxId"},
	index.Messages:      {"tag"},
	index.Calls:         {"tag"},
	index.Chats:         {"tag"},
}

// layouts are the typed tables, by kind, derived from index.Catalog.
var layouts = func() map[index.Kind]*layout {
	out := map[index.Kind]*layout{}
	for _, kind := range index.Kinds {
		l := &layout{table: tableOf(kind), byField: map[string]column{}}
		for _, f := range index.Catalog[kind] {
			many := false
			for _, name := range manyValued[kind] {
				many = many || name == f.Name
			}
			if many && f.Sortable {
				panic(fmt.Sprintf("pgindex: %s field %s is sortable, so it holds one value", kind, f.Name))
			}
			c := column{field: f, name: snakeCase(f.Name), many: many}
			l.columns = append(l.columns, c)
			l.byField[f.Name] = c
		}
		out[kind] = l
	}
	return out
}()

// tableOf is the table of a kind's documents.
func tableOf(kind index.Kind) string { return "search_" + string(kind) }

// Tables lists the tables holding documents, one per kind; each is keyed
// by company first, and every statement on them filters by company.
var Tables = func() []string {
	var out []string
	for _, kind := range index.Kinds {
		out = append(out, tableOf(kind))
	}
	return out
}()

// snakeCase turns a field name (createdAt) into a column name
// (created_at).
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// column finds where a field's values of one type live in a kind's
// table: its column when the catalog gives the field that type, else
// (custom fields, and values of a type the catalog does not give the
// field) the document's extra values.
func (l *layout) column(field string, t index.FieldType) (column, bool) {
	c, ok := l.byField[field]
	return c, ok && c.field.Type == t
}

// unshown lists, in order, the fields a document holds that their own
// column cannot show it holds: the fields column keeps only those. A
// keyword or number field with values of its column's type shows in the
// column (a scalar not NULL, an array not empty); a text field's analysis
// may be empty for a value, and a field without a column of its values'
// type keeps them in extra. Listing every field made the list a third of
// a conversation's row, and a wide row spreads a table over more pages,
// which every bitmap scan of a GIN index visits.
func (l *layout) unshown(d *index.Document) []string {
	var out []string
	for _, field := range d.Present() {
		if c, ok := l.byField[field]; !ok || !holds(d, field, c.field.Type) {
			out = append(out, field)
		}
	}
	sort.Strings(out)
	return out
}

// holds tells whether a document has values of one type in a field.
func holds(d *index.Document, field string, t index.FieldType) bool {
	switch t {
	case index.KeywordField:
		return len(d.Keywords[field]) > 0
	case index.NumberField:
		return len(d.Numbers[field]) > 0
	}
	return false // a text field's column cannot show it (see unshown)
}

// shows is the condition that row d's own column holds a value of field,
// or "" when the field has no column that can show it (see unshown).
func (l *layout) shows(field string) string {
	c, ok := l.byField[field]
	switch {
	case !ok || c.field.Type == index.TextField:
		return ""
	case c.many:
		return "cardinality(d." + c.sqlName() + ") > 0"
	}
	return "d." + c.sqlName() + " IS NOT NULL"
}

// source is the column of row d holding a field's values of one type:
// its own column, else the document's extra values.
func (l *layout) source(field string, t index.FieldType) string {
	if c, ok := l.column(field, t); ok {
		return "d." + c.sqlName()
	}
	return "d.extra"
}
