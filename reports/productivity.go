package reports

import (
	"context"
	"fmt"
	"sort"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Time ranges of the productivity distributions, in seconds: <15 min,
// 15-30 min, 30-60 min, 1-2 h, 2-3 h, 3-6 h, 6-12 h, 12-24 h, 1-2 days,
// >2 days. Replies to resolve: 1, 2, 3, 4, 5 or more.
var (
	timeBounds    = []float64{900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800}
	repliesBounds = []float64{2, 3, 4, 5}
)

// ProductivityFigures are the productivity figures of one period. Times
// are average seconds, null when nothing has the figure.
type ProductivityFigures struct {
	StartDate                   string   `json:"startDate"`
	EndDate                     string   `json:"endDate"`
	TotalConversations          int      `json:"totalConversations"`
	RepliesSent                 int      `json:"repliesSent"`
	ResponseTime                *float64 `json:"responseTime"`
	FirstResponseTime           *float64 `json:"firstResponseTime"`
	Resolved                    int      `json:"resolved"`
	ResolutionTime              *float64 `json:"resolutionTime"`
	RepliesToResolve            *float64 `json:"repliesToResolve"`
	ResolvedOnFirstReply        int      `json:"resolvedOnFirstReply"`
	PercentResolvedOnFirstReply *float64 `json:"percentResolvedOnFirstReply"`
	Closed                      int      `json:"closed"`
	HandleTime                  *float64 `json:"handleTime"`
	dist                        map[string][]int
	distCount                   map[string]int
}

// ProductivityDeltas are the percentage changes of the figures; null when
// either figure is.
type ProductivityDeltas struct {
	TotalConversations          float64  `json:"totalConversations"`
	RepliesSent                 float64  `json:"repliesSent"`
	ResponseTime                *float64 `json:"responseTime"`
	FirstResponseTime           *float64 `json:"firstResponseTime"`
	Resolved                    float64  `json:"resolved"`
	ResolutionTime              *float64 `json:"resolutionTime"`
	RepliesToResolve            *float64 `json:"repliesToResolve"`
	ResolvedOnFirstReply        float64  `json:"resolvedOnFirstReply"`
	PercentResolvedOnFirstReply *float64 `json:"percentResolvedOnFirstReply"`
	Closed                      float64  `json:"closed"`
	HandleTime                  *float64 `json:"handleTime"`
}

// Shares is a distribution with exact shares: counts per range now and
// before, each range's percent of the period's count (null over none).
type Shares struct {
	Count         int          `json:"count"`
	PreviousCount int          `json:"previousCount"`
	Ranges        []RangeShare `json:"ranges"`
}

// RangeShare is one range of a Shares distribution.
type RangeShare struct {
	ID              int      `json:"id"`
	Count           int      `json:"count"`
	Percent         *float64 `json:"percent"`
	PreviousCount   int      `json:"previousCount"`
	PreviousPercent *float64 `json:"previousPercent"`
}

// ProductivityReport is the productivity overall report.
type ProductivityReport struct {
	FilterTags        []FilterTag          `json:"filterTags"`
	Current           ProductivityFigures  `json:"current"`
	Previous          *ProductivityFigures `json:"previous,omitempty"`
	Deltas            *ProductivityDeltas  `json:"deltas,omitempty"`
	ResponseTime      Shares               `json:"responseTime"`
	FirstResponseTime Shares               `json:"firstResponseTime"`
	ResolutionTime    Shares               `json:"resolutionTime"`
	RepliesToResolve  RepliesShares        `json:"repliesToResolve"`
	HandleTime        Shares               `json:"handleTime"`
}

// RepliesShares is the replies to resolve distribution with, for each
// range, the average resolution time of the current period's conversations
// in it.
type RepliesShares struct {
	Count         int                 `json:"count"`
	PreviousCount int                 `json:"previousCount"`
	Ranges        []RepliesRangeShare `json:"ranges"`
}

// RepliesRangeShare is one range of RepliesShares: ResolutionTime is the
// exact average, in seconds, null over none.
type RepliesRangeShare struct {
	RangeShare
	ResolutionTime *float64 `json:"resolutionTime"`
}

// FirstResponseFilter selects the conversations first responded to in a
// period.
func FirstResponseFilter(p Period, f Filter) query.Node {
	return query.And{Nodes: append([]query.Node{during("firstResponseAt", p)}, f.node(tagName))}
}

// ResolvedFilter selects the conversations resolved in a period.
func ResolvedFilter(p Period, f Filter) query.Node {
	return query.And{Nodes: append([]query.Node{during("resolvedAt", p)}, f.node(tagName))}
}

// ClosedFilter selects the conversations closed in a period (by anyone).
func ClosedFilter(p Period, f Filter) query.Node {
	return query.And{Nodes: append([]query.Node{during("closedAt", p)}, f.node(tagName))}
}

// timeField is a figure's field, or its office-hours twin.
func timeField(name string, office bool) string {
	if office {
		return name[:len(name)-len("Seconds")] + "OfficeSeconds"
	}
	return name
}

// bucketsOf are the ranges between bounds: below the first, between each
// two, at or above the last.
func bucketsOf(bounds []float64) []index.Bucket {
	return RangeSpec{Bounds: bounds}.Buckets()
}

// Productivity computes the productivity overall report; tags are the
// company's.
func Productivity(ctx context.Context, e Engine, r Request, tags []parley.Tag) (*ProductivityReport, error) {
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*ProductivityFigures, error) {
		return productivityFigures(ctx, e, r, p)
	})
	if err != nil {
		return nil, err
	}
	rep := &ProductivityReport{FilterTags: FilterTags(tags), Current: *cur}
	prev := &ProductivityFigures{}
	if r.Previous != nil {
		prev = previous
		rep.Previous = prev
		d := func(a, b int) float64 { return Delta(float64(a), float64(b)) }
		rep.Deltas = &ProductivityDeltas{
			TotalConversations: d(cur.TotalConversations, prev.TotalConversations), RepliesSent: d(cur.RepliesSent, prev.RepliesSent),
			ResponseTime: deltaOf(cur.ResponseTime, prev.ResponseTime), FirstResponseTime: deltaOf(cur.FirstResponseTime, prev.FirstResponseTime),
			Resolved: d(cur.Resolved, prev.Resolved), ResolutionTime: deltaOf(cur.ResolutionTime, prev.ResolutionTime),
			RepliesToResolve: deltaOf(cur.RepliesToResolve, prev.RepliesToResolve), ResolvedOnFirstReply: d(cur.ResolvedOnFirstReply, prev.ResolvedOnFirstReply),
			PercentResolvedOnFirstReply: deltaOf(cur.PercentResolvedOnFirstReply, prev.PercentResolvedOnFirstReply),
			Closed:                      d(cur.Closed, prev.Closed),
			HandleTime:                  deltaOf(cur.HandleTime, prev.HandleTime),
		}
	}
	var replies Shares
	for name, out := range map[string]*Shares{"responseTime": &rep.ResponseTime, "firstResponseTime": &rep.FirstResponseTime,
		"resolutionTime": &rep.ResolutionTime, "repliesToResolve": &replies, "handleTime": &rep.HandleTime} {
		*out = shares(cur.dist[name], cur.distCount[name], prev.dist[name], prev.distCount[name])
	}
	times, err := resolutionTimeByReplies(ctx, e, r, r.Current)
	if err != nil {
		return nil, err
	}
	rep.RepliesToResolve = RepliesShares{Count: replies.Count, PreviousCount: replies.PreviousCount, Ranges: []RepliesRangeShare{}}
	for i, rs := range replies.Ranges {
		rep.RepliesToResolve.Ranges = append(rep.RepliesToResolve.Ranges, RepliesRangeShare{RangeShare: rs, ResolutionTime: meanOfSum(times[i])})
	}
	return rep, nil
}

