package reports

import (
	"context"
	"fmt"
	"strconv"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// PhoneFigures are the phone figures of one period: phone conversations
// created, phone calls (phone threads) logged, and distinct customers
// called.
type PhoneFigures struct {
	StartDate          string `json:"startDate,omitempty"`
	EndDate            string `json:"endDate,omitempty"`
	PhoneConversations int    `json:"phoneConversations"`
	PhoneCallsCreated  int    `json:"phoneCallsCreated"`
	Customers          int    `json:"customers"`
}

// PhoneDeltas are the percentage changes of the phone figures.
type PhoneDeltas struct {
	NewConversations  float64 `json:"newConversations"`
	PhoneCallsCreated float64 `json:"phoneCallsCreated"`
	Customers         float64 `json:"customers"`
}

// PhoneUser is one user's row.
type PhoneUser struct {
	ID       int64         `json:"id"`
	Name     string        `json:"name"`
	Current  PhoneFigures  `json:"current"`
	Previous *PhoneFigures `json:"previous,omitempty"`
}

// PhoneReport is Help Scout's phone report.
type PhoneReport struct {
	Current  PhoneFigures  `json:"current"`
	Previous *PhoneFigures `json:"previous,omitempty"`
	Deltas   *PhoneDeltas  `json:"deltas,omitempty"`
	Users    []PhoneUser   `json:"users"`
}

// phonePeriod is the figures of a period, total and per user.
type phonePeriod struct {
	total PhoneFigures
	users map[int64]PhoneFigures
}

// Phone computes the phone report; users names the users of the company.
func Phone(ctx context.Context, e Engine, r Request, users []parley.User) (*PhoneReport, error) {
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*phonePeriod, error) { return phoneFigures(ctx, e, r, p) })
	if err != nil {
		return nil, err
	}
	rep := &PhoneReport{Current: cur.total, Users: []PhoneUser{}}
	var prev *phonePeriod
	if r.Previous != nil {
		prev = previous
		rep.Previous = &prev.total
		rep.Deltas = &PhoneDeltas{
			NewConversations:  Delta(float64(cur.total.PhoneConversations), float64(prev.total.PhoneConversations)),
			PhoneCallsCreated: Delta(float64(cur.total.PhoneCallsCreated), float64(prev.total.PhoneCallsCreated)),
			Customers:         Delta(float64(cur.total.Customers), float64(prev.total.Customers)),
		}
	}
	// One row per user with phone activity in either period.
	var before map[int64]PhoneFigures
	if prev != nil {
		before = prev.users
	}
	eachUserRow(users, cur.users, before, prev != nil, func(id int64, name string, now PhoneFigures, then *PhoneFigures) {
		rep.Users = append(rep.Users, PhoneUser{ID: id, Name: name, Current: now, Previous: then})
	})
	return rep, nil
}

// PhoneConversationFilter selects phone conversations created in a period
// (deleted ones are not in the index).
func PhoneConversationFilter(p Period, f Filter) query.Node {
	nodes := []query.Node{
		query.Keyword{Field: "type", Value: string(parley.TypePhone)},
		during("createdAt", p),
	}
	return query.And{Nodes: append(nodes, f.node(func(t parley.Tag) string { return t.Name }))}
}

// CallFilter selects phone calls logged in a period.
func CallFilter(p Period, f Filter) query.Node {
	nodes := append([]query.Node{during("createdAt", p)}, f.node(func(t parley.Tag) string { return t.Name }))
	return query.And{Nodes: nodes}
}

func phoneFigures(ctx context.Context, e Engine, r Request, p Period) (*phonePeriod, error) {
	convs, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company,
		Filter: PhoneConversationFilter(p, r.Filter), Values: map[string]string{"users": "createdByUserId"}})
	if err != nil {
		return nil, err
	}
	calls, err := facets(ctx, e, index.FacetRequest{Kind: index.Calls, Company: r.Company, Filter: CallFilter(p, r.Filter),
		Values: map[string]string{"users": "userId", "customers": "customerId"}})
	if err != nil {
		return nil, err
	}
	out := &phonePeriod{users: map[int64]PhoneFigures{}}
	out.total = PhoneFigures{StartDate: Date(p.Start), EndDate: Date(p.End), PhoneConversations: convs.Total,
		PhoneCallsCreated: calls.Total, Customers: len(calls.Values["customers"])}
	for key, n := range convs.Values["users"] {
		id, _ := strconv.ParseInt(key, 10, 64)
		f := out.users[id]
		f.PhoneConversations = n
		out.users[id] = f
	}
	// Distinct customers of each user's calls, in one walk.
	mine, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Calls, Company: r.Company, Filter: CallFilter(p, r.Filter),
		GroupBy: []string{"userId"}, Distinct: []string{"customerId"}})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	customers := map[string]int{}
	for _, g := range mine.Groups {
		customers[g.Key[0]] = g.Distinct["customerId"]
	}
	for key, n := range calls.Values["users"] {
		id, _ := strconv.ParseInt(key, 10, 64)
		f := out.users[id]
		f.PhoneCallsCreated, f.Customers = n, customers[key]
		out.users[id] = f
	}
	return out, nil
}
