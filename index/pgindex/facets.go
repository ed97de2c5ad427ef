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
	// queue adds a statement over the matching rows d: selects and, after
	// them, the rest of the statement (the value sets it joins, a GROUP
	// BY), with the WHERE between them.
	queue := func(s *statement, selects, join, groupBy string, scan func(pgx.Rows) error) error {
		from, err := s.matching(join, r.Filter)
		if err != nil {
			return err
		}
		b.Queue("SELECT "+selects+" "+from+groupBy, s.args...).Query(func(rows pgx.Rows) error {
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
	s, err := newStatement(r.Kind, r.Company)
	if err != nil {
		return out, err
	}
	if err := queue(s, "count(*)", "", "", func(rows pgx.Rows) error {
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
		s, _ := newStatement(r.Kind, r.Company)
		vs := s.valuesOf(rf.Field, index.NumberField)
		filters := make([]string, len(rf.Buckets))
		for i, bucket := range rf.Buckets {
			filters[i] = fmt.Sprintf("count(*) FILTER (WHERE %s)", s.any(vs, func(v string) string {
				conds := []string{"TRUE"}
				if bucket.Min != nil {
					conds = append(conds, fmt.Sprintf("%s >= %s::float8", v, s.arg(*bucket.Min)))
				}
				if bucket.Max != nil {
					conds = append(conds, fmt.Sprintf("%s < %s::float8", v, s.arg(*bucket.Max)))
				}
				return "(" + strings.Join(conds, " AND ") + ")"
			}))
		}
		if err := queue(s, strings.Join(filters, ", "), "", "", func(rows pgx.Rows) error {
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
		t, number := index.KeywordField, false
		if f, ok := index.FieldOf(r.Kind, field); ok && f.Type == index.NumberField {
			if !f.Valued {
				return out, fmt.Errorf("pgindex: field %q is not Valued", field)
			}
			t, number = index.NumberField, true
		}
		s, _ := newStatement(r.Kind, r.Company)
		// A document holds each value once, so count(*) counts documents.
		join := " CROSS JOIN LATERAL " + s.set(s.valuesOf(field, t)) + " a"
		if err := queue(s, "a.v, count(*)", join, " AND a.v IS NOT NULL GROUP BY a.v", func(rows pgx.Rows) error {
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
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return index.FacetResult{}, fmt.Errorf("pgindex: facets: %w", err)
	}
	return out, nil
}
