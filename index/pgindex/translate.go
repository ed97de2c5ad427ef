package pgindex

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// statement builds one SQL statement: its arguments, with the company as
// $1 and the kind as $2 in every statement, and an alias counter so that
// each table reference has its own alias (the tenant test checks each).
type statement struct {
	kind    index.Kind
	args    []any
	aliases int
}

func newStatement(kind index.Kind, company int64) *statement {
	return &statement{kind: kind, args: []any{company, string(kind)}}
}

// arg adds an argument and returns its placeholder.
func (s *statement) arg(v any) string {
	s.args = append(s.args, v)
	return "$" + strconv.Itoa(len(s.args))
}

// alias returns a fresh table alias starting with prefix.
func (s *statement) alias(prefix string) string {
	s.aliases++
	return prefix + strconv.Itoa(s.aliases)
}

// in is the condition that document d has a row in table matching cond;
// cond names the row by the alias passed to it. The subquery does not
// depend on d, so PostgreSQL runs it once (a semi-join, or a hashed
// subplan under OR and NOT) using the table's indexes.
func (s *statement) in(table, prefix, field string, cond func(a string) string) string {
	a := s.alias(prefix)
	return fmt.Sprintf("d.doc_id IN (SELECT %[1]s.doc_id FROM %[2]s %[1]s WHERE %[1]s.company_id = $1 AND %[1]s.kind = $2 AND %[1]s.field = %[3]s AND %[4]s)",
		a, table, s.arg(field), cond(a))
}

