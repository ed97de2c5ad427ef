package pgindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// statement builds one SQL statement over a kind's table, whose row is d:
// its arguments, with the company as $1 in every statement, and an alias
// counter so that each value set has its own alias.
type statement struct {
	kind    index.Kind
	layout  *layout
	args    []any
	aliases int
	// findOnce is set by a condition costly to find or check: a text
	// field's runs (a phrase, a prefix), a detoasted text per candidate,
	// or a fragment, whose trigram index scan intersects long lists. A
	// search then finds its matches once for its total and its page (see
	// Search).
	findOnce bool
	// planEach is set by a condition whose selectivity its value decides
	// by orders of magnitude (a word, a phrase, a prefix, a fragment).
	// The statement is then planned for its values each time (see
	// planned), never with PostgreSQL's generic plan of a prepared
	// statement: after five runs that plan, blind to the words, took a
	// btree and checked the words on every row of a mailbox (at 1M, two
	// body terms in one mailbox: 50 ms planned for the words, 900 ms to
	// 2 s generic).
	planEach bool
	// byText is set by a condition on a text column's tsvectors (see
	// keyed).
	byText bool
}

// planned returns the statement's arguments as pgx runs them: on an
// unnamed statement, which PostgreSQL plans for its values, when planEach
// is set; else prepared once per connection, as pgx does by default.
func (s *statement) planned() []any {
	if s.planEach {
		return append([]any{pgx.QueryExecModeExec}, s.args...)
	}
	return s.args
}

func newStatement(kind index.Kind, company int64) (*statement, error) {
	l, ok := layouts[kind]
	if !ok {
		return nil, fmt.Errorf("pgindex: unknown kind %q", kind)
	}
	return &statement{kind: kind, layout: l, args: []any{company}}, nil
}

// arg adds an argument and returns its placeholder.
func (s *statement) arg(v any) string {
	s.args = append(s.args, v)
	return "$" + strconv.Itoa(len(s.args))
}

// alias returns a fresh alias starting with prefix.
func (s *statement) alias(prefix string) string {
	s.aliases++
	return prefix + strconv.Itoa(s.aliases)
}

// values is where a field's values of one type are found on row d.
type values struct {
	scalar string // a scalar column, NULL when the document has no value
	set    string // else a set of values, each in column v of the set
}

// valuesOf finds a field's keyword or number values: its column, or the
// document's extra values (see extra).
func (s *statement) valuesOf(field string, t index.FieldType) values {
	if c, ok := s.layout.column(field, t); ok {
		if !c.many {
			return values{scalar: "d." + c.sqlName()}
		}
		return values{set: "(SELECT x AS v FROM unnest(d." + c.sqlName() + ") x)"}
	}
	if t == index.NumberField {
		return values{set: "(SELECT x::float8 AS v FROM jsonb_array_elements_text(d.extra->'n'->" + s.arg(field) + ") x)"}
	}
	return values{set: `(SELECT x COLLATE "C" AS v FROM jsonb_array_elements_text(d.extra->'k'->` + s.arg(field) + ") x)"}
}

// set is a field's values as a set of rows, for a lateral join.
func (s *statement) set(vs values) string {
	if vs.scalar != "" {
		return "(SELECT " + vs.scalar + " AS v)"
	}
	return vs.set
}

// any is the condition that one of a field's values (v) meets cond.
func (s *statement) any(vs values, cond func(v string) string) string {
	if vs.scalar != "" {
		return cond(vs.scalar)
	}
	a := s.alias("v")
	return fmt.Sprintf("EXISTS (SELECT FROM %s %s WHERE %s)", vs.set, a, cond(a+".v"))
}

// smallest is a field's smallest value on row d, or NULL.
func (s *statement) smallest(vs values) string {
	if vs.scalar != "" {
		return vs.scalar
	}
	a := s.alias("v")
	return fmt.Sprintf("(SELECT min(%[1]s.v) FROM %[2]s %[1]s)", a, vs.set)
}

