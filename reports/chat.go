package reports

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
	"golang.org/x/sync/errgroup"
)

// RangeSpec is one of the four chat distributions: the field it buckets
// (and its office-hours twin) and the bounds between Help Scout's five ranges.
// A range holds values v with lower <= v < upper: range 1 is below the
// first bound, range 5 at or above the last.
type RangeSpec struct {
	Field, OfficeField string
	Bounds             []float64
}

// ChatRanges are Help Scout's distribution ranges, in seconds (messages: count).
var ChatRanges = map[string]RangeSpec{
	"waitTime":        {Field: "waitSeconds", OfficeField: "waitOfficeSeconds", Bounds: []float64{60, 120, 600, 1200}},
	"responseTime":    {Field: "responseSeconds", OfficeField: "responseOfficeSeconds", Bounds: []float64{60, 120, 300, 600}},
	"messagesPerChat": {Field: "messages", OfficeField: "messages", Bounds: []float64{5, 10, 20, 30}},
	"duration":        {Field: "durationSeconds", OfficeField: "durationOfficeSeconds", Bounds: []float64{300, 600, 1200, 1800}},
}

// Distributions names the four distributions, in report order.
var Distributions = []string{"waitTime", "responseTime", "messagesPerChat", "duration"}

func (s RangeSpec) field(office bool) string {
	if office {
		return s.OfficeField
	}
	return s.Field
}

// Buckets are the five ranges of the spec.
func (s RangeSpec) Buckets() []index.Bucket {
	var out []index.Bucket
	var lower *float64
	for i := range s.Bounds {
		upper := s.Bounds[i]
		out = append(out, index.Bucket{Min: lower, Max: &upper})
		lower = &s.Bounds[i]
	}
	return append(out, index.Bucket{Min: lower})
}

// ChatFigures are the chat figures of one period.
type ChatFigures struct {
	StartDate   string           `json:"startDate"`
	EndDate     string           `json:"endDate"`
	Volume      ChatVolume       `json:"volume"`
	Responses   ChatResponses    `json:"responses"`
	Resolutions ChatResolutions  `json:"resolutions"`
	buckets     map[string][]int // per distribution
	counts      map[string]int   // chats with a value, per distribution
}

// ChatVolume counts chats; chatConversations includes missed, completed
// and third-party integration chats.
type ChatVolume struct {
	ChatConversations float64 `json:"chatConversations"`
	CompletedChats    float64 `json:"completedChats"`
	MissedChats       float64 `json:"missedChats"`
	ChatsPerDay       float64 `json:"chatsPerDay"`
}

// ChatResponses are average wait and first response times, in seconds.
type ChatResponses struct {
	WaitTime     float64 `json:"waitTime"`
	ResponseTime float64 `json:"responseTime"`
}

// ChatResolutions are average messages per chat and duration in seconds.
type ChatResolutions struct {
	MessagesPerChat float64 `json:"messagesPerChat"`
	Duration        float64 `json:"duration"`
}

// ChatDeltas are the percentage changes of the figures.
type ChatDeltas struct {
	Volume      ChatVolume      `json:"volume"`
	Responses   ChatResponses   `json:"responses"`
	Resolutions ChatResolutions `json:"resolutions"`
}

// Distribution counts chats per range, now and before.
type Distribution struct {
	Count         int          `json:"count"`
	PreviousCount int          `json:"previousCount"`
	Ranges        []RangeCount `json:"ranges"`
}

// RangeCount is one range of a distribution.
type RangeCount struct {
	ID              int     `json:"id"`
	Count           int     `json:"count"`
	Percent         float64 `json:"percent"`
	PreviousCount   int     `json:"previousCount"`
	PreviousPercent float64 `json:"previousPercent"`
}

// ChatReport is Help Scout's chat report.
type ChatReport struct {
	Current         ChatFigures  `json:"current"`
	Previous        *ChatFigures `json:"previous,omitempty"`
	Deltas          *ChatDeltas  `json:"deltas,omitempty"`
	WaitTime        Distribution `json:"waitTime"`
	ResponseTime    Distribution `json:"responseTime"`
	MessagesPerChat Distribution `json:"messagesPerChat"`
	Duration        Distribution `json:"duration"`
}

// ChatFilter selects the chats a report counts in a period: started in it,
// in the filter's mailboxes, tags (by slug) and folders. The drill-down
// lists with the same filter, so its lists and the counts agree.
func ChatFilter(p Period, f Filter) query.Node {
	nodes := append([]query.Node{during("createdAt", p)}, f.node(func(t parley.Tag) string { return t.Slug }))
	return query.And{Nodes: nodes}
}

