package pgindex

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

var _ index.Aggregator = (*Engine)(nil)

// Aggregate answers with SQL GROUP BY: the matching documents, each paired
// with its bucket (width_bucket over the edges) and each combination of
// its group values, are grouped once for the counts and sums and once per
// Distinct field, all in one round trip and one snapshot.
func (e *Engine) Aggregate(ctx context.Context, r index.AggregateRequest) (index.AggregateResult, error) {
	if err := index.CheckAggregate(r); err != nil {
		return index.AggregateResult{}, err
	}
	groups := map[string]*index.Group{}
	group := func(bucket int, key []string) *index.Group {
		id := fmt.Sprint(bucket, "\x00", strings.Join(key, "\x00"))
		g := groups[id]
		if g == nil {
			g = &index.Group{Bucket: bucket, Key: key, Sums: map[string]index.Sum{}, Distinct: map[string]int{}}
			for _, f := range r.Sums {
				g.Sums[f] = index.Sum{}
			}
			for _, f := range r.Distinct {
				g.Distinct[f] = 0
			}
			groups[id] = g
		}
		return g
	}
	b := &pgx.Batch{}
	// queue adds a statement over the grouped documents g: cols are the
	// figures it selects per group, scanned into dest, then kept by keep.
	queue := func(cols func(s *statement) (joins, selects string), dest func() []any, keep func(g *index.Group, dest []any)) error {
		s := newStatement(r.Kind, r.Company)
		with, err := aggregateGroups(s, r)
		if err != nil {
			return err
		}
		keys := []string{"g.bucket"}
		for i := range r.GroupBy {
			keys = append(keys, fmt.Sprintf("g.g%d", i))
		}
		joins, selects := cols(s)
		sql := fmt.Sprintf("%s\nSELECT %s, %s FROM g%s GROUP BY %s", with, strings.Join(keys, ", "), selects, joins, strings.Join(keys, ", "))
		b.Queue(sql, s.args...).Query(func(rows pgx.Rows) error {
			defer rows.Close()
			for rows.Next() {
				var bucket int
				keyDest := make([]any, len(r.GroupBy))
				for i, f := range r.GroupBy {
					if number(r.Kind, f) {
						keyDest[i] = new(float64)
					} else {
						keyDest[i] = new(string)
					}
				}
				figures := dest()
				if err := rows.Scan(append(append([]any{&bucket}, keyDest...), figures...)...); err != nil {
					return err
				}
				key := make([]string, len(keyDest))
				for i, v := range keyDest {
					switch v := v.(type) {
					case *float64:
						key[i] = index.ValueKey(*v)
					case *string:
						key[i] = *v
					}
				}
				keep(group(bucket, key), figures)
			}
			return rows.Err()
		})
		return nil
	}
	err := queue(func(s *statement) (string, string) {
		var joins strings.Builder
		selects := []string{"count(*)"}
		for i, f := range r.Sums {
			a := fmt.Sprintf("s%d", i)
			fmt.Fprintf(&joins, "\nLEFT JOIN LATERAL (SELECT count(*) AS c, sum(n.value) AS t FROM search_numbers n WHERE n.company_id = $1 AND n.kind = $2 AND n.doc_id = g.doc_id AND n.field = %s) %s ON TRUE",
				s.arg(f), a)
			selects = append(selects, fmt.Sprintf("coalesce(sum(%[1]s.c), 0)::bigint, coalesce(sum(%[1]s.t), 0)::float8", a))
		}
		return joins.String(), strings.Join(selects, ", ")
	}, func() []any {
		dest := []any{new(int)}
		for range r.Sums {
			dest = append(dest, new(int), new(float64))
		}
		return dest
	}, func(g *index.Group, dest []any) {
		g.Count = *dest[0].(*int)
		for i, f := range r.Sums {
			g.Sums[f] = index.Sum{Count: *dest[1+2*i].(*int), Total: *dest[2+2*i].(*float64)}
		}
	})
	for _, f := range r.Distinct {
		if err != nil {
			break
		}
		err = queue(func(s *statement) (string, string) {
			return "\nJOIN " + valuesOf(s, r, f) + " v ON v.doc_id = g.doc_id", "count(DISTINCT v.value)"
		}, func() []any { return []any{new(int)} }, func(g *index.Group, dest []any) {
			g.Distinct[f] = *dest[0].(*int)
		})
	}
	if err != nil {
		return index.AggregateResult{}, err
	}
	err = pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return index.AggregateResult{}, fmt.Errorf("pgindex: aggregate: %w", err)
	}
	out := index.AggregateResult{Groups: []index.Group{}}
	for _, g := range groups {
		out.Groups = append(out.Groups, *g)
	}
	index.SortGroups(out.Groups)
	return out, nil
}

// aggregateGroups is the WITH clause naming g: one row per matching
// document, bucket and combination of group values (g0, g1...).
func aggregateGroups(s *statement, r index.AggregateRequest) (string, error) {
	from, err := s.documents(r.Filter)
	if err != nil {
		return "", err
	}
	sql := "WITH m AS MATERIALIZED (SELECT d.doc_id " + from + "),\n"
	if r.By == "" {
		sql += "b AS (SELECT m.doc_id, 0 AS bucket FROM m),\n"
	} else {
		sql += fmt.Sprintf("b AS (SELECT DISTINCT m.doc_id, width_bucket(n.value, %[1]s::float8[]) - 1 AS bucket FROM m JOIN search_numbers n ON n.company_id = $1 AND n.kind = $2 AND n.doc_id = m.doc_id AND n.field = %[2]s WHERE n.value >= %[3]s::float8 AND n.value < %[4]s::float8),\n",
			s.arg(r.Edges), s.arg(r.By), s.arg(r.Edges[0]), s.arg(r.Edges[len(r.Edges)-1]))
	}
	cols, joins := "b.doc_id, b.bucket", ""
	for i, f := range r.GroupBy {
		cols += fmt.Sprintf(", k%[1]d.value AS g%[1]d", i)
		joins += fmt.Sprintf(" JOIN %s k%d ON k%d.doc_id = b.doc_id", valuesOf(s, r, f), i, i)
	}
	return sql + "g AS (SELECT " + cols + " FROM b" + joins + ")", nil
}

// valuesOf is a subquery of the distinct (doc_id, value) pairs of a
// keyword or number field.
func valuesOf(s *statement, r index.AggregateRequest, field string) string {
	table := "search_keywords"
	if number(r.Kind, field) {
		table = "search_numbers"
	}
	return fmt.Sprintf("(SELECT DISTINCT x.doc_id, x.value FROM %s x WHERE x.company_id = $1 AND x.kind = $2 AND x.field = %s)", table, s.arg(field))
}

// number reports whether a field of a kind is stored as numbers.
func number(kind index.Kind, field string) bool {
	f, ok := index.FieldOf(kind, field)
	return ok && f.Type == index.NumberField
}
