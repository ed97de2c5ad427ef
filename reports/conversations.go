package reports

import (
	"context"
	"sort"
	"strconv"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

// TotalFilter selects the conversations worked on in a period: created,
// written to by the customer, or replied to by a user in it.
func TotalFilter(p Period, f Filter) query.Node {
	return f.inView(query.And{Nodes: append([]query.Node{during("activityAt", p)}, f.node(tagName))})
}

// NewFilter selects the conversations created in a period.
func NewFilter(p Period, f Filter) query.Node {
	return f.inView(query.And{Nodes: append([]query.Node{during("createdAt", p)}, f.node(tagName))})
}

// inView narrows a selection of conversation documents to the filter's
// view, when it has one.
func (f Filter) inView(n query.Node) query.Node {
	if f.View == nil {
		return n
	}
	return query.And{Nodes: []query.Node{n, f.View}}
}

// ConversationsFigures are the volume figures of one period.
type ConversationsFigures struct {
	StartDate            string  `json:"startDate"`
	EndDate              string  `json:"endDate"`
	TotalConversations   int     `json:"totalConversations"`
	NewConversations     int     `json:"newConversations"`
	ConversationsCreated int     `json:"conversationsCreated"`
	Customers            int     `json:"customers"`
	ConversationsPerDay  float64 `json:"conversationsPerDay"`
}

// ConversationsDeltas are the percentage changes of the volume figures.
type ConversationsDeltas struct {
	TotalConversations   float64 `json:"totalConversations"`
	NewConversations     float64 `json:"newConversations"`
	ConversationsCreated float64 `json:"conversationsCreated"`
	Customers            float64 `json:"customers"`
	ConversationsPerDay  float64 `json:"conversationsPerDay"`
}

// FilterTag is a tag a report may be filtered on.
type FilterTag struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// FilterTags lists a company's tags as a report's filterTags: every tag,
// never null.
func FilterTags(tags []parley.Tag) []FilterTag {
	out := make([]FilterTag, 0, len(tags))
	for _, t := range tags {
		out = append(out, FilterTag{ID: t.ID, Name: t.Name})
	}
	return out
}

// BusyTime is the new conversations of one hour of the week.
type BusyTime struct {
	Day   int `json:"day"`
	Hour  int `json:"hour"`
	Count int `json:"count"`
}

// Top is the leading values of a breakdown of the total conversations.
type Top struct {
	Count int       `json:"count"`
	Top   []TopItem `json:"top"`
}

// TopItem is one value: its conversations now and before, their share of
// the total conversations (exact; null over none) and the change of that
// share in percentage points (null when either share is).
type TopItem struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Count           int      `json:"count"`
	PreviousCount   int      `json:"previousCount"`
	Percent         *float64 `json:"percent"`
	PreviousPercent *float64 `json:"previousPercent"`
	DeltaPercent    *float64 `json:"deltaPercent"`
	// MailboxID is a saved reply's mailbox (saved replies only).
	MailboxID *int64 `json:"mailboxId,omitempty"`
}

// TopName names a value of a Top: a customer, a saved reply (with its
// mailbox) or a workflow.
type TopName struct {
	Name      string
	MailboxID *int64
}

// TopNames names the values of the conversations report's tops by id;
// an id a lookup leaves out (deleted since) keeps an empty name.
type TopNames struct {
	Customers    func(ids []int64) (map[int64]TopName, error)
	SavedReplies func(ids []int64) (map[int64]TopName, error)
	Workflows    func(ids []int64) (map[int64]TopName, error)
}

// TopSize is how many values a Top lists.
const TopSize = 10

// ConversationsReport is the conversations overall report.
type ConversationsReport struct {
	FilterTags    []FilterTag           `json:"filterTags"`
	BusiestDay    *BusyTime             `json:"busiestDay"`
	BusyTimeStart *int                  `json:"busyTimeStart"`
	BusyTimeEnd   *int                  `json:"busyTimeEnd"`
	Current       ConversationsFigures  `json:"current"`
	Previous      *ConversationsFigures `json:"previous,omitempty"`
	Deltas        *ConversationsDeltas  `json:"deltas,omitempty"`
	Tags          Top                   `json:"tags"`
	Customers     Top                   `json:"customers"`
	Replies       Top                   `json:"replies"`
	Workflows     Top                   `json:"workflows"`
	CustomFields  CustomFieldsStats     `json:"customFields"`
}

// conversationsPeriod is one period's figures and breakdowns: the
// conversations worked on per tag (by name), customer, saved reply their
// threads were written from and workflow that ran on them (by id).
type conversationsPeriod struct {
	figures                       ConversationsFigures
	tags                          map[string]int
	customers, replies, workflows map[int64]int
}