// resolutionTimeByReplies sums the resolution times of the conversations
// resolved in a period per range of their replies (repliesBounds).
func resolutionTimeByReplies(ctx context.Context, e Engine, r Request, p Period) ([]index.Sum, error) {
	resolution := timeField("resolutionSeconds", r.Filter.OfficeHours)
	res, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Conversations, Company: r.Company, Filter: ResolvedFilter(p, r.Filter),
		GroupBy: []string{"replies"}, Sums: []string{resolution}})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	out := make([]index.Sum, len(repliesBounds)+1)
	for _, g := range res.Groups {
		replies, err := index.ParseValueKey(g.Key[0])
		if err != nil {
			return nil, fmt.Errorf("reports: replies value %q is not a number", g.Key[0])
		}
		i := sort.Search(len(repliesBounds), func(i int) bool { return repliesBounds[i] > replies }) // the bounds at or below
		out[i].Count += g.Sums[resolution].Count
		out[i].Total += g.Sums[resolution].Total
	}
	return out, nil
}

func shares(cur []int, count int, prev []int, previousCount int) Shares {
	out := Shares{Count: count, PreviousCount: previousCount, Ranges: []RangeShare{}}
	for i, n := range cur {
		before := 0
		if i < len(prev) {
			before = prev[i]
		}
		out.Ranges = append(out.Ranges, RangeShare{ID: i + 1, Count: n, Percent: share(n, count),
			PreviousCount: before, PreviousPercent: share(before, previousCount)})
	}
	return out
}