// texts is a text field's analysis on row d (see analyse): its exact
// forms and stemmed forms as tsvectors, and its runs.
func (s *statement) texts(field string) (lexemes, stems, runs string) {
	if c, ok := s.layout.column(field, index.TextField); ok {
		s.byText = true
		l, st, r := c.textColumns()
		return "d." + l, "d." + st, "d." + r
	}
	f := "d.extra->'t'->" + s.arg(field)
	return "(" + f + "->>'l')::tsvector", "(" + f + "->>'s')::tsvector", "(" + f + "->>'r')"
}

// where translates checked query nodes into a condition on the row d,
// with the scan oracle's meaning. A condition on a value the document
// lacks may be NULL, which WHERE takes for false; NOT is IS NOT TRUE, so
// that it takes NULL for false too.
func (s *statement) where(n query.Node) (string, error) {
	switch n := n.(type) {
	case query.All:
		return "TRUE", nil
	case query.And:
		return s.join(n.Nodes, " AND ", "TRUE")
	case query.Or:
		return s.anyOf(n.Nodes)
	case query.Not:
		inner, err := s.where(n.Node)
		if err != nil {
			return "", err
		}
		return "(" + inner + ") IS NOT TRUE", nil
	case query.Match:
		return s.matchAny([]query.Match{n}), nil
	case query.Phrase:
		tokens := index.Tokens(n.Text)
		if len(tokens) == 0 {
			return "FALSE", nil
		}
		// The lexemes find the candidates through the GIN index; the
		// runs decide exactly, with no limit on positions.
		q, r := s.arg(allOf(tokens)), s.arg(run(tokens))
		lexemes, _, runs := s.texts(n.Field)
		s.findOnce, s.planEach = true, true
		return fmt.Sprintf("(%s @@ %s::tsquery AND strpos(%s, %s) > 0)", lexemes, q, runs, r), nil
	case query.Keyword:
		return s.keyword(n.Field, text(n.Value)), nil
	case query.Prefix:
		return s.prefix(n), nil
	case query.Contains:
		p := s.arg("%" + likePattern(text(n.Value)) + "%")
		s.planEach = true
		cond := s.any(s.valuesOf(n.Field, index.KeywordField), func(v string) string { return v + " LIKE " + p })
		if c, ok := s.layout.column(n.Field, index.KeywordField); ok && c.field.Substrings && c.many {
			// The trigram index on the joined values finds the candidates.
			s.findOnce = true
			return fmt.Sprintf("(search_joined(d.%s) LIKE %s AND %s)", c.sqlName(), p, cond), nil
		}
		return cond, nil
	case query.NumberRange:
		return s.numberRange(n.Field, n.Min, n.Max, n.MinInclusive, n.MaxInclusive), nil
	case query.TimeRange:
		min, max := index.MillisBounds(n)
		return s.numberRange(n.Field, min, max, n.FromInclusive, n.ToInclusive), nil
	case query.FieldExists:
		return s.exists(n.Field), nil
	}
	return "", fmt.Errorf("pgindex: cannot translate %T", n)
}

func (s *statement) join(nodes []query.Node, op, empty string) (string, error) {
	if len(nodes) == 0 {
		return empty, nil
	}
	parts := make([]string, len(nodes))
	for i, c := range nodes {
		p, err := s.where(c)
		if err != nil {
			return "", err
		}
		parts[i] = p
	}
	return "(" + strings.Join(parts, op) + ")", nil
}

