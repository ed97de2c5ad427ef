package reports

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// CompanyFigures are the company's figures of one period.
// RepliesPerDayPerUser is null without a user who replied.
type CompanyFigures struct {
	StartDate            string   `json:"startDate"`
	EndDate              string   `json:"endDate"`
	CustomersHelped      int      `json:"customersHelped"`
	Closed               int      `json:"closed"`
	Resolved             int      `json:"resolved"`
	TotalReplies         int      `json:"totalReplies"`
	TotalUsers           int      `json:"totalUsers"`
	TotalDays            int      `json:"totalDays"`
	RepliesPerDayPerUser *float64 `json:"repliesPerDayPerUser"`
	RepliesPerDay        float64  `json:"repliesPerDay"`
	ResolvedPerDay       float64  `json:"resolvedPerDay"`
	HappinessScore       *float64 `json:"happinessScore"`
}

// CompanyDeltas are the percentage changes of the company's figures.
type CompanyDeltas struct {
	CustomersHelped      float64  `json:"customersHelped"`
	Closed               float64  `json:"closed"`
	Resolved             float64  `json:"resolved"`
	TotalReplies         float64  `json:"totalReplies"`
	TotalUsers           float64  `json:"totalUsers"`
	RepliesPerDayPerUser *float64 `json:"repliesPerDayPerUser"`
	RepliesPerDay        float64  `json:"repliesPerDay"`
	ResolvedPerDay       float64  `json:"resolvedPerDay"`
	HappinessScore       *float64 `json:"happinessScore"`
}

// CompanyUserFigures are one user's figures of a period. HandleTime is
// the average handle time of the user's replies that have one, in seconds
// (null without any).
type CompanyUserFigures struct {
	Replies         int      `json:"replies"`
	CustomersHelped int      `json:"customersHelped"`
	Resolved        int      `json:"resolved"`
	RepliesPerDay   float64  `json:"repliesPerDay"`
	HappinessScore  *float64 `json:"happinessScore"`
	HandleTime      *float64 `json:"handleTime"`
}

// CompanyUser is one user's row. Beside Current and Previous it carries
// what Help Scout's docs show flat in a row: the user's id as a string
// (User), the current period's replies, customers helped, happiness score
// and handle time, and the previous period's, prefixed Previous (null
// without a previous period).
type CompanyUser struct {
	ID       int64               `json:"id"`
	Name     string              `json:"name"`
	Current  CompanyUserFigures  `json:"current"`
	Previous *CompanyUserFigures `json:"previous,omitempty"`

	User                    string   `json:"user"`
	Replies                 int      `json:"replies"`
	CustomersHelped         int      `json:"customersHelped"`
	HappinessScore          *float64 `json:"happinessScore"`
	HandleTime              *float64 `json:"handleTime"`
	PreviousReplies         *int     `json:"previousReplies"`
	PreviousCustomersHelped *int     `json:"previousCustomersHelped"`
	PreviousHappinessScore  *float64 `json:"previousHappinessScore"`
	PreviousHandleTime      *float64 `json:"previousHandleTime"`
}

// newCompanyUser is a user's row of the figures of both periods (then nil
// without a previous period).
func newCompanyUser(id int64, name string, now CompanyUserFigures, then *CompanyUserFigures) CompanyUser {
	row := CompanyUser{ID: id, Name: name, Current: now, Previous: then, User: strconv.FormatInt(id, 10),
		Replies: now.Replies, CustomersHelped: now.CustomersHelped, HappinessScore: now.HappinessScore, HandleTime: now.HandleTime}
	if then != nil {
		row.PreviousReplies, row.PreviousCustomersHelped = &then.Replies, &then.CustomersHelped
		row.PreviousHappinessScore, row.PreviousHandleTime = then.HappinessScore, then.HandleTime
	}
	return row
}

// CompanyReport is the company overall report.
type CompanyReport struct {
	FilterTags []FilterTag     `json:"filterTags"`
	Current    CompanyFigures  `json:"current"`
	Previous   *CompanyFigures `json:"previous,omitempty"`
	Deltas     *CompanyDeltas  `json:"deltas,omitempty"`
	Users      []CompanyUser   `json:"users"`
}

type companyPeriod struct {
	figures CompanyFigures
	users   map[int64]CompanyUserFigures
}