// Conversations computes the conversations overall report. tags are the
// company's tags; names names the other tops' values; mailboxes are the
// company's, whose dropdown custom fields it summarizes.
func Conversations(ctx context.Context, e Engine, r Request, tags []parley.Tag, names TopNames, mailboxes []parley.Mailbox) (*ConversationsReport, error) {
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*conversationsPeriod, error) {
		return conversationsFigures(ctx, e, r, p)
	})
	if err != nil {
		return nil, err
	}
	rep := &ConversationsReport{Current: cur.figures, FilterTags: FilterTags(tags)}
	prev := &conversationsPeriod{}
	if r.Previous != nil {
		prev = previous
		rep.Previous = &prev.figures
		c, p := cur.figures, prev.figures
		rep.Deltas = &ConversationsDeltas{
			TotalConversations:   Delta(float64(c.TotalConversations), float64(p.TotalConversations)),
			NewConversations:     Delta(float64(c.NewConversations), float64(p.NewConversations)),
			ConversationsCreated: Delta(float64(c.ConversationsCreated), float64(p.ConversationsCreated)),
			Customers:            Delta(float64(c.Customers), float64(p.Customers)),
			ConversationsPerDay:  Delta(c.ConversationsPerDay, p.ConversationsPerDay),
		}
	}
	busy, err := BusyTimes(ctx, e, r)
	if err != nil {
		return nil, err
	}
	rep.BusiestDay, rep.BusyTimeStart, rep.BusyTimeEnd = busiest(busy)

	byName := map[string]parley.Tag{}
	for _, t := range tags {
		byName[t.Name] = t
	}
	var tagItems []TopItem
	for name, n := range cur.tags {
		t := byName[name]
		tagItems = append(tagItems, TopItem{ID: t.ID, Name: name, Count: n, PreviousCount: prev.tags[name]})
	}
	rep.Tags = top(tagItems, cur.figures.TotalConversations, prev.figures.TotalConversations)

	for _, t := range []struct {
		out       *Top
		cur, prev map[int64]int
		names     func([]int64) (map[int64]TopName, error)
	}{
		{&rep.Customers, cur.customers, prev.customers, names.Customers},
		{&rep.Replies, cur.replies, prev.replies, names.SavedReplies},
		{&rep.Workflows, cur.workflows, prev.workflows, names.Workflows},
	} {
		if *t.out, err = namedTop(t.cur, t.prev, cur.figures.TotalConversations, prev.figures.TotalConversations, t.names); err != nil {
			return nil, err
		}
	}
	if rep.CustomFields, err = customFields(ctx, e, r, mailboxes); err != nil {
		return nil, err
	}
	return rep, nil
}

// namedTop is the Top of values by id, named by names.
func namedTop(cur, prev map[int64]int, total, previousTotal int, names func([]int64) (map[int64]TopName, error)) (Top, error) {
	var items []TopItem
	for id, n := range cur {
		items = append(items, TopItem{ID: id, Count: n, PreviousCount: prev[id]})
	}
	out := top(items, total, previousTotal)
	var ids []int64
	for _, it := range out.Top {
		ids = append(ids, it.ID)
	}
	named, err := names(ids)
	if err != nil {
		return out, err
	}
	for i := range out.Top {
		n := named[out.Top[i].ID]
		out.Top[i].Name, out.Top[i].MailboxID = n.Name, n.MailboxID
	}
	return out, nil
}

// top keeps the TopSize items with the most conversations (ties by id,
// then name), with their shares; Count is how many values there were.
func top(items []TopItem, total, previousTotal int) Top {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Name < b.Name
	})
	out := Top{Count: len(items), Top: []TopItem{}}
	for i, it := range items {
		if i == TopSize {
			break
		}
		it.Percent, it.PreviousPercent = share(it.Count, total), share(it.PreviousCount, previousTotal)
		if it.Percent != nil && it.PreviousPercent != nil {
			change := *it.Percent - *it.PreviousPercent
			it.DeltaPercent = &change
		}
		out.Top = append(out.Top, it)
	}
	return out
}

func conversationsFigures(ctx context.Context, e Engine, r Request, p Period) (*conversationsPeriod, error) {
	total, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: TotalFilter(p, r.Filter),
		Values: map[string]string{"tags": "tag", "customers": "primaryCustomerId", "replies": "savedReplyId", "workflows": "workflowId"}})
	if err != nil {
		return nil, err
	}
	created, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: NewFilter(p, r.Filter)})
	if err != nil {
		return nil, err
	}
	out := &conversationsPeriod{tags: total.Values["tags"]}
	for _, by := range []struct {
		facet string
		out   *map[int64]int
	}{{"customers", &out.customers}, {"replies", &out.replies}, {"workflows", &out.workflows}} {
		*by.out = map[int64]int{}
		for key, n := range total.Values[by.facet] {
			id, err := strconv.ParseInt(key, 10, 64)
			if err != nil {
				return nil, err
			}
			(*by.out)[id] = n
		}
	}
	out.figures = ConversationsFigures{StartDate: Date(p.Start), EndDate: Date(p.End),
		TotalConversations: total.Total, NewConversations: created.Total,
		ConversationsCreated: created.Total,
		Customers:            len(total.Values["customers"]),
		ConversationsPerDay:  float64(total.Total) / p.days()}
	return out, nil
}

