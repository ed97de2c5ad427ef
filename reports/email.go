package reports

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
)

// EmailVolume counts the e-mail conversations and messages of a period:
// EmailsCreated is the conversations report's conversationsCreated (the
// conversations created in the period, as NewConversations).
type EmailVolume struct {
	EmailConversations int `json:"emailConversations"`
	EmailsCreated      int `json:"emailsCreated"`
	NewConversations   int `json:"newConversations"`
	MessagesReceived   int `json:"messagesReceived"`
	RepliesSent        int `json:"repliesSent"`
	CustomersHelped    int `json:"customersHelped"`
}

// EmailResponses are the average response and first response times, in
// seconds; null over nothing.
type EmailResponses struct {
	ResponseTime      *float64 `json:"responseTime"`
	FirstResponseTime *float64 `json:"firstResponseTime"`
}

// EmailResolutions are the resolution figures, and the handle time.
type EmailResolutions struct {
	Resolved                    int      `json:"resolved"`
	ResolutionTime              *float64 `json:"resolutionTime"`
	RepliesToResolve            *float64 `json:"repliesToResolve"`
	ResolvedOnFirstReply        int      `json:"resolvedOnFirstReply"`
	PercentResolvedOnFirstReply *float64 `json:"percentResolvedOnFirstReply"`
	Closed                      int      `json:"closed"`
	HandleTime                  *float64 `json:"handleTime"`
}

// EmailFigures are the e-mail figures of one period.
type EmailFigures struct {
	StartDate    string           `json:"startDate"`
	EndDate      string           `json:"endDate"`
	Volume       EmailVolume      `json:"volume"`
	Responses    EmailResponses   `json:"responses"`
	Resolutions  EmailResolutions `json:"resolutions"`
	productivity *ProductivityFigures
}

// EmailDeltas are the percentage changes of the e-mail figures (null
// when either figure is).
type EmailDeltas struct {
	Volume      map[string]float64  `json:"volume"`
	Responses   map[string]*float64 `json:"responses"`
	Resolutions map[string]*float64 `json:"resolutions"`
}

// EmailReport is the e-mail report: the chat report's layout over e-mail
// conversations, with the productivity figures' definitions.
type EmailReport struct {
	FilterTags        []FilterTag   `json:"filterTags"`
	Current           EmailFigures  `json:"current"`
	Previous          *EmailFigures `json:"previous,omitempty"`
	Deltas            *EmailDeltas  `json:"deltas,omitempty"`
	ResponseTime      Shares        `json:"responseTime"`
	FirstResponseTime Shares        `json:"firstResponseTime"`
	ResolutionTime    Shares        `json:"resolutionTime"`
	RepliesToResolve  Shares        `json:"repliesToResolve"`
	HandleTime        Shares        `json:"handleTime"`
}

// Email computes the e-mail report: every figure over e-mail
// conversations only; tags are the company's.
func Email(ctx context.Context, e Engine, r Request, tags []parley.Tag) (*EmailReport, error) {
	r.Filter.Types = []string{string(parley.TypeEmail)}
	cur, previous, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*EmailFigures, error) { return emailFigures(ctx, e, r, p) })
	if err != nil {
		return nil, err
	}
	rep := &EmailReport{FilterTags: FilterTags(tags), Current: *cur}
	prev := &EmailFigures{productivity: &ProductivityFigures{}}
	if r.Previous != nil {
		prev = previous
		rep.Previous = prev
		c, p := cur, prev
		d := func(a, b int) float64 { return Delta(float64(a), float64(b)) }
		n := func(a, b int) *float64 { v := d(a, b); return &v }
		rep.Deltas = &EmailDeltas{
			Volume: map[string]float64{
				"emailConversations": d(c.Volume.EmailConversations, p.Volume.EmailConversations),
				"emailsCreated":      d(c.Volume.EmailsCreated, p.Volume.EmailsCreated),
				"newConversations":   d(c.Volume.NewConversations, p.Volume.NewConversations),
				"messagesReceived":   d(c.Volume.MessagesReceived, p.Volume.MessagesReceived),
				"repliesSent":        d(c.Volume.RepliesSent, p.Volume.RepliesSent),
				"customersHelped":    d(c.Volume.CustomersHelped, p.Volume.CustomersHelped),
			},
			Responses: map[string]*float64{
				"responseTime":      deltaOf(c.Responses.ResponseTime, p.Responses.ResponseTime),
				"firstResponseTime": deltaOf(c.Responses.FirstResponseTime, p.Responses.FirstResponseTime),
			},
			Resolutions: map[string]*float64{
				"resolved":             n(c.Resolutions.Resolved, p.Resolutions.Resolved),
				"resolutionTime":       deltaOf(c.Resolutions.ResolutionTime, p.Resolutions.ResolutionTime),
				"repliesToResolve":     deltaOf(c.Resolutions.RepliesToResolve, p.Resolutions.RepliesToResolve),
				"resolvedOnFirstReply": n(c.Resolutions.ResolvedOnFirstReply, p.Resolutions.ResolvedOnFirstReply),
				"percentResolvedOnFirstReply": deltaOf(c.Resolutions.PercentResolvedOnFirstReply,
					p.Resolutions.PercentResolvedOnFirstReply),
				"closed":     n(c.Resolutions.Closed, p.Resolutions.Closed),
				"handleTime": deltaOf(c.Resolutions.HandleTime, p.Resolutions.HandleTime),
			},
		}
	}
	cp, pp := cur.productivity, prev.productivity
	for name, out := range map[string]*Shares{"responseTime": &rep.ResponseTime, "firstResponseTime": &rep.FirstResponseTime,
		"resolutionTime": &rep.ResolutionTime, "repliesToResolve": &rep.RepliesToResolve, "handleTime": &rep.HandleTime} {
		*out = shares(cp.dist[name], cp.distCount[name], pp.dist[name], pp.distCount[name])
	}
	return rep, nil
}

func emailFigures(ctx context.Context, e Engine, r Request, p Period) (*EmailFigures, error) {
	prod, err := productivityFigures(ctx, e, r, p)
	if err != nil {
		return nil, err
	}
	total, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: TotalFilter(p, r.Filter)})
	if err != nil {
		return nil, err
	}
	created, err := facets(ctx, e, index.FacetRequest{Kind: index.Conversations, Company: r.Company, Filter: NewFilter(p, r.Filter)})
	if err != nil {
		return nil, err
	}
	received, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: MessageFilter("customer", p, r.Filter)})
	if err != nil {
		return nil, err
	}
	helped, err := customersHelped(ctx, e, r, p, nil)
	if err != nil {
		return nil, err
	}
	return &EmailFigures{StartDate: Date(p.Start), EndDate: Date(p.End), productivity: prod,
		Volume: EmailVolume{EmailConversations: total.Total, EmailsCreated: created.Total, NewConversations: created.Total,
			MessagesReceived: received.Total, RepliesSent: prod.RepliesSent, CustomersHelped: helped},
		Responses: EmailResponses{ResponseTime: prod.ResponseTime, FirstResponseTime: prod.FirstResponseTime},
		Resolutions: EmailResolutions{Resolved: prod.Resolved, ResolutionTime: prod.ResolutionTime, RepliesToResolve: prod.RepliesToResolve,
			ResolvedOnFirstReply: prod.ResolvedOnFirstReply, PercentResolvedOnFirstReply: prod.PercentResolvedOnFirstReply,
			Closed: prod.Closed, HandleTime: prod.HandleTime}}, nil
}