// Company computes the company report; users names the company's users,
// tags are its tags.
func Company(ctx context.Context, e Engine, r Request, users []parley.User, tags []parley.Tag) (*CompanyReport, error) {
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*companyPeriod, error) { return companyFigures(ctx, e, r, p) })
	if err != nil {
		return nil, err
	}
	rep := &CompanyReport{FilterTags: FilterTags(tags), Current: cur.figures, Users: []CompanyUser{}}
	var prev *companyPeriod
	if r.Previous != nil {
		prev = previous
		rep.Previous = &prev.figures
		c, p := cur.figures, prev.figures
		d := func(a, b int) float64 { return Delta(float64(a), float64(b)) }
		rep.Deltas = &CompanyDeltas{CustomersHelped: d(c.CustomersHelped, p.CustomersHelped), Closed: d(c.Closed, p.Closed),
			Resolved: d(c.Resolved, p.Resolved), TotalReplies: d(c.TotalReplies, p.TotalReplies), TotalUsers: d(c.TotalUsers, p.TotalUsers),
			RepliesPerDayPerUser: deltaOf(c.RepliesPerDayPerUser, p.RepliesPerDayPerUser),
			RepliesPerDay:        Delta(c.RepliesPerDay, p.RepliesPerDay), ResolvedPerDay: Delta(c.ResolvedPerDay, p.ResolvedPerDay),
			HappinessScore: deltaOf(c.HappinessScore, p.HappinessScore)}
	}
	var before map[int64]CompanyUserFigures
	if prev != nil {
		before = prev.users
	}
	eachUserRow(users, cur.users, before, prev != nil, func(id int64, name string, now CompanyUserFigures, then *CompanyUserFigures) {
		rep.Users = append(rep.Users, newCompanyUser(id, name, now, then))
	})
	return rep, nil
}

// byUser restricts a filter to one user's messages.
func byUser(filter query.Node, id int64) query.Node {
	return query.And{Nodes: []query.Node{filter, query.EqualID("userId", id)}}
}

// happinessScore is great minus not-good percent of a rating facet.
func happinessScore(ratings map[string]int, total int) *float64 {
	great, notGood := share(ratings["great"], total), share(ratings["not-good"], total)
	if great == nil {
		return nil
	}
	v := *great - *notGood
	return &v
}

func companyFigures(ctx context.Context, e Engine, r Request, p Period) (*companyPeriod, error) {
	replies, err := aggregateOne(ctx, e, index.AggregateRequest{Kind: index.Messages, Company: r.Company, Filter: ReplyFilter(p, r.Filter),
		Distinct: []string{"userId", "customerId"}})
	if err != nil {
		return nil, err
	}
	// Each user's replies, distinct customers and handle times, in one walk.
	byUser, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: r.Company, Filter: ReplyFilter(p, r.Filter),
		GroupBy: []string{"userId"}, Distinct: []string{"customerId"}, Sums: []string{"handleSeconds"}})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	resolved, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: ResolvedFilter(p, r.Filter),
		Values: map[string]string{"users": "resolvedByUserId"}})
	if err != nil {
		return nil, err
	}
	closed, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: ClosedFilter(p, r.Filter)})
	if err != nil {
		return nil, err
	}
	rated, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: RatingFilter(p, r.Filter),
		Values: map[string]string{"rating": "rating"}})
	if err != nil {
		return nil, err
	}
	ratings, err := userRatings(ctx, e, r.Company, RatingFilter(p, r.Filter))
	if err != nil {
		return nil, err
	}
	days := p.days()
	out := &companyPeriod{users: map[int64]CompanyUserFigures{}}
	out.figures = CompanyFigures{StartDate: Date(p.Start), EndDate: Date(p.End), CustomersHelped: replies.Distinct["customerId"],
		Closed: closed.Total, Resolved: resolved.Total, TotalReplies: replies.Count, TotalUsers: replies.Distinct["userId"],
		TotalDays: int(days), RepliesPerDay: float64(replies.Count) / days, ResolvedPerDay: float64(resolved.Total) / days,
		HappinessScore: happinessScore(rated.Values["rating"], rated.Total)}
	if users := replies.Distinct["userId"]; users > 0 {
		perUser := float64(replies.Count) / days / float64(users)
		out.figures.RepliesPerDayPerUser = &perUser
	}
	mine := map[string]index.Group{}
	keys := map[string]bool{}
	for _, g := range byUser.Groups {
		mine[g.Key[0]], keys[g.Key[0]] = g, true
	}
	for key := range resolved.Values["users"] {
		keys[key] = true
	}
	for key := range keys {
		id, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return nil, err
		}
		out.users[id] = CompanyUserFigures{Replies: mine[key].Count, CustomersHelped: mine[key].Distinct["customerId"],
			Resolved: resolved.Values["users"][key], RepliesPerDay: float64(mine[key].Count) / days,
			HappinessScore: happinessScore(ratings[key], total(ratings[key])), HandleTime: meanOfSum(mine[key].Sums["handleSeconds"])}
	}
	return out, nil
}

// userRatings counts the ratings a filter selects per user (by
// index.ValueKey of the id) and rating.
func userRatings(ctx context.Context, e Engine, company int64, filter query.Node) (map[string]map[string]int, error) {
	res, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: company, Filter: filter,
		GroupBy: []string{"userId", "rating"}})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	out := map[string]map[string]int{}
	for _, g := range res.Groups {
		if out[g.Key[0]] == nil {
			out[g.Key[0]] = map[string]int{}
		}
		out[g.Key[0]][g.Key[1]] = g.Count
	}
	return out, nil
}

