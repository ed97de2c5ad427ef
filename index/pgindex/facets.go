package pgindex

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

// Facets counts, over the documents matching the filter, the documents per
// numeric bucket and per distinct value, with SQL aggregates: one
// statement per facet, all in one round trip and one snapshot.
func (e *Engine) Facets(ctx context.Context, r index.FacetRequest) (index.FacetResult, error) {
	out := index.FacetResult{Ranges: map[string][]int{}, Values: map[string]map[string]int{}}
	b := &pgx.Batch{}
	queue := func(s *statement, sql string, scan func(pgx.Rows) error) error {
		from, err := s.documents(r.Filter)
		if err != nil {
			return err
		}
		sql = "WITH m AS MATERIALIZED (SELECT d.doc_id " + from + ")\n" + sql
		b.Queue(sql, s.args...).Query(func(rows pgx.Rows) error {
			defer rows.Close()
			for rows.Next() {
				if err := scan(rows); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		return nil
	}
	if err := queue(newStatement(r.Kind, r.Company), "SELECT count(*) FROM m", func(rows pgx.Rows) error {
		return rows.Scan(&out.Total)
	}); err != nil {
		return out, err
	}
	for name, rf := range r.Ranges {
		counts := make([]int, len(rf.Buckets))
		out.Ranges[name] = counts
		if len(rf.Buckets) == 0 {
			continue
		}
		s := newStatement(r.Kind, r.Company)
		field := s.arg(rf.Field)
		a := s.alias("n")
		filters := make([]string, len(rf.Buckets))
		for i, bucket := range rf.Buckets {
			conds := []string{"TRUE"}
			if bucket.Min != nil {
				conds = append(conds, fmt.Sprintf("%s.value >= %s::float8", a, s.arg(*bucket.Min)))
			}
			if bucket.Max != nil {
				conds = append(conds, fmt.Sprintf("%s.value < %s::float8", a, s.arg(*bucket.Max)))
			}
			filters[i] = fmt.Sprintf("count(DISTINCT %s.doc_id) FILTER (WHERE %s)", a, strings.Join(conds, " AND "))
		}
		sql := fmt.Sprintf("SELECT %[2]s FROM search_numbers %[1]s JOIN m ON m.doc_id = %[1]s.doc_id WHERE %[1]s.company_id = $1 AND %[1]s.kind = $2 AND %[1]s.field = %[3]s",
			a, strings.Join(filters, ", "), field)
		if err := queue(s, sql, func(rows pgx.Rows) error {
			dest := make([]any, len(counts))
			for i := range counts {
				dest[i] = &counts[i]
			}
			return rows.Scan(dest...)
		}); err != nil {
			return out, err
		}
	}
	for name, field := range r.Values {
		values := map[string]int{}
		out.Values[name] = values
		table, prefix, number := "search_keywords", "k", false
		if f, ok := index.FieldOf(r.Kind, field); ok && f.Type == index.NumberField {
			if !f.Valued {
				return out, fmt.Errorf("pgindex: field %q is not Valued", field)
			}
			table, prefix, number = "search_numbers", "n", true
		}
		s := newStatement(r.Kind, r.Company)
		a := s.alias(prefix)
		// Values are stored once per document, so count(*) counts
		// documents.
		sql := fmt.Sprintf("SELECT %[1]s.value, count(*) FROM %[2]s %[1]s JOIN m ON m.doc_id = %[1]s.doc_id WHERE %[1]s.company_id = $1 AND %[1]s.kind = $2 AND %[1]s.field = %[3]s GROUP BY %[1]s.value",
			a, table, s.arg(field))
		if err := queue(s, sql, func(rows pgx.Rows) error {
			var count int
			if number {
				var v float64
				if err := rows.Scan(&v, &count); err != nil {
					return err
				}
				values[index.ValueKey(v)] = count
				return nil
			}
			var v string
			if err := rows.Scan(&v, &count); err != nil {
				return err
			}
			values[v] = count
			return nil
		}); err != nil {
			return out, err
		}
	}
	err := pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return index.FacetResult{}, fmt.Errorf("pgindex: facets: %w", err)
	}
	return out, nil
}