// Chat computes the chat report.
func Chat(ctx context.Context, e Engine, r Request) (*ChatReport, error) {
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*ChatFigures, error) { return chatFigures(ctx, e, r, p) })
	if err != nil {
		return nil, err
	}
	rep := &ChatReport{Current: *cur}
	prev := &ChatFigures{buckets: map[string][]int{}, counts: map[string]int{}}
	if r.Previous != nil {
		prev = previous
		rep.Previous = prev
		rep.Deltas = &ChatDeltas{
			Volume: ChatVolume{
				ChatConversations: Delta(cur.Volume.ChatConversations, prev.Volume.ChatConversations),
				CompletedChats:    Delta(cur.Volume.CompletedChats, prev.Volume.CompletedChats),
				MissedChats:       Delta(cur.Volume.MissedChats, prev.Volume.MissedChats),
				ChatsPerDay:       Delta(cur.Volume.ChatsPerDay, prev.Volume.ChatsPerDay),
			},
			Responses: ChatResponses{
				WaitTime:     Delta(cur.Responses.WaitTime, prev.Responses.WaitTime),
				ResponseTime: Delta(cur.Responses.ResponseTime, prev.Responses.ResponseTime),
			},
			Resolutions: ChatResolutions{
				MessagesPerChat: Delta(cur.Resolutions.MessagesPerChat, prev.Resolutions.MessagesPerChat),
				Duration:        Delta(cur.Resolutions.Duration, prev.Resolutions.Duration),
			},
		}
	}
	dist := map[string]*Distribution{"waitTime": &rep.WaitTime, "responseTime": &rep.ResponseTime,
		"messagesPerChat": &rep.MessagesPerChat, "duration": &rep.Duration}
	for _, name := range Distributions {
		d := dist[name]
		d.Count, d.PreviousCount = cur.counts[name], prev.counts[name]
		d.Ranges = []RangeCount{}
		for i, n := range cur.buckets[name] {
			before := 0
			if p := prev.buckets[name]; i < len(p) {
				before = p[i]
			}
			d.Ranges = append(d.Ranges, RangeCount{ID: i + 1, Count: n, Percent: percent(n, d.Count),
				PreviousCount: before, PreviousPercent: percent(before, d.PreviousCount)})
		}
	}
	return rep, nil
}

// chatFigures asks for every figure of one period: the volume and the
// distributions' buckets in one facet request, the distributions' counts
// and averages in one aggregate of their sums, both at once. (Value
// facets of the four fields gave the same averages, from a row per
// distinct value: on PostgreSQL, thousands of rows for a year of chats.)
func chatFigures(ctx context.Context, e Engine, r Request, p Period) (*ChatFigures, error) {
	req := index.FacetRequest{Kind: index.Chats, Company: r.Company, Filter: ChatFilter(p, r.Filter),
		Ranges: map[string]index.RangeFacet{}, Values: map[string]string{"missed": "missed", "completed": "completed"}}
	sums := index.AggregateRequest{Kind: index.Chats, Company: r.Company, Filter: ChatFilter(p, r.Filter)}
	for _, name := range Distributions {
		field := ChatRanges[name].field(r.Filter.OfficeHours)
		req.Ranges[name] = index.RangeFacet{Field: field, Buckets: ChatRanges[name].Buckets()}
		sums.Sums = append(sums.Sums, field)
	}
	var res index.FacetResult
	var totals index.Group
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { res, err = facets(gctx, e, req); return err })
	g.Go(func() (err error) { totals, err = aggregateOne(gctx, e, sums); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	f := &ChatFigures{StartDate: Date(p.Start), EndDate: Date(p.End), buckets: res.Ranges, counts: map[string]int{}}
	total := float64(res.Total)
	f.Volume = ChatVolume{ChatConversations: total, CompletedChats: float64(res.Values["completed"]["true"]),
		MissedChats: float64(res.Values["missed"]["true"]), ChatsPerDay: round2(total / p.days())}
	avg := map[string]float64{}
	for _, name := range Distributions {
		sum := totals.Sums[ChatRanges[name].field(r.Filter.OfficeHours)]
		f.counts[name] = sum.Count
		if sum.Count > 0 {
			avg[name] = round2(sum.Total / float64(sum.Count))
		}
	}
	f.Responses = ChatResponses{WaitTime: avg["waitTime"], ResponseTime: avg["responseTime"]}
	f.Resolutions = ChatResolutions{MessagesPerChat: avg["messagesPerChat"], Duration: avg["duration"]}
	return f, nil
}

// DrillDown lists the chats counted in one range of a distribution: the
// report's filter ANDed with the range's bucket, newest first, through
// search; the keys are chat ids.
func DrillDown(ctx context.Context, e Engine, r Request, distribution string, rangeID int, page search.Paging) (search.Keys, error) {
	spec := ChatRanges[distribution]
	b := spec.Buckets()[rangeID-1]
	bucket := query.NumberRange{Field: spec.field(r.Filter.OfficeHours), Min: b.Min, Max: b.Max, MinInclusive: true}
	if b.Min == nil && b.Max != nil {
		zero := 0.0
		bucket.Min = &zero // values are never negative; an open lower bound is "has a value"
	}
	return search.List(ctx, e, search.Listing{Kind: index.Chats, Company: r.Company,
		Filter: query.And{Nodes: []query.Node{ChatFilter(r.Current, r.Filter), bucket}},
		Sort:   []index.Sort{{Field: "createdAt", Desc: true}}, Paging: page})
}