// BusyTimes counts the conversations created in the current period per
// hour of the week (Monday 1 to Sunday 7, hours 0-23, in the company's
// report time zone): all 168 cells, in order.
func BusyTimes(ctx context.Context, e Engine, r Request) ([]BusyTime, error) {
	res, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: NewFilter(r.Current, r.Filter),
		Values: map[string]string{"hours": "createdWeekHour"}})
	if err != nil {
		return nil, err
	}
	out := make([]BusyTime, 0, 7*24)
	for day := 1; day <= 7; day++ {
		for hour := 0; hour < 24; hour++ {
			out = append(out, BusyTime{Day: day, Hour: hour, Count: res.Values["hours"][index.WeekHourKey(day, hour)]})
		}
	}
	return out, nil
}

// busiest finds the busiest hour of the week and the busiest two
// consecutive hours of the day (summed over the days); nil without any
// conversation. Ties go to the earliest.
func busiest(cells []BusyTime) (day *BusyTime, start, end *int) {
	var hours [24]int
	for i := range cells {
		c := cells[i]
		hours[c.Hour] += c.Count
		if c.Count > 0 && (day == nil || c.Count > day.Count) {
			day = &c
		}
	}
	if day == nil {
		return nil, nil, nil
	}
	best := 0
	for h := 1; h < 23; h++ {
		if hours[h]+hours[h+1] > hours[best]+hours[best+1] {
			best = h
		}
	}
	last := best + 2
	return day, &best, &last
}

// NewConversations is the series of conversations created.
func NewConversations(ctx context.Context, e Engine, r Request, viewBy string) (*Series, error) {
	return countSeries(ctx, e, r, viewBy, index.Conversations, "createdAt", func(p Period) query.Node { return NewFilter(p, r.Filter) })
}

// ReceivedMessages is the series of customer messages received.
func ReceivedMessages(ctx context.Context, e Engine, r Request, viewBy string) (*Series, error) {
	return countSeries(ctx, e, r, viewBy, index.Messages, "createdAt", func(p Period) query.Node { return MessageFilter("customer", p, r.Filter) })
}

// ChannelPoint is one bucket of the volume by channel: new conversations
// of each type. Date is Start under the name Help Scout's docs give it.
type ChannelPoint struct {
	Start string `json:"start"`
	Date  string `json:"date"`
	Email int    `json:"email"`
	Chat  int    `json:"chat"`
	Phone int    `json:"phone"`
}

// ChannelSeries is the volume by channel of the current period and of the
// previous one when given.
type ChannelSeries struct {
	Current  []ChannelPoint `json:"current"`
	Previous []ChannelPoint `json:"previous,omitempty"`
}

// VolumeByChannel is the series of conversations created, per type.
func VolumeByChannel(ctx context.Context, e Engine, r Request, viewBy string) (*ChannelSeries, error) {
	cur, prev, err := bothPeriods(r, func(p Period) ([]ChannelPoint, error) {
		parts, groups, err := stepGroups(ctx, e, index.AggregateRequest{Kind: index.Conversations, Company: r.Company,
			Filter: NewFilter(p, r.Filter), By: "createdAt", GroupBy: []string{"type"}}, p, viewBy)
		if err != nil {
			return nil, err
		}
		var out []ChannelPoint
		for i, s := range parts {
			point := ChannelPoint{Start: Date(s.Start), Date: Date(s.Start)}
			for _, g := range groups[i] {
				switch parley.ConversationType(g.Key[0]) {
				case parley.TypeEmail:
					point.Email = g.Count
				case parley.TypeChat:
					point.Chat = g.Count
				case parley.TypePhone:
					point.Phone = g.Count
				}
			}
			out = append(out, point)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return &ChannelSeries{Current: cur, Previous: prev}, nil
}

// ConversationList lists, newest first, the conversations a filter selects
// (a drill-down's page), through search.
func ConversationList(ctx context.Context, e Engine, r Request, filter query.Node, page search.Paging) (search.Keys, error) {
	return search.List(ctx, e, search.Listing{Kind: index.Conversations, Company: r.Company, Filter: filter,
		Sort: []index.Sort{{Field: "createdAt", Desc: true}}, Paging: page})
}

// DrillFields are the fields drill-down's fields: a tag, a saved reply, a
// workflow or a customer, by id.
var DrillFields = []string{"tagid", "replyid", "workflowid", "customerid"}

// drillFieldIDs are the index fields holding the ids of DrillFields; tags
// are indexed by name.
var drillFieldIDs = map[string]string{"replyid": "savedReplyId", "workflowid": "workflowId", "customerid": "primaryCustomerId"}

// FieldFilter selects the conversations worked on in the current period
// that carry a tag (field tagid), have a thread written from a saved
// reply (replyid), were touched by a workflow (workflowid) or belong to a
// customer (customerid, as the report's top customers count them). id is
// the saved reply's, workflow's or customer's; tag is the tag of tagid.
func FieldFilter(r Request, field string, id int64, tag parley.Tag) query.Node {
	var match query.Node = query.EqualID(drillFieldIDs[field], id)
	if field == "tagid" {
		match = query.Keyword{Field: "tag", Value: tag.Name}
	}
	return query.And{Nodes: []query.Node{TotalFilter(r.Current, r.Filter), match}}
}