// total sums counts.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// CustomersPoint is one step of the customers helped series.
type CustomersPoint struct {
	Date      string `json:"date"`
	Customers int    `json:"customers"`
}

// CustomersSeries is the customers helped per step, now and before.
type CustomersSeries struct {
	Current  []CustomersPoint `json:"current"`
	Previous []CustomersPoint `json:"previous,omitempty"`
}

// CustomersHelped counts the customers helped per step of each period.
func CustomersHelped(ctx context.Context, e Engine, r Request, viewBy string) (*CustomersSeries, error) {
	return customersSeries(ctx, e, r, viewBy, nil)
}

// customersSeries counts the customers helped per step of each period, by
// the replies by selects (nil: all).
func customersSeries(ctx context.Context, e Engine, r Request, viewBy string, by query.Node) (*CustomersSeries, error) {
	cur, prev, err := bothPeriods(r, func(p Period) ([]CustomersPoint, error) {
		parts, groups, err := stepGroups(ctx, e, index.AggregateRequest{Kind: index.Messages, Company: r.Company,
			Filter: restrict(ReplyFilter(p, r.Filter), by), By: "createdAt", Distinct: []string{"customerId"}}, p, viewBy)
		if err != nil {
			return nil, err
		}
		var out []CustomersPoint
		for i, s := range parts {
			point := CustomersPoint{Date: Date(s.Start)}
			for _, g := range groups[i] {
				point.Customers += g.Distinct["customerId"]
			}
			out = append(out, point)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return &CustomersSeries{Current: cur, Previous: prev}, nil
}

// CompanyRanges are the company drill-down's ranges; those with buckets
// take a rangeId. resolutionTime is Parley's (the real API's drill-down
// has none): the conversations of a bucket of the productivity report's
// resolution-time distribution.
var CompanyRanges = []string{"replies", "firstReplyResolved", "resolved", "responseTime", "firstResponseTime", "resolutionTime", "handleTime"}

// CompanyRangeIDs is how many range ids a company drill-down range has (0:
// it takes none).
var CompanyRangeIDs = map[string]int{"replies": len(repliesBounds) + 1, "responseTime": len(timeBounds) + 1,
	"firstResponseTime": len(timeBounds) + 1, "resolutionTime": len(timeBounds) + 1, "handleTime": len(timeBounds) + 1}

// inBucket selects the documents whose field is in a bucket.
func inBucket(field string, b index.Bucket) query.Node {
	zero := 0.0
	n := query.NumberRange{Field: field, Min: b.Min, Max: b.Max, MinInclusive: true}
	if n.Min == nil {
		n.Min = &zero // values are never negative; an open lower bound is "has a value"
	}
	return n
}

// CompanyDrillFilter selects the conversations behind one figure of the
// company report: replied to in the period with a number of replies
// (replies), resolved on the first reply, resolved, replied to in the
// period with a response time in a range (responseTime), first responded
// to in the period in a range (firstResponseTime), resolved in the
// period in a range of resolution time (resolutionTime), or replied to in
// the period with an average handle time in a range (handleTime).
func CompanyDrillFilter(r Request, rangeName string, rangeID int) (query.Node, error) {
	rest := r.Filter.node(tagName)
	and := func(nodes ...query.Node) query.Node { return query.And{Nodes: append(nodes, rest)} }
	switch rangeName {
	case "replies":
		return and(during("replyAt", r.Current), inBucket("replies", bucketsOf(repliesBounds)[rangeID-1])), nil
	case "firstReplyResolved":
		return and(during("resolvedAt", r.Current), query.Equal("replies", 1)), nil
	case "resolved":
		return and(during("resolvedAt", r.Current)), nil
	case "responseTime":
		return and(during("replyAt", r.Current), inBucket(timeField("responseSeconds", r.Filter.OfficeHours), bucketsOf(timeBounds)[rangeID-1])), nil
	case "firstResponseTime":
		return and(during("firstResponseAt", r.Current), inBucket(timeField("firstResponseSeconds", r.Filter.OfficeHours), bucketsOf(timeBounds)[rangeID-1])), nil
	case "resolutionTime":
		return and(during("resolvedAt", r.Current), inBucket(timeField("resolutionSeconds", r.Filter.OfficeHours), bucketsOf(timeBounds)[rangeID-1])), nil
	case "handleTime":
		return and(during("replyAt", r.Current), inBucket("handleSeconds", bucketsOf(timeBounds)[rangeID-1])), nil
	}
	return nil, parley.InvalidParameter("range", parley.CodeEnumValue, "must be one of: "+strings.Join(CompanyRanges, ", "), rangeName)
}
