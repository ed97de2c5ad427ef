package pgindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

// Apply replaces the upserted documents and removes the deleted ones in
// one transaction of its own (see Write). The batch is durable once
// committed, so durable hears of it before Apply returns.
func (e *Engine) Apply(ctx context.Context, batch index.Batch, durable func(error)) error {
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return Write(ctx, tx, batch) })
	if err != nil {
		return err
	}
	if durable != nil {
		durable(nil)
	}
	return nil
}

// Write replaces the upserted documents and removes the deleted ones on
// tx: per company, one INSERT on the kind's table that replaces the rows
// of documents it holds already, and one DELETE of the others. A store
// writing in the same database calls it on the transaction of the write
// that changed the records, so the rows commit (or not) with them.
func Write(ctx context.Context, tx pgx.Tx, batch index.Batch) error {
	if err := write(ctx, tx, batch); err != nil {
		return fmt.Errorf("pgindex: apply %s batch: %w", batch.Kind, err)
	}
	return nil
}

func write(ctx context.Context, tx pgx.Tx, batch index.Batch) error {
	l, ok := layouts[batch.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q", batch.Kind)
	}
	byCompany := map[int64][]string{}
	if batch.Company == 0 {
		owned, err := owners(ctx, tx, l, batch.Deletes)
		if err != nil {
			return err
		}
		byCompany = owned
	} else if len(batch.Deletes) > 0 {
		byCompany[batch.Company] = append([]string{}, batch.Deletes...)
	}
	deleted := map[string]bool{}
	for _, id := range batch.Deletes {
		deleted[id] = true
	}
	docs := map[int64]map[string]index.Document{}
	for _, d := range batch.Upserts {
		byCompany[d.Company] = append(byCompany[d.Company], d.ID)
		if deleted[d.ID] {
			continue // a batch's deletes win over its upserts, as in the other engines
		}
		if docs[d.Company] == nil {
			docs[d.Company] = map[string]index.Document{}
		}
		docs[d.Company][d.ID] = d // the last of one id wins
	}
	companies := make([]int64, 0, len(byCompany))
	for c := range byCompany {
		companies = append(companies, c)
	}
	slices.Sort(companies) // one order for every writer, against deadlocks
	b := &pgx.Batch{}
	for _, company := range companies {
		// The documents written replace their rows (see insert); the
		// others' rows go.
		var gone []string
		for _, id := range byCompany[company] {
			if _, written := docs[company][id]; !written {
				gone = append(gone, id)
			}
		}
		slices.Sort(gone)
		if gone = slices.Compact(gone); len(gone) > 0 {
			b.Queue("DELETE FROM "+l.table+" x WHERE x.company_id = $1 AND x.doc_id = ANY($2)", company, gone)
		}
		if len(docs[company]) > 0 {
			sql, args, err := l.insert(company, docs[company])
			if err != nil {
				return err
			}
			b.Queue(sql, args...)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, b).Close()
}

// owners finds the company of each document to delete in a batch whose
// company is unknown (index.Batch: an outbox entry older than entries that
// name their company), so this is the one statement that does not filter
// by company; the tenant test allows it by its marker comment.
func owners(ctx context.Context, tx pgx.Tx, l *layout, ids []string) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, "SELECT o.company_id, o.doc_id FROM "+l.table+" o WHERE o.doc_id = ANY($1) "+AnyCompany, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var company int64
		var id string
		if err := rows.Scan(&company, &id); err != nil {
			return nil, err
		}
		out[company] = append(out[company], id)
	}
	return out, rows.Err()
}

// AnyCompany marks the statements that may not filter by company: only
// the lookup of deleted documents' owners (see owners).
const AnyCompany = "/* any company: a legacy delete carries no company */"

// extra holds a document's values that have no column: custom fields
// (cfk., cfn., cft.) and values of a type the catalog does not give their
// field. Numbers are written as text, as float8 reads them (NaN and the
// infinities included, which JSON numbers cannot hold).
type extra struct {
	Keywords map[string][]string   `json:"k,omitempty"`
	Numbers  map[string][]string   `json:"n,omitempty"`
	Texts    map[string]extraTexts `json:"t,omitempty"`
}

// extraTexts is a text field's analysis (see analyse).
type extraTexts struct {
	Lexemes string `json:"l"`
	Stems   string `json:"s"`
	Runs    string `json:"r"`
}

// insertColumn is one column of an INSERT ... SELECT FROM unnest: the
// values of the batch's documents, one each, and how unnest passes them
// (arrays and tsvectors travel as their text input: unnest cannot take
// ragged two-dimensional arrays).
type insertColumn struct {
	name, arrayType, cast string
	values                any
}