// anyOf ORs nodes. The words ORed on one text field (subject:(invoice
// OR password)) become one tsquery, 'invoic' | 'password': one scan of the
// field's GIN index where each word took its own, then a BitmapOr (at 1M,
// two scans of 15 ms each).
func (s *statement) anyOf(nodes []query.Node) (string, error) {
	if len(nodes) == 0 {
		return "FALSE", nil
	}
	// parts holds each node's condition in order, the words of a field at
	// the place of its first; a field's words are written once all are
	// known.
	type field struct {
		name  string
		exact bool
	}
	parts := make([]string, 0, len(nodes))
	var fields []field
	words := map[field][]query.Match{}
	at := map[field]int{}
	for _, c := range nodes {
		m, ok := c.(query.Match)
		if !ok {
			p, err := s.where(c)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
			continue
		}
		f := field{m.Field, m.Exact}
		if _, seen := at[f]; !seen {
			at[f] = len(parts)
			parts = append(parts, "")
			fields = append(fields, f)
		}
		words[f] = append(words[f], m)
	}
	for _, f := range fields {
		parts[at[f]] = s.matchAny(words[f])
	}
	return "(" + strings.Join(parts, " OR ") + ")", nil
}

// matchAny matches a document holding the words of any of ms, all on one
// text field and alike exact or not: unquoted words match stemmed forms,
// quoted ones exact forms.
func (s *statement) matchAny(ms []query.Match) string {
	var alternatives []string
	for _, m := range ms {
		tokens := index.Stems(m.Text)
		if m.Exact {
			tokens = index.Tokens(m.Text)
		}
		if len(tokens) > 0 {
			alternatives = append(alternatives, allOf(tokens))
		}
	}
	if len(alternatives) == 0 {
		return "FALSE"
	}
	if len(alternatives) > 1 {
		for i, a := range alternatives {
			alternatives[i] = "(" + a + ")"
		}
	}
	q := s.arg(strings.Join(alternatives, " | "))
	s.planEach = true
	lexemes, stems, _ := s.texts(ms[0].Field)
	if ms[0].Exact {
		return lexemes + " @@ " + q + "::tsquery"
	}
	return stems + " @@ " + q + "::tsquery"
}

// keyword matches a keyword value exactly: a scalar column by its btree,
// an array by the GIN index on its values' first 256 characters (a GIN
// entry is limited in size, as a btree's is), then exactly.
func (s *statement) keyword(field, value string) string {
	vs := s.valuesOf(field, index.KeywordField)
	c, isColumn := s.layout.column(field, index.KeywordField)
	if isColumn && c.many {
		v := s.arg(value)
		// The exact test first: under a NOT, where no index serves, it
		// settles most rows without computing their heads.
		return fmt.Sprintf("(d.%[1]s @> ARRAY[%[2]s::text] AND search_heads(d.%[1]s) @> ARRAY[left(%[2]s::text, 256)])", c.sqlName(), v)
	}
	v := s.arg(value)
	cond := s.any(vs, func(x string) string { return x + " = " + v + "::text" })
	if !isColumn {
		// A field kept in extra (a custom field): the GIN index on extra
		// finds the documents holding the value as written (see keywords),
		// the test after it decides.
		return "(d.extra @> " + s.arg(extraHead("k", field, text(value))) + "::jsonb AND " + cond + ")"
	}
	return cond
}

// extraHead is the jsonb that a document's extra contains when it holds
// value among the values of one type (k or n) of field.
func extraHead(kind, field, value string) string {
	b, _ := json.Marshal(map[string]map[string][]string{kind: {field: {value}}}) // strings always marshal
	return string(b)
}

