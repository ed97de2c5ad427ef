package pgindex

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

var _ index.Aggregator = (*Engine)(nil)

// Aggregate answers with SQL GROUP BY. When every field the request
// reads is a scalar column, one statement groups the matching rows (see
// aggregateScalars); else the matching documents, each paired with its
// bucket (width_bucket over the edges) and each combination of its group
// values, are grouped once for the counts and sums and once per Distinct
// field (see aggregateSets), all in one round trip and one snapshot.
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
	// read queues a statement answering one row per group: its bucket,
	// its key (one value per GroupBy field), then figures scanned into
	// dest and kept by keep.
	read := func(sql string, args []any, dest func() []any, keep func(g *index.Group, dest []any)) {
		b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
			defer rows.Close()
			for rows.Next() {
				var bucket int
				keyDest := make([]any, len(r.GroupBy))
				for i, f := range r.GroupBy {
					if valueType(r.Kind, f) == index.NumberField {
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
	}
	countDest := func() []any {
		dest := []any{new(int)}
		for range r.Sums {
			dest = append(dest, new(int), new(float64))
		}
		return dest
	}
	keepCounts := func(g *index.Group, dest []any) {
		g.Count = *dest[0].(*int)
		for i, f := range r.Sums {
			g.Sums[f] = index.Sum{Count: *dest[1+2*i].(*int), Total: *dest[2+2*i].(*float64)}
		}
	}
	if scalarAggregate(r) {
		sql, args, err := aggregateScalars(r)
		if err != nil {
			return index.AggregateResult{}, err
		}
		read(sql, args, func() []any {
			dest := countDest()
			for range r.Distinct {
				dest = append(dest, new(int))
			}
			return dest
		}, func(g *index.Group, dest []any) {
			keepCounts(g, dest)
			for i, f := range r.Distinct {
				g.Distinct[f] = *dest[1+2*len(r.Sums)+i].(*int)
			}
		})
	} else if err := aggregateSets(r, read, countDest, keepCounts); err != nil {
		return index.AggregateResult{}, err
	}
	err := pgx.BeginTxFunc(ctx, e.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
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

// scalarAggregate reports whether every field a request buckets, groups,
// sums or counts by is a scalar column: each document then has at most
// one value of each, so it is in at most one group, and one pass over the
// matching rows answers every figure (see aggregateScalars).
func scalarAggregate(r index.AggregateRequest) bool {
	l, ok := layouts[r.Kind]
	if !ok {
		return false
	}
	scalar := func(field string, t index.FieldType) bool {
		c, ok := l.column(field, t)
		return ok && !c.many
	}
	if r.By != "" && !scalar(r.By, index.NumberField) {
		return false
	}
	for _, f := range r.Sums {
		if !scalar(f, index.NumberField) {
			return false
		}
	}
	for _, fields := range [][]string{r.GroupBy, r.Distinct} {
		for _, f := range fields {
			if !scalar(f, valueType(r.Kind, f)) {
				return false
			}
		}
	}
	return true
}

// aggregateScalars is the one statement of a scalarAggregate request: the
// matching rows grouped by bucket and key, with their count, the count
// and total of each Sums field and the distinct values of each Distinct
// field, as the general statements (see aggregateSets) answer them.
func aggregateScalars(r index.AggregateRequest) (string, []any, error) {
	s, err := newStatement(r.Kind, r.Company)
	if err != nil {
		return "", nil, err
	}
	keys, cond := []string{"0"}, ""
	if r.By != "" {
		by := s.valuesOf(r.By, index.NumberField).scalar
		keys[0] = fmt.Sprintf("width_bucket(%s, %s::float8[]) - 1", by, s.arg(r.Edges))
		cond = fmt.Sprintf(" AND %[1]s >= %[2]s::float8 AND %[1]s < %[3]s::float8", by, s.arg(r.Edges[0]), s.arg(r.Edges[len(r.Edges)-1]))
	}
	for _, f := range r.GroupBy {
		k := s.valuesOf(f, valueType(r.Kind, f)).scalar
		keys = append(keys, k)
		cond += " AND " + k + " IS NOT NULL"
	}
	selects := []string{"count(*)"}
	for _, f := range r.Sums {
		v := s.valuesOf(f, index.NumberField).scalar
		selects = append(selects, fmt.Sprintf("count(%[1]s)::bigint, coalesce(sum(%[1]s), 0)::float8", v))
	}
	for _, f := range r.Distinct {
		selects = append(selects, fmt.Sprintf("count(DISTINCT %s)", s.valuesOf(f, valueType(r.Kind, f)).scalar))
	}
	from, err := s.matching("", r.Filter)
	if err != nil {
		return "", nil, err
	}
	positions := make([]string, len(keys))
	for i := range keys {
		positions[i] = fmt.Sprint(i + 1)
	}
	return fmt.Sprintf("SELECT %s, %s %s%s GROUP BY %s", strings.Join(keys, ", "), strings.Join(selects, ", "), from, cond, strings.Join(positions, ", ")), s.args, nil
}

// aggregateSets queues, for any request, the statements answering it
// over the grouped documents g (see aggregateGroups): one for the counts
// and sums, one per Distinct field.
func aggregateSets(r index.AggregateRequest, read func(sql string, args []any, dest func() []any, keep func(g *index.Group, dest []any)),
	countDest func() []any, keepCounts func(g *index.Group, dest []any)) error {
	// queue adds a statement over the grouped documents g: cols are the
	// figures it selects per group, scanned into dest, then kept by keep.
	queue := func(cols func(s *statement) (joins, selects string), dest func() []any, keep func(g *index.Group, dest []any)) error {
		s, err := newStatement(r.Kind, r.Company)
		if err != nil {
			return err
		}
		with, err := aggregateGroups(s, r)
		if err != nil {
			return err
		}
		keys := []string{"g.bucket"}
		for i := range r.GroupBy {
			keys = append(keys, fmt.Sprintf("g.g%d", i))
		}
		joins, selects := cols(s)
		sql := fmt.Sprintf("%s\nSELECT %s, %s FROM g JOIN %s d ON d.company_id = $1 AND d.doc_id = g.doc_id%s GROUP BY %s",
			with, strings.Join(keys, ", "), selects, s.layout.table, joins, strings.Join(keys, ", "))
		read(sql, s.args, dest, keep)
		return nil
	}
	err := queue(func(s *statement) (string, string) {
		var joins strings.Builder
		selects := []string{"count(*)"}
		for i, f := range r.Sums {
			a := fmt.Sprintf("s%d", i)
			fmt.Fprintf(&joins, "\nLEFT JOIN LATERAL (SELECT count(x.v) AS c, sum(x.v) AS t FROM %s x) %s ON TRUE",
				s.set(s.valuesOf(f, index.NumberField)), a)
			selects = append(selects, fmt.Sprintf("coalesce(sum(%[1]s.c), 0)::bigint, coalesce(sum(%[1]s.t), 0)::float8", a))
		}
		return joins.String(), strings.Join(selects, ", ")
	}, countDest, keepCounts)
	for _, f := range r.Distinct {
		if err != nil {
			break
		}
		err = queue(func(s *statement) (string, string) {
			return "\nCROSS JOIN LATERAL " + s.set(s.valuesOf(f, valueType(r.Kind, f))) + " v", "count(DISTINCT v.v)"
		}, func() []any { return []any{new(int)} }, func(g *index.Group, dest []any) {
			g.Distinct[f] = *dest[0].(*int)
		})
	}
	return err
}

// aggregateGroups is the WITH clause naming g: one row per matching
// document, bucket and combination of group values (g0, g1...).
func aggregateGroups(s *statement, r index.AggregateRequest) (string, error) {
	cols, join, cond := "d.doc_id, 0 AS bucket", "", ""
	if r.By != "" {
		join = " CROSS JOIN LATERAL " + s.set(s.valuesOf(r.By, index.NumberField)) + " b"
		cols = fmt.Sprintf("d.doc_id, width_bucket(b.v, %s::float8[]) - 1 AS bucket", s.arg(r.Edges))
		cond = fmt.Sprintf(" AND b.v >= %s::float8 AND b.v < %s::float8", s.arg(r.Edges[0]), s.arg(r.Edges[len(r.Edges)-1]))
	}
	for i, f := range r.GroupBy {
		cols += fmt.Sprintf(", k%[1]d.v AS g%[1]d", i)
		join += fmt.Sprintf(" CROSS JOIN LATERAL %s k%d", s.set(s.valuesOf(f, valueType(r.Kind, f))), i)
		cond += fmt.Sprintf(" AND k%d.v IS NOT NULL", i)
	}
	from, err := s.matching(join, r.Filter)
	if err != nil {
		return "", err
	}
	return "WITH g AS (SELECT DISTINCT " + cols + " " + from + cond + ")", nil
}

// valueType is how a field's values are stored: numbers for number
// fields, keywords for the others.
func valueType(kind index.Kind, field string) index.FieldType {
	if f, ok := index.FieldOf(kind, field); ok && f.Type == index.NumberField {
		return index.NumberField
	}
	return index.KeywordField
}