// insert is the statement writing a company's documents into the table.
func (l *layout) insert(company int64, docs map[string]index.Document) (string, []any, error) {
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	present, extras := make([]string, len(ids)), make([]*string, len(ids))
	cols := []*insertColumn{
		{name: "doc_id", arrayType: "text[]", values: ids},
		{name: "fields", arrayType: "text[]", cast: "::text[]", values: present},
		{name: "extra", arrayType: "text[]", cast: "::jsonb", values: extras},
	}
	// per column of the layout, its insert columns (three for a text field)
	perField := make([][]*insertColumn, len(l.columns))
	for i, c := range l.columns {
		switch {
		case c.field.Type == index.TextField:
			lex, stems, runs := c.textColumns()
			perField[i] = []*insertColumn{
				{name: lex, arrayType: "text[]", cast: "::tsvector", values: make([]string, len(ids))},
				{name: stems, arrayType: "text[]", cast: "::tsvector", values: make([]string, len(ids))},
				{name: runs, arrayType: "text[]", values: make([]string, len(ids))},
			}
		case c.many && c.field.Type == index.NumberField:
			perField[i] = []*insertColumn{{name: c.sqlName(), arrayType: "text[]", cast: "::float8[]", values: make([]string, len(ids))}}
		case c.many:
			perField[i] = []*insertColumn{{name: c.sqlName(), arrayType: "text[]", cast: "::text[]", values: make([]string, len(ids))}}
		case c.field.Type == index.NumberField:
			perField[i] = []*insertColumn{{name: c.sqlName(), arrayType: "float8[]", values: make([]*float64, len(ids))}}
		default:
			perField[i] = []*insertColumn{{name: c.sqlName(), arrayType: "text[]", values: make([]*string, len(ids))}}
		}
		cols = append(cols, perField[i]...)
	}
	for row, id := range ids {
		d := docs[id]
		present[row] = textArray(l.unshown(&d))
		var x extra
		for i, c := range l.columns {
			out := perField[i]
			switch c.field.Type {
			case index.TextField:
				values := d.Texts[c.field.Name]
				if len(values) == 0 {
					out[0].values.([]string)[row], out[1].values.([]string)[row], out[2].values.([]string)[row] = "", "", ""
					continue
				}
				lexemes, stems, runs, err := analyse(values)
				if err != nil {
					return "", nil, fmt.Errorf("document %s field %s: %w", id, c.field.Name, err)
				}
				out[0].values.([]string)[row], out[1].values.([]string)[row], out[2].values.([]string)[row] = lexemes, stems, runs
			case index.NumberField:
				values := numbers(d.Numbers[c.field.Name])
				if c.many {
					out[0].values.([]string)[row] = "{" + strings.Join(values, ",") + "}"
					continue
				}
				if len(values) > 1 {
					return "", nil, fmt.Errorf("document %s: field %s holds %d values; its column holds one", id, c.field.Name, len(values))
				}
				if len(values) == 1 {
					v := slices.Min(d.Numbers[c.field.Name])
					out[0].values.([]*float64)[row] = &v
				}
			default:
				values := keywords(d.Keywords[c.field.Name])
				if c.many {
					out[0].values.([]string)[row] = textArray(values)
					continue
				}
				if len(values) > 1 {
					return "", nil, fmt.Errorf("document %s: field %s holds %d values; its column holds one", id, c.field.Name, len(values))
				}
				if len(values) == 1 {
					out[0].values.([]*string)[row] = &values[0]
				}
			}
		}
		for field, values := range d.Keywords {
			if _, ok := l.column(field, index.KeywordField); !ok && len(values) > 0 {
				if x.Keywords == nil {
					x.Keywords = map[string][]string{}
				}
				x.Keywords[field] = keywords(values)
			}
		}
		for field, values := range d.Numbers {
			if _, ok := l.column(field, index.NumberField); !ok && len(values) > 0 {
				if x.Numbers == nil {
					x.Numbers = map[string][]string{}
				}
				x.Numbers[field] = numbers(values)
			}
		}
		for field, values := range d.Texts {
			if _, ok := l.column(field, index.TextField); !ok && len(values) > 0 {
				lexemes, stems, runs, err := analyse(values)
				if err != nil {
					return "", nil, fmt.Errorf("document %s field %s: %w", id, field, err)
				}
				if x.Texts == nil {
					x.Texts = map[string]extraTexts{}
				}
				x.Texts[field] = extraTexts{Lexemes: lexemes, Stems: stems, Runs: runs}
			}
		}
		if x.Keywords != nil || x.Numbers != nil || x.Texts != nil {
			b, err := json.Marshal(x)
			if err != nil {
				return "", nil, fmt.Errorf("document %s: %w", id, err)
			}
			s := string(b)
			extras[row] = &s
		}
	}
	names, selects, unnests, aliases := []string{"company_id"}, []string{"$1"}, []string{}, []string{}
	args := []any{company}
	for i, c := range cols {
		alias := "c" + strconv.Itoa(i)
		args = append(args, c.values)
		names = append(names, c.name)
		selects = append(selects, "u."+alias+c.cast)
		unnests = append(unnests, "$"+strconv.Itoa(len(args))+"::"+c.arrayType)
		aliases = append(aliases, alias)
	}
	// A document's row is replaced whole: every column but the key is set
	// from the new row (the table has no other, see
	// TestTablesFollowCatalog). The conflict is found through the primary
	// key, whatever plan the planner keeps for the table.
	sets := make([]string, 0, len(names))
	for _, name := range names[2:] { // after company_id and doc_id
		sets = append(sets, name+" = EXCLUDED."+name)
	}
	sql := fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM unnest(%s) AS u(%s)\nON CONFLICT (company_id, doc_id) DO UPDATE SET %s", l.table,
		strings.Join(names, ", "), strings.Join(selects, ", "), strings.Join(unnests, ", "), strings.Join(aliases, ", "), strings.Join(sets, ", "))
	return sql, args, nil
}

// keywords are a field's distinct values, made storable (see text), in
// order.
func keywords(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = text(v)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// numbers are a field's distinct values in order, written as float8 input.
func numbers(values []float64) []string {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make([]string, len(sorted))
	for i, v := range sorted {
		out[i] = float8(v)
	}
	return out
}

// float8 writes v as PostgreSQL's float8 input reads it back exactly.
func float8(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