// prefix matches a keyword value, or a token of a text field, starting
// with the value; a field the catalog does not type is tried both ways.
func (s *statement) prefix(n query.Prefix) string {
	f, known := index.FieldOf(s.kind, n.Field)
	var parts []string
	if !known || f.Type == index.KeywordField {
		vs := s.valuesOf(n.Field, index.KeywordField)
		if n.Value == "" {
			parts = append(parts, s.any(vs, func(v string) string { return v + " IS NOT NULL" }))
		} else {
			p := s.arg(likePattern(text(n.Value)) + "%")
			s.planEach = true
			parts = append(parts, s.any(vs, func(v string) string { return v + " LIKE " + p }))
		}
	}
	if !known || f.Type == index.TextField {
		parts = append(parts, s.textPrefix(n))
	}
	if len(parts) == 0 {
		return "FALSE"
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

// textPrefix matches a prefix of an exact form, folded as the analysis
// folds.
func (s *statement) textPrefix(n query.Prefix) string {
	folded := index.Fold(n.Value)
	lexemes, _, runs := s.texts(n.Field)
	switch {
	case folded == "":
		return "length(" + lexemes + ") > 0"
	case strings.ContainsAny(folded, separators):
		return "FALSE" // no token holds a separator
	}
	p := text(folded) // no token changes (see text), so a changed prefix matches none
	q, r := s.arg(prefixOf(p)), s.arg(" "+p)
	s.findOnce, s.planEach = true, true
	return fmt.Sprintf("(%s @@ %s::tsquery AND strpos(%s, %s) > 0)", lexemes, q, runs, r)
}

// exists matches the rows holding a value of field: its own column shows
// it, or the row lists it (see layout.unshown; rows written before the
// list was narrowed list every field they hold).
func (s *statement) exists(field string) string {
	listed := "d.fields @> " + s.arg([]string{field}) + "::text[]"
	if shown := s.layout.shows(field); shown != "" {
		return "(" + shown + " OR " + listed + ")"
	}
	return listed
}

// numberRange matches a value within bounds; an array column is searched
// for one value by its GIN index.
func (s *statement) numberRange(field string, min, max *float64, minIncl, maxIncl bool) string {
	c, isColumn := s.layout.column(field, index.NumberField)
	if min == nil && max == nil {
		if isColumn {
			return s.layout.shows(field)
		}
		return "d.extra->'n' ? " + s.arg(field) + "::text"
	}
	one := min != nil && max != nil && *min == *max && minIncl && maxIncl // one value
	if isColumn && c.many && one {
		return fmt.Sprintf("d.%s @> ARRAY[%s::float8]", c.sqlName(), s.arg(*min))
	}
	var head string // a condition narrowing the candidates, or ""
	if isColumn && c.many && c.field.Millis && min != nil {
		// The btree on the largest value finds the candidates.
		op := ">"
		if minIncl {
			op = ">="
		}
		head = fmt.Sprintf("search_max(d.%s) %s %s::float8 AND ", c.sqlName(), op, s.arg(*min))
	}
	if !isColumn && one && *min != 0 && !math.IsNaN(*min) {
		// One value of a field kept in extra (a custom field): the GIN
		// index on extra finds the documents holding its text, written as
		// every value is (float8), which a value other than zero (0 and
		// -0) has one way; the test after it decides.
		head = "d.extra @> " + s.arg(extraHead("n", field, float8(*min))) + "::jsonb AND "
	}
	cond := s.any(s.valuesOf(field, index.NumberField), func(v string) string {
		if one {
			// One value: an equality, which the planner estimates from
			// the column's common values and a btree can then read in
			// the order of its next columns (a mailbox's conversations
			// by status, newest first).
			return fmt.Sprintf("%s = %s::float8", v, s.arg(*min))
		}
		var conds []string
		if min != nil {
			op := ">"
			if minIncl {
				op = ">="
			}
			conds = append(conds, fmt.Sprintf("%s %s %s::float8", v, op, s.arg(*min)))
		}
		if max != nil {
			op := "<"
			if maxIncl {
				op = "<="
			}
			conds = append(conds, fmt.Sprintf("%s %s %s::float8", v, op, s.arg(*max)))
		}
		return "(" + strings.Join(conds, " AND ") + ")"
	})
	if head != "" {
		return "(" + head + cond + ")"
	}
	return cond
}

// matching is the FROM and WHERE of the rows of a request's company
// matching its query and filter, with the inbox keys they imply (see
// inbox); join, when not empty, joins them to more.
func (s *statement) matching(join string, nodes ...query.Node) (string, error) {
	from, err := s.conditions(join, nodes...)
	if err != nil {
		return "", err
	}
	return from + s.inbox(nodes...), nil
}

// conditions is matching without the inbox keys.
func (s *statement) conditions(join string, nodes ...query.Node) (string, error) {
	sql := "FROM " + s.layout.table + " d" + join + " WHERE d.company_id = $1"
	for _, n := range nodes {
		if n == nil {
			continue
		}
		cond, err := s.where(n)
		if err != nil {
			return "", err
		}
		sql += " AND " + cond
	}
	return sql, nil
}

// inbox is the condition on the inbox keys (search_inbox, in the search
// migrations) that a conversation search's conditions imply, when a
// condition on the body's words is ANDed at the top beside a status or a
// mailbox: then the body's GIN index, which holds the keys, finds the
// matches alone. The condition adds nothing to the others; without a body
// condition it is left out, so that the keys' long postings are never
// taken for a status or a mailbox index.
func (s *statement) inbox(nodes ...query.Node) string {
	if s.kind != index.Conversations {
		return ""
	}
	var keys []string
	body := false
	var walk func([]query.Node)
	walk = func(nodes []query.Node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case query.And:
				walk(n.Nodes)
			case query.Match:
				body = body || n.Field == "body"
			case query.Phrase:
				body = body || n.Field == "body"
			case query.Keyword:
				// Up to 255 bytes: a key of 256 characters would also
				// stand for the longer statuses that start with it.
				if v := text(n.Value); n.Field == "status" && len(v) < 256 {
					keys = append(keys, "s"+v)
				}
			case query.NumberRange:
				// A mailbox id written as PostgreSQL's numeric writes it:
				// digits alone for a whole number of at most 15 digits.
				if n.Field == "mailboxId" && n.Min != nil && n.Max != nil && *n.Min == *n.Max &&
					n.MinInclusive && n.MaxInclusive && *n.Min == math.Trunc(*n.Min) && math.Abs(*n.Min) < 1e15 {
					keys = append(keys, "m"+strconv.FormatInt(int64(*n.Min), 10))
				}
			}
		}
	}
	walk(nodes)
	if !body || len(keys) == 0 {
		return ""
	}
	return " AND search_inbox(d.mailbox_id, d.status) @> " + s.arg(keys) + "::text[]"
}

