package reports

import (
	"context"
	"fmt"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"golang.org/x/sync/errgroup"
)

// ViewBys are the values of viewBy: the resolution of a report's series.
var ViewBys = []string{"day", "week", "month"}

// Limits of viewBy: days up to 120 days, weeks up to a year, months from
// 61 days.
const (
	maxDays      = 120 * 24 * time.Hour
	maxWeeks     = 365 * 24 * time.Hour
	minMonths    = 61 * 24 * time.Hour
	maxSeriesLen = 240 // months: twenty years
)

// ViewBy checks a requested resolution against the period (both periods
// when a previous one is given), or chooses one when none is requested:
// day up to 120 days, week up to a year, month beyond.
func ViewBy(r Request, requested string) (string, error) {
	span := r.Current.End.Sub(r.Current.Start)
	if r.Previous != nil {
		span = max(span, r.Previous.End.Sub(r.Previous.Start))
	}
	if requested == "" {
		switch {
		case span <= maxDays:
			return "day", nil
		case span <= maxWeeks:
			return "week", nil
		}
		requested = "month"
	}
	var ok bool
	switch requested {
	case "day":
		ok = span <= maxDays
	case "week":
		ok = span <= maxWeeks
	case "month":
		ok = span >= minMonths && span <= maxSeriesLen*31*24*time.Hour
	}
	if !ok {
		return "", parley.InvalidParameter("viewBy", parley.CodeValueNotSupported,
			"day is for periods up to 120 days, week up to a year, month from 61 days (at most 20 years)", requested)
	}
	return requested, nil
}

// steps cuts a period into the buckets of a resolution, from its start;
// the last bucket ends with the period.
func steps(p Period, viewBy string) []Period {
	var out []Period
	for start := p.Start; start.Before(p.End); {
		var end time.Time
		switch viewBy {
		case "day":
			end = start.AddDate(0, 0, 1)
		case "week":
			end = start.AddDate(0, 0, 7)
		default:
			end = start.AddDate(0, 1, 0)
		}
		if end.After(p.End) {
			end = p.End
		}
		out = append(out, Period{Start: start, End: end})
		start = end
	}
	return out
}

// Point is one bucket of a series: its start and its count.
type Point struct {
	Start string `json:"start"`
	Count int    `json:"count"`
}

// Series is a report over time: the current period's buckets, and the
// previous period's when one was given.
type Series struct {
	Current  []Point `json:"current"`
	Previous []Point `json:"previous,omitempty"`
}

// timeBuckets are the range buckets of a period's steps, in milliseconds.
func timeBuckets(p Period, viewBy string) (index.RangeFacet, []Period) {
	parts := steps(p, viewBy)
	rf := index.RangeFacet{}
	for _, s := range parts {
		from, to := index.Millis(s.Start), index.Millis(s.End)
		rf.Buckets = append(rf.Buckets, index.Bucket{Min: &from, Max: &to})
	}
	return rf, parts
}

// stepEdges are the edges of a period's steps, in milliseconds, for an
// aggregate bucketed by time.
func stepEdges(parts []Period) []float64 {
	edges := make([]float64, 0, len(parts)+1)
	for _, s := range parts {
		edges = append(edges, index.Millis(s.Start))
	}
	return append(edges, index.Millis(parts[len(parts)-1].End))
}

// stepGroups aggregates, over the steps of a period, what a request asks
// of the documents a filter selects, bucketed by a time field: one walk of
// the documents for the whole series. It answers the steps and the groups
// of each (by step, nil for a step without documents); a period too short
// for a step has none.
func stepGroups(ctx context.Context, e Engine, r index.AggregateRequest, p Period, viewBy string) ([]Period, [][]index.Group, error) {
	parts := steps(p, viewBy)
	if len(parts) == 0 {
		return nil, nil, nil
	}
	r.Edges = stepEdges(parts)
	res, err := e.Aggregate(ctx, r)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %w", err)
	}
	out := make([][]index.Group, len(parts))
	for _, g := range res.Groups {
		out[g.Bucket] = append(out[g.Bucket], g)
	}
	return parts, out, nil
}

// countSeries counts, per step of each period, the documents of a kind
// that a filter selects, bucketed by a time field.
func countSeries(ctx context.Context, e Engine, r Request, viewBy string, kind index.Kind, field string,
	filter func(Period) query.Node) (*Series, error) {
	cur, prev, err := bothPeriods(r, func(p Period) ([]Point, error) {
		parts, groups, err := stepGroups(ctx, e, index.AggregateRequest{Kind: kind, Company: r.Company, Filter: filter(p), By: field}, p, viewBy)
		if err != nil {
			return nil, err
		}
		out := make([]Point, len(parts))
		for i, s := range parts {
			out[i] = Point{Start: Date(s.Start)}
			for _, g := range groups[i] {
				out[i].Count += g.Count
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return &Series{Current: cur, Previous: prev}, nil
}

// bothPeriods computes a series for the current period, and for the
// previous one when the request has one (nil otherwise), both at once (see
// bothFigures).
func bothPeriods[P any](r Request, one func(Period) ([]P, error)) (cur, prev []P, err error) {
	if r.Previous == nil {
		cur, err = one(r.Current)
		return cur, nil, err
	}
	var g errgroup.Group
	g.Go(func() (err error) { cur, err = one(r.Current); return err })
	g.Go(func() (err error) { prev, err = one(*r.Previous); return err })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return cur, prev, nil
}