// where translates checked query nodes into a condition on the document
// row d, with the scan oracle's meaning.
func (s *statement) where(n query.Node) (string, error) {
	switch n := n.(type) {
	case query.All:
		return "TRUE", nil
	case query.And:
		return s.join(n.Nodes, " AND ", "TRUE")
	case query.Or:
		return s.join(n.Nodes, " OR ", "FALSE")
	case query.Not:
		inner, err := s.where(n.Node)
		if err != nil {
			return "", err
		}
		return "NOT (" + inner + ")", nil
	case query.Match:
		// Unquoted words match stemmed forms, quoted ones exact forms.
		tokens, column := index.Stems(n.Text), "stems"
		if n.Exact {
			tokens, column = index.Tokens(n.Text), "lexemes"
		}
		if len(tokens) == 0 {
			return "FALSE", nil
		}
		q := s.arg(allOf(tokens))
		return s.in("search_texts", "t", n.Field, func(a string) string { return a + "." + column + " @@ " + q + "::tsquery" }), nil
	case query.Phrase:
		tokens := index.Tokens(n.Text)
		if len(tokens) == 0 {
			return "FALSE", nil
		}
		// The lexemes find the candidates through the GIN index; the
		// runs decide exactly, with no limit on positions.
		q, r := s.arg(allOf(tokens)), s.arg(run(tokens))
		return s.in("search_texts", "t", n.Field, func(a string) string {
			return fmt.Sprintf("%[1]s.lexemes @@ %[2]s::tsquery AND strpos(%[1]s.runs, %[3]s) > 0", a, q, r)
		}), nil
	case query.Keyword:
		v := s.arg(text(n.Value))
		return s.in("search_keywords", "k", n.Field, func(a string) string {
			return fmt.Sprintf("left(%[1]s.value, 256) = left(%[2]s, 256) AND %[1]s.value = %[2]s", a, v)
		}), nil
	case query.Prefix:
		return s.prefix(n), nil
	case query.Contains:
		p := s.arg("%" + likePattern(text(n.Value)) + "%")
		f, _ := index.FieldOf(s.kind, n.Field)
		return s.in("search_keywords", "k", n.Field, func(a string) string {
			if f.Substrings {
				// Names the partial trigram index's predicate.
				return fmt.Sprintf("%[1]s.substrings AND %[1]s.value LIKE %[2]s", a, p)
			}
			return fmt.Sprintf("%s.value LIKE %s", a, p)
		}), nil
	case query.NumberRange:
		return s.numberRange(n.Field, n.Min, n.Max, n.MinInclusive, n.MaxInclusive), nil
	case query.TimeRange:
		min, max := index.MillisBounds(n)
		return s.numberRange(n.Field, min, max, n.FromInclusive, n.ToInclusive), nil
	case query.FieldExists:
		return "d.fields @> " + s.arg([]string{n.Field}) + "::text[]", nil
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

// prefix matches a keyword value, or a token of a text field, starting
// with the value; a field the catalog does not type is tried both ways.
func (s *statement) prefix(n query.Prefix) string {
	f, known := index.FieldOf(s.kind, n.Field)
	var parts []string
	if !known || f.Type == index.KeywordField {
		parts = append(parts, s.in("search_keywords", "k", n.Field, func(a string) string {
			if n.Value == "" {
				return "TRUE"
			}
			// The index holds the first 256 characters of a value.
			head := s.arg(likePattern(cut256(text(n.Value))) + "%")
			whole := s.arg(likePattern(text(n.Value)) + "%")
			return fmt.Sprintf("left(%[1]s.value, 256) LIKE %[2]s AND %[1]s.value LIKE %[3]s", a, head, whole)
		}))
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
	switch {
	case folded == "":
		return s.in("search_texts", "t", n.Field, func(a string) string { return "length(" + a + ".lexemes) > 0" })
	case strings.ContainsAny(folded, separators):
		return "FALSE" // no token holds a separator
	}
	p := text(folded) // no token changes (see text), so a changed prefix matches none
	q, r := s.arg(prefixOf(p)), s.arg(" "+p)
	return s.in("search_texts", "t", n.Field, func(a string) string {
		return fmt.Sprintf("%[1]s.lexemes @@ %[2]s::tsquery AND strpos(%[1]s.runs, %[3]s) > 0", a, q, r)
	})
}

// cut256 is the first 256 characters of s, as left(s, 256) gives them.
func cut256(s string) string {
	n := 0
	for i := range s {
		if n == 256 {
			return s[:i]
		}
		n++
	}
	return s
}

func (s *statement) numberRange(field string, min, max *float64, minIncl, maxIncl bool) string {
	if min == nil && max == nil {
		return "d.fields @> " + s.arg([]string{field}) + "::text[]"
	}
	return s.in("search_numbers", "n", field, func(a string) string {
		var conds []string
		if min != nil {
			op := ">"
			if minIncl {
				op = ">="
			}
			conds = append(conds, fmt.Sprintf("%s.value %s %s::float8", a, op, s.arg(*min)))
		}
		if max != nil {
			op := "<"
			if maxIncl {
				op = "<="
			}
			conds = append(conds, fmt.Sprintf("%s.value %s %s::float8", a, op, s.arg(*max)))
		}
		return strings.Join(conds, " AND ")
	})
}

// documents is the FROM and WHERE of the documents of a request's company
// and kind matching its query and filter.
func (s *statement) documents(nodes ...query.Node) (string, error) {
	sql := "FROM search_documents d WHERE d.company_id = $1 AND d.kind = $2"
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

// Search runs a request: the total, and one page of ids in order.
func (e *Engine) Search(ctx context.Context, r index.Request) (index.Result, error) {
	s := newStatement(r.Kind, r.Company)
	from, err := s.documents(r.Query, r.Filter)
	if err != nil {
		return index.Result{}, err
	}
	out := index.Result{IDs: []string{}}
	if r.Limit <= 0 {
		if err := e.pool.QueryRow(ctx, "SELECT count(*) "+from, s.args...).Scan(&out.Total); err != nil {
			return index.Result{}, fmt.Errorf("pgindex: search: %w", err)
		}
		return out, nil
	}
	columns, order := s.order(r)
	sql := fmt.Sprintf("WITH m AS MATERIALIZED (SELECT d.doc_id, d.num_id%s %s)\n"+
		"SELECT (SELECT count(*) FROM m), ARRAY(SELECT m.doc_id FROM m ORDER BY %s LIMIT %s OFFSET %s)",
		columns, from, order, s.arg(r.Limit), s.arg(max(r.Offset, 0)))
	if err := e.pool.QueryRow(ctx, sql, s.args...).Scan(&out.Total, &out.IDs); err != nil {
		return index.Result{}, fmt.Errorf("pgindex: search: %w", err)
	}
	return out, nil
}

// order returns the sort columns computed per matching document and the
// ORDER BY over them, as the scan oracle orders: each field by its
// smallest value, missing values last whatever the direction, then the
// numeric id, then the document id, both in the last sort's direction.
func (s *statement) order(r index.Request) (columns, order string) {
	var cols, keys []string
	dir := func(desc bool) string {
		if desc {
			return "DESC"
		}
		return "ASC"
	}
	desc := true
	for i, o := range r.Sort {
		desc = o.Desc
		name := "s" + strconv.Itoa(i)
		switch f, ok := index.FieldOf(r.Kind, o.Field); {
		case o.Field == index.ScoreField:
			if r.Query == nil {
				continue // every document scores the same
			}
			cols = append(cols, s.score(r.Query)+" AS "+name)
		case ok && f.Sortable && f.Type == index.NumberField:
			cols = append(cols, "(d.sorts->>"+s.arg(o.Field)+")::float8 AS "+name)
		case ok && f.Sortable && f.Type == index.KeywordField:
			cols = append(cols, "(d.sorts->>"+s.arg(o.Field)+") COLLATE \"C\" AS "+name)
		case ok && f.Type == index.NumberField:
			cols = append(cols, s.smallest("search_numbers", "n", o.Field)+" AS "+name)
		case ok && f.Type == index.KeywordField:
			cols = append(cols, s.smallest("search_keywords", "k", o.Field)+" AS "+name)
		default:
			continue // the oracle sorts only by numbers and keywords
		}
		keys = append(keys, fmt.Sprintf("m.%s %s NULLS LAST", name, dir(o.Desc)))
	}
	if _, ok := index.FieldOf(r.Kind, "id"); ok {
		keys = append(keys, "m.num_id "+dir(desc)+" NULLS LAST")
	}
	keys = append(keys, "m.doc_id "+dir(desc))
	for i := range cols {
		cols[i] = ", " + cols[i]
	}
	return strings.Join(cols, ""), strings.Join(keys, ", ")
}

// smallest is a document's smallest value of a field, or NULL.
func (s *statement) smallest(table, prefix, field string) string {
	a := s.alias(prefix)
	return fmt.Sprintf("(SELECT min(%[1]s.value) FROM %[2]s %[1]s WHERE %[1]s.company_id = $1 AND %[1]s.kind = $2 AND %[1]s.doc_id = d.doc_id AND %[1]s.field = %[3]s)",
		a, table, s.arg(field))
}