// meanOf is the exact average of a Values facet of numbers; nil over none.
func meanOf(values map[string]int) (*float64, int, error) {
	n, sum, err := valueStats(values)
	if err != nil || n == 0 {
		return nil, n, err
	}
	v := sum / float64(n)
	return &v, n, nil
}

func productivityFigures(ctx context.Context, e Engine, r Request, p Period) (*ProductivityFigures, error) {
	office := r.Filter.OfficeHours
	f := &ProductivityFigures{StartDate: Date(p.Start), EndDate: Date(p.End), dist: map[string][]int{}, distCount: map[string]int{}}
	response := timeField("responseSeconds", office)
	replies, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: ReplyFilter(p, r.Filter),
		Values: map[string]string{"conversations": "conversationId", "time": response, "handle": "handleSeconds"},
		Ranges: map[string]index.RangeFacet{"time": {Field: response, Buckets: bucketsOf(timeBounds)},
			"handle": {Field: "handleSeconds", Buckets: bucketsOf(timeBounds)}}})
	if err != nil {
		return nil, err
	}
	f.RepliesSent, f.TotalConversations = replies.Total, len(replies.Values["conversations"])
	if f.ResponseTime, f.distCount["responseTime"], err = meanOf(replies.Values["time"]); err != nil {
		return nil, err
	}
	f.dist["responseTime"] = replies.Ranges["time"]
	if f.HandleTime, f.distCount["handleTime"], err = meanOf(replies.Values["handle"]); err != nil {
		return nil, err
	}
	f.dist["handleTime"] = replies.Ranges["handle"]

	first := timeField("firstResponseSeconds", office)
	firsts, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: FirstResponseFilter(p, r.Filter),
		Values: map[string]string{"time": first}, Ranges: map[string]index.RangeFacet{"time": {Field: first, Buckets: bucketsOf(timeBounds)}}})
	if err != nil {
		return nil, err
	}
	if f.FirstResponseTime, f.distCount["firstResponseTime"], err = meanOf(firsts.Values["time"]); err != nil {
		return nil, err
	}
	f.dist["firstResponseTime"] = firsts.Ranges["time"]

	resolution := timeField("resolutionSeconds", office)
	resolved, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: ResolvedFilter(p, r.Filter),
		Values: map[string]string{"time": resolution, "replies": "replies"},
		Ranges: map[string]index.RangeFacet{"time": {Field: resolution, Buckets: bucketsOf(timeBounds)},
			"replies": {Field: "replies", Buckets: bucketsOf(repliesBounds)}}})
	if err != nil {
		return nil, err
	}
	f.Resolved = resolved.Total
	if f.ResolutionTime, f.distCount["resolutionTime"], err = meanOf(resolved.Values["time"]); err != nil {
		return nil, err
	}
	if f.RepliesToResolve, f.distCount["repliesToResolve"], err = meanOf(resolved.Values["replies"]); err != nil {
		return nil, err
	}
	f.dist["resolutionTime"], f.dist["repliesToResolve"] = resolved.Ranges["time"], resolved.Ranges["replies"]
	f.ResolvedOnFirstReply = resolved.Values["replies"]["1"]
	f.PercentResolvedOnFirstReply = share(f.ResolvedOnFirstReply, f.Resolved)

	closed, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: ClosedFilter(p, r.Filter)})
	if err != nil {
		return nil, err
	}
	f.Closed = closed.Total
	return f, nil
}

// TimePoint is one step of a time series: its start, and the average
// seconds of its figure (null when nothing in the step has it).
type TimePoint struct {
	Date string   `json:"date"`
	Time *float64 `json:"time"`
}

// TimeSeries is an average time over steps, now and before.
type TimeSeries struct {
	Current  []TimePoint `json:"current"`
	Previous []TimePoint `json:"previous,omitempty"`
}

