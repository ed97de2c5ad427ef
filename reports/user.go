package reports

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
	"golang.org/x/sync/errgroup"
)

// Subject is whom a user report is about: a user, or a team whose figures
// are its members' together (a conversation two members replied to counts
// once, as for one user).
type Subject struct {
	ID        int64
	Type      parley.PartyType // PartyUser or PartyTeam
	Name      string
	PhotoURL  string
	CreatedAt time.Time
	Members   []int64 // the user alone, or the team's members
}

// UserSubject is a user report's subject for a user.
func UserSubject(u *parley.User) Subject {
	return Subject{ID: u.ID, Type: parley.PartyUser, Name: u.Name(), PhotoURL: u.PhotoURL, CreatedAt: u.CreatedAt, Members: []int64{u.ID}}
}

// TeamSubject is a user report's subject for a team.
func TeamSubject(t *parley.Team) Subject {
	return Subject{ID: t.ID, Type: parley.PartyTeam, Name: t.Name, CreatedAt: t.CreatedAt, Members: t.MemberIDs}
}

// by selects the documents whose user field names one of the members; a
// team without members selects none.
func (s Subject) by(field string) query.Node { return query.AnyID(field, s.Members) }

// and is the conjunction of nodes.
func and(nodes ...query.Node) query.Node { return query.And{Nodes: nodes} }

// UserSummary introduces the report's user or team.
type UserSummary struct {
	ID                   int64            `json:"id"`
	Type                 parley.PartyType `json:"type"`
	Name                 string           `json:"name"`
	HasPhoto             bool             `json:"hasPhoto"`
	PhotoURL             string           `json:"photoUrl"`
	CreatedAt            string           `json:"createdAt"`
	TotalCustomersHelped int              `json:"totalCustomersHelped"`
}

// UserFigures are a user's (or a team's) figures of one period; times in
// seconds, averages exact and null over nothing.
type UserFigures struct {
	StartDate                   string   `json:"startDate"`
	EndDate                     string   `json:"endDate"`
	TotalDays                   int      `json:"totalDays"`
	TotalConversations          int      `json:"totalConversations"`
	ConversationsPerDay         float64  `json:"conversationsPerDay"`
	ConversationsCreated        int      `json:"conversationsCreated"`
	CustomersHelped             int      `json:"customersHelped"`
	TotalReplies                int      `json:"totalReplies"`
	RepliesPerDay               float64  `json:"repliesPerDay"`
	BusiestDay                  *int     `json:"busiestDay"`
	ResponseTime                *float64 `json:"responseTime"`
	Resolved                    int      `json:"resolved"`
	ResolutionTime              *float64 `json:"resolutionTime"`
	RepliesToResolve            *float64 `json:"repliesToResolve"`
	ResolvedOnFirstReply        int      `json:"resolvedOnFirstReply"`
	PercentResolvedOnFirstReply *float64 `json:"percentResolvedOnFirstReply"`
	Closed                      int      `json:"closed"`
	HappinessScore              *float64 `json:"happinessScore"`
	HandleTime                  *float64 `json:"handleTime"`
}

// UserDeltas are the percentage changes of the user figures; null when
// either figure is.
type UserDeltas struct {
	TotalConversations          float64  `json:"totalConversations"`
	ConversationsPerDay         float64  `json:"conversationsPerDay"`
	ConversationsCreated        float64  `json:"conversationsCreated"`
	CustomersHelped             float64  `json:"customersHelped"`
	TotalReplies                float64  `json:"totalReplies"`
	RepliesPerDay               float64  `json:"repliesPerDay"`
	ResponseTime                *float64 `json:"responseTime"`
	Resolved                    float64  `json:"resolved"`
	ResolutionTime              *float64 `json:"resolutionTime"`
	RepliesToResolve            *float64 `json:"repliesToResolve"`
	ResolvedOnFirstReply        float64  `json:"resolvedOnFirstReply"`
	PercentResolvedOnFirstReply *float64 `json:"percentResolvedOnFirstReply"`
	Closed                      float64  `json:"closed"`
	HappinessScore              *float64 `json:"happinessScore"`
	HandleTime                  *float64 `json:"handleTime"`
}

// UserReport is the user (or team) overall report.
type UserReport struct {
	FilterTags []FilterTag  `json:"filterTags"`
	User       UserSummary  `json:"user"`
	Current    UserFigures  `json:"current"`
	Previous   *UserFigures `json:"previous,omitempty"`
	Deltas     *UserDeltas  `json:"deltas,omitempty"`
}