// Search runs a request as one statement: the exact total, counted over
// the same WHERE as the page, and one page of ids in order. Each is read
// on its own, the page through the btree that orders the table as asked
// when there is one, unless a condition is costly to find or check (see
// findOnce): then the matches are found once, and counted and ordered
// from there.
func (e *Engine) Search(ctx context.Context, r index.Request) (index.Result, error) {
	s, err := newStatement(r.Kind, r.Company)
	if err != nil {
		return index.Result{}, err
	}
	from, err := s.conditions("", r.Query, r.Filter)
	if err != nil {
		return index.Result{}, err
	}
	// The inbox keys serve the matches found as a set (the total, or all
	// of them when found once). A page read off an ordered btree goes
	// without them: they restate other conditions, which the planner
	// takes for independent ones, and at 1M it expected 20 matches of
	// 8,992 and read the page through the bitmap, 25 ms instead of 1.
	counted := from + s.inbox(r.Query, r.Filter)
	out := index.Result{IDs: []string{}}
	textOnly := s.byText && !keyed(r.Query, r.Filter)
	pool := e.sessions(textOnly)
	if r.Limit <= 0 {
		if err := pool.QueryRow(ctx, "SELECT count(*) "+counted, s.planned()...).Scan(&out.Total); err != nil {
			return index.Result{}, fmt.Errorf("pgindex: search: %w", err)
		}
		return out, nil
	}
	keys := s.order(r)
	var sql string
	if s.findOnce || textOnly {
		cols, order := make([]string, len(keys)), make([]string, len(keys))
		for i, k := range keys {
			cols[i] = fmt.Sprintf("%s AS k%d", k.expr, i)
			order[i] = fmt.Sprintf("m.k%d %s", i, k.dir)
		}
		sql = fmt.Sprintf("WITH m AS MATERIALIZED (SELECT d.doc_id, %s %s)\n"+
			"SELECT (SELECT count(*) FROM m), ARRAY(SELECT m.doc_id FROM m ORDER BY %s LIMIT %s OFFSET %s)",
			strings.Join(cols, ", "), counted, strings.Join(order, ", "), s.arg(r.Limit), s.arg(max(r.Offset, 0)))
	} else {
		order := make([]string, len(keys))
		for i, k := range keys {
			order[i] = k.expr + " " + k.dir
		}
		sql = fmt.Sprintf("SELECT (SELECT count(*) %s),\nARRAY(SELECT d.doc_id %s ORDER BY %s LIMIT %s OFFSET %s)",
			counted, from, strings.Join(order, ", "), s.arg(r.Limit), s.arg(max(r.Offset, 0)))
	}
	if err := pool.QueryRow(ctx, sql, s.planned()...).Scan(&out.Total, &out.IDs); err != nil {
		return index.Result{}, fmt.Errorf("pgindex: search: %w", err)
	}
	return out, nil
}