// averageSeries averages a figure per step of each period; filter
// selects what a period holds, by its time field.
func averageSeries(ctx context.Context, e Engine, r Request, viewBy string, kind index.Kind, timeField, field string,
	filter func(Period) query.Node) (*TimeSeries, error) {
	cur, prev, err := bothPeriods(r, func(p Period) ([]TimePoint, error) {
		parts, groups, err := stepGroups(ctx, e, index.AggregateRequest{Kind: kind, Company: r.Company, Filter: filter(p),
			By: timeField, Sums: []string{field}}, p, viewBy)
		if err != nil {
			return nil, err
		}
		var out []TimePoint
		for i, s := range parts {
			var sum index.Sum
			for _, g := range groups[i] {
				sum.Count += g.Sums[field].Count
				sum.Total += g.Sums[field].Total
			}
			out = append(out, TimePoint{Date: Date(s.Start), Time: meanOfSum(sum)})
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return &TimeSeries{Current: cur, Previous: prev}, nil
}

// meanOfSum is the exact average of a sum; nil over none.
func meanOfSum(s index.Sum) *float64 {
	if s.Count == 0 {
		return nil
	}
	v := s.Total / float64(s.Count)
	return &v
}

// FirstResponseTimes averages the first response time per step, by when
// the first response was sent.
func FirstResponseTimes(ctx context.Context, e Engine, r Request, viewBy string) (*TimeSeries, error) {
	return averageSeries(ctx, e, r, viewBy, index.Conversations, "firstResponseAt", timeField("firstResponseSeconds", r.Filter.OfficeHours),
		func(p Period) query.Node { return FirstResponseFilter(p, r.Filter) })
}

// ResponseTimes averages the response time of the replies sent per step.
func ResponseTimes(ctx context.Context, e Engine, r Request, viewBy string) (*TimeSeries, error) {
	return averageSeries(ctx, e, r, viewBy, index.Messages, "createdAt", timeField("responseSeconds", r.Filter.OfficeHours),
		func(p Period) query.Node { return ReplyFilter(p, r.Filter) })
}

// ResolutionTimes averages the resolution time per step, by when the
// conversation was resolved.
func ResolutionTimes(ctx context.Context, e Engine, r Request, viewBy string) (*TimeSeries, error) {
	return averageSeries(ctx, e, r, viewBy, index.Conversations, "resolvedAt", timeField("resolutionSeconds", r.Filter.OfficeHours),
		func(p Period) query.Node { return ResolvedFilter(p, r.Filter) })
}

// RepliesSentPoint is one step of the replies sent series, under Parley's
// names (start, count) and those of Help Scout's docs (date, replies).
type RepliesSentPoint struct {
	Point
	RepliesPoint
}

// ResolvedSeriesPoint is one step of the resolved series, under Parley's
// names (start, count) and those of Help Scout's docs (date, resolved).
type ResolvedSeriesPoint struct {
	Point
	ResolvedPoint
}

// BothNamesSeries is a count series whose points carry both names.
type BothNamesSeries[P any] struct {
	Current  []P `json:"current"`
	Previous []P `json:"previous,omitempty"`
}

// RepliesSent counts the replies sent per step.
func RepliesSent(ctx context.Context, e Engine, r Request, viewBy string) (*BothNamesSeries[RepliesSentPoint], error) {
	series, err := countSeries(ctx, e, r, viewBy, index.Messages, "createdAt", func(p Period) query.Node { return ReplyFilter(p, r.Filter) })
	if err != nil {
		return nil, err
	}
	point := func(p Point) RepliesSentPoint {
		return RepliesSentPoint{p, RepliesPoint{Date: p.Start, Replies: p.Count}}
	}
	return &BothNamesSeries[RepliesSentPoint]{Current: relabel(series.Current, point), Previous: relabel(series.Previous, point)}, nil
}

// ResolvedSeries counts the conversations resolved per step.
func ResolvedSeries(ctx context.Context, e Engine, r Request, viewBy string) (*BothNamesSeries[ResolvedSeriesPoint], error) {
	series, err := countSeries(ctx, e, r, viewBy, index.Conversations, "resolvedAt", func(p Period) query.Node { return ResolvedFilter(p, r.Filter) })
	if err != nil {
		return nil, err
	}
	point := func(p Point) ResolvedSeriesPoint {
		return ResolvedSeriesPoint{p, ResolvedPoint{Date: p.Start, Resolved: p.Count}}
	}
	return &BothNamesSeries[ResolvedSeriesPoint]{Current: relabel(series.Current, point), Previous: relabel(series.Previous, point)}, nil
}