// User computes the user report of a subject; tags are the company's.
func User(ctx context.Context, e Engine, r Request, s Subject, tags []parley.Tag) (*UserReport, error) {
	// Customers helped ever, whatever the request's filter, but in the
	// caller's mailboxes only; found while the periods' figures are.
	var helped index.Group
	var cur, prev *UserFigures
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		helped, err = aggregateOne(gctx, e, index.AggregateRequest{Kind: index.Messages, Company: r.Company,
			Filter:   and(query.Keyword{Field: "from", Value: "user"}, s.by("userId"), Filter{Visible: r.Filter.Visible}.node(tagName)),
			Distinct: []string{"customerId"}})
		return err
	})
	g.Go(func() (err error) {
		cur, prev, err = bothFigures(gctx, r, func(ctx context.Context, p Period) (*UserFigures, error) { return userFigures(ctx, e, r, s, p) })
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep := &UserReport{FilterTags: FilterTags(tags), User: UserSummary{ID: s.ID, Type: s.Type, Name: s.Name, HasPhoto: s.PhotoURL != "",
		PhotoURL: s.PhotoURL, CreatedAt: Date(s.CreatedAt), TotalCustomersHelped: helped.Distinct["customerId"]}}
	rep.Current = *cur
	if prev == nil {
		return rep, nil
	}
	rep.Previous = prev
	d := func(a, b int) float64 { return Delta(float64(a), float64(b)) }
	rep.Deltas = &UserDeltas{
		TotalConversations: d(cur.TotalConversations, prev.TotalConversations), ConversationsPerDay: Delta(cur.ConversationsPerDay, prev.ConversationsPerDay),
		ConversationsCreated: d(cur.ConversationsCreated, prev.ConversationsCreated), CustomersHelped: d(cur.CustomersHelped, prev.CustomersHelped),
		TotalReplies: d(cur.TotalReplies, prev.TotalReplies), RepliesPerDay: Delta(cur.RepliesPerDay, prev.RepliesPerDay),
		ResponseTime: deltaOf(cur.ResponseTime, prev.ResponseTime), Resolved: d(cur.Resolved, prev.Resolved),
		ResolutionTime: deltaOf(cur.ResolutionTime, prev.ResolutionTime), RepliesToResolve: deltaOf(cur.RepliesToResolve, prev.RepliesToResolve),
		ResolvedOnFirstReply:        d(cur.ResolvedOnFirstReply, prev.ResolvedOnFirstReply),
		PercentResolvedOnFirstReply: deltaOf(cur.PercentResolvedOnFirstReply, prev.PercentResolvedOnFirstReply),
		Closed:                      d(cur.Closed, prev.Closed), HappinessScore: deltaOf(cur.HappinessScore, prev.HappinessScore),
		HandleTime: deltaOf(cur.HandleTime, prev.HandleTime),
	}
	return rep, nil
}

// userFigures asks the engine for one period's figures: the subject's
// replies (one facet walk: their busiest weekday needs per-value counts,
// so an aggregate would add a walk), the conversations it resolved,
// closed and created, and the ratings of its replies.
func userFigures(ctx context.Context, e Engine, r Request, s Subject, p Period) (*UserFigures, error) {
	response := timeField("responseSeconds", r.Filter.OfficeHours)
	replies, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: and(ReplyFilter(p, r.Filter), s.by("userId")),
		Values: map[string]string{"conversations": "conversationId", "customers": "customerId", "time": response, "hours": "createdWeekHour",
			"handle": "handleSeconds"}})
	if err != nil {
		return nil, err
	}
	resolution := timeField("resolutionSeconds", r.Filter.OfficeHours)
	resolved, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company,
		Filter: and(ResolvedFilter(p, r.Filter), s.by("resolvedByUserId")), Values: map[string]string{"time": resolution, "replies": "replies"}})
	if err != nil {
		return nil, err
	}
	closed, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: and(ClosedFilter(p, r.Filter), s.by("closedByUserId"))})
	if err != nil {
		return nil, err
	}
	created, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: and(NewFilter(p, r.Filter), s.by("createdByUserId"))})
	if err != nil {
		return nil, err
	}
	rated, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: and(RatingFilter(p, r.Filter), s.by("userId")),
		Values: map[string]string{"rating": "rating"}})
	if err != nil {
		return nil, err
	}
	days := p.days()
	f := &UserFigures{StartDate: Date(p.Start), EndDate: Date(p.End), TotalDays: int(days),
		TotalConversations: len(replies.Values["conversations"]), ConversationsCreated: created.Total,
		CustomersHelped: len(replies.Values["customers"]), TotalReplies: replies.Total, Resolved: resolved.Total,
		ResolvedOnFirstReply: resolved.Values["replies"]["1"], Closed: closed.Total,
		HappinessScore: happinessScore(rated.Values["rating"], rated.Total)}
	f.ConversationsPerDay, f.RepliesPerDay = float64(f.TotalConversations)/days, float64(f.TotalReplies)/days
	if f.BusiestDay, err = busiestWeekday(replies.Values["hours"]); err != nil {
		return nil, err
	}
	if f.ResponseTime, _, err = meanOf(replies.Values["time"]); err != nil {
		return nil, err
	}
	if f.HandleTime, _, err = meanOf(replies.Values["handle"]); err != nil {
		return nil, err
	}
	if f.ResolutionTime, _, err = meanOf(resolved.Values["time"]); err != nil {
		return nil, err
	}
	if f.RepliesToResolve, _, err = meanOf(resolved.Values["replies"]); err != nil {
		return nil, err
	}
	f.PercentResolvedOnFirstReply = share(f.ResolvedOnFirstReply, f.Resolved)
	return f, nil
}