// keyed tells whether a search's conditions include, ANDed at the top, a
// keyword, number or date condition, which a btree can find.
//
// A search on text alone runs on the engine's text sessions, which plan
// no plain index scans, and finds its matches once: PostgreSQL prices
// checking a row's tsvector as one comparison, but the vector is read from
// TOAST and decompressed, so once a table's rows lie in company order
// (after a load or a rebuild, which write a company at a time) the planner
// walked a company's btree checking every row's body, and at 1M
// body:refund ranked took 2.3 s against 0.12 s through the GIN index,
// subject:refun* 231 ms against 174 ms. A search with a keyed condition
// beside the text keeps its plans: the planner intersects that btree with
// the GIN index for the total, and reads the page off an ordered btree
// (status AND NOT tag AND subject OR: 68 ms, 76 ms with its matches found
// once).
func keyed(nodes ...query.Node) bool {
	for _, n := range nodes {
		switch n := n.(type) {
		case query.And:
			if keyed(n.Nodes...) {
				return true
			}
		case query.Keyword, query.NumberRange, query.TimeRange:
			return true
		}
	}
	return false
}

// orderKey is one key of an ORDER BY: an expression on the row d and its
// direction.
type orderKey struct{ expr, dir string }

// order is the ORDER BY of a request, as the scan oracle orders: each
// field by its smallest value, missing values last whatever the
// direction, then the numeric id, then the document id, both in the last
// sort's direction. The btrees of the access paths hold the same
// columns, NULLS LAST, so a page is read off them in order.
func (s *statement) order(r index.Request) []orderKey {
	var keys []orderKey
	dir := func(desc bool) string {
		if desc {
			return "DESC NULLS LAST"
		}
		return "ASC NULLS LAST"
	}
	desc := true
	for _, o := range r.Sort {
		desc = o.Desc
		var key string
		switch f, ok := index.FieldOf(r.Kind, o.Field); {
		case o.Field == index.ScoreField:
			if r.Query == nil {
				continue // every document scores the same
			}
			if key = s.score(r.Query); key == "" {
				continue
			}
		case ok && (f.Type == index.NumberField || f.Type == index.KeywordField):
			key = s.smallest(s.valuesOf(o.Field, f.Type))
		default:
			continue // the oracle sorts only by numbers and keywords
		}
		keys = append(keys, orderKey{key, dir(o.Desc)})
	}
	if _, ok := index.FieldOf(r.Kind, "id"); ok {
		keys = append(keys, orderKey{s.smallest(s.valuesOf("id", index.NumberField)), dir(desc)})
	}
	return append(keys, orderKey{"d.doc_id", strings.TrimSuffix(dir(desc), " NULLS LAST")})
}