// aggregateOne is the one group of an aggregate neither bucketed nor
// grouped: zeros when nothing matches.
func aggregateOne(ctx context.Context, e Engine, r index.AggregateRequest) (index.Group, error) {
	res, err := e.Aggregate(ctx, r)
	if err != nil {
		return index.Group{}, fmt.Errorf("reports: %w", err)
	}
	if len(res.Groups) == 0 {
		return index.Group{}, nil
	}
	return res.Groups[0], nil
}

// busiestWeekday is the day of the week (Monday 1 to Sunday 7) with the
// most documents of a createdWeekHour facet; ties go to the earliest day,
// nil without any.
func busiestWeekday(hours map[string]int) (*int, error) {
	var perDay [8]int
	for key, n := range hours {
		day, _, _ := strings.Cut(key, "-")
		d, err := strconv.Atoi(day)
		if err != nil || d < 1 || d > 7 {
			return nil, fmt.Errorf("reports: %q is not an hour of the week", key)
		}
		perDay[d] += n
	}
	var best *int
	for d := 1; d <= 7; d++ {
		if perDay[d] > 0 && (best == nil || perDay[d] > perDay[*best]) {
			day := d
			best = &day
		}
	}
	return best, nil
}

// UserCustomersHelped counts the customers the subject helped per step of
// each period.
func UserCustomersHelped(ctx context.Context, e Engine, r Request, s Subject, viewBy string) (*CustomersSeries, error) {
	return customersSeries(ctx, e, r, viewBy, s.by("userId"))
}

// RepliesPoint is one step of the replies series.
type RepliesPoint struct {
	Date    string `json:"date"`
	Replies int    `json:"replies"`
}

// RepliesSeries is the replies sent per step, now and before.
type RepliesSeries struct {
	Current  []RepliesPoint `json:"current"`
	Previous []RepliesPoint `json:"previous,omitempty"`
}

// UserReplies counts the replies the subject sent per step of each period.
func UserReplies(ctx context.Context, e Engine, r Request, s Subject, viewBy string) (*RepliesSeries, error) {
	series, err := countSeries(ctx, e, r, viewBy, index.Messages, "createdAt", func(p Period) query.Node { return and(ReplyFilter(p, r.Filter), s.by("userId")) })
	if err != nil {
		return nil, err
	}
	point := func(p Point) RepliesPoint { return RepliesPoint{Date: p.Start, Replies: p.Count} }
	return &RepliesSeries{Current: relabel(series.Current, point), Previous: relabel(series.Previous, point)}, nil
}

// ResolvedPoint is one step of the resolutions series.
type ResolvedPoint struct {
	Date     string `json:"date"`
	Resolved int    `json:"resolved"`
}

// ResolutionsSeries is the conversations resolved per step, now and before.
type ResolutionsSeries struct {
	Current  []ResolvedPoint `json:"current"`
	Previous []ResolvedPoint `json:"previous,omitempty"`
}

// UserResolutions counts, per step of each period, the conversations
// resolved that the subject closed.
func UserResolutions(ctx context.Context, e Engine, r Request, s Subject, viewBy string) (*ResolutionsSeries, error) {
	series, err := countSeries(ctx, e, r, viewBy, index.Conversations, "resolvedAt",
		func(p Period) query.Node { return and(ResolvedFilter(p, r.Filter), s.by("resolvedByUserId")) })
	if err != nil {
		return nil, err
	}
	point := func(p Point) ResolvedPoint { return ResolvedPoint{Date: p.Start, Resolved: p.Count} }
	return &ResolutionsSeries{Current: relabel(series.Current, point), Previous: relabel(series.Previous, point)}, nil
}

// relabel renames the points of a count series; nil stays nil (no
// previous period).
func relabel[T any](points []Point, point func(Point) T) []T {
	if points == nil {
		return nil
	}
	out := make([]T, len(points))
	for i, p := range points {
		out[i] = point(p)
	}
	return out
}

// UserHappinessReport is the happiness report of a subject, with the
// company's tags.
type UserHappinessReport struct {
	FilterTags []FilterTag `json:"filterTags"`
	HappinessReport
}

// UserHappiness computes the happiness report of the ratings of the
// subject's replies (totalCustomers: the customers it helped, and those
// who rated its replies); tags are the company's.
func UserHappiness(ctx context.Context, e Engine, r Request, s Subject, tags []parley.Tag) (*UserHappinessReport, error) {
	rep, err := happiness(ctx, e, r, s.by("userId"))
	if err != nil {
		return nil, err
	}
	return &UserHappinessReport{FilterTags: FilterTags(tags), HappinessReport: *rep}, nil
}

// UserRatingsList lists the ratings UserHappiness counts, as RatingsList.
func UserRatingsList(ctx context.Context, e Engine, r Request, s Subject, rating, sortField string, desc bool, page search.Paging) (search.Keys, error) {
	return ratingsList(ctx, e, r, s.by("userId"), rating, sortField, desc, page)
}
