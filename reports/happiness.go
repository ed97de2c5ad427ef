package reports

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

// HappinessFigures are the ratings customers gave the replies of a period:
// counts per rating, each rating's share of them in percent, the
// happiness score (great minus not-good percent), the customers of the
// period (TotalCustomers: those helped in it, and those who rated in it)
// and the share of them who rated. Percentages are exact, and null when
// there is nothing to divide by.
type HappinessFigures struct {
	StartDate                 string   `json:"startDate"`
	EndDate                   string   `json:"endDate"`
	RatingsCount              int      `json:"ratingsCount"`
	GreatCount                int      `json:"greatCount"`
	OkayCount                 int      `json:"okayCount"`
	NotGoodCount              int      `json:"notGoodCount"`
	Great                     *float64 `json:"great"`
	Okay                      *float64 `json:"okay"`
	NotGood                   *float64 `json:"notGood"`
	HappinessScore            *float64 `json:"happinessScore"`
	TotalCustomersWithRatings int      `json:"totalCustomersWithRatings"`
	TotalCustomers            int      `json:"totalCustomers"`
	RatingsPercent            *float64 `json:"ratingsPercent"`
}

// HappinessDeltas are the percentage changes of the happiness figures; a
// change from or to an empty figure is null.
type HappinessDeltas struct {
	RatingsCount   float64  `json:"ratingsCount"`
	GreatCount     float64  `json:"greatCount"`
	OkayCount      float64  `json:"okayCount"`
	NotGoodCount   float64  `json:"notGoodCount"`
	Great          *float64 `json:"great"`
	Okay           *float64 `json:"okay"`
	NotGood        *float64 `json:"notGood"`
	HappinessScore *float64 `json:"happinessScore"`
	RatingsPercent *float64 `json:"ratingsPercent"`
	TotalCustomers float64  `json:"totalCustomers"`
}

// HappinessReport is the company's happiness report.
type HappinessReport struct {
	Current  HappinessFigures  `json:"current"`
	Previous *HappinessFigures `json:"previous,omitempty"`
	Deltas   *HappinessDeltas  `json:"deltas,omitempty"`
}

// Ratings are the rating values, in report order.
var Ratings = []string{"great", "okay", "not-good"}

// RatingFilter selects the rated replies whose current rating was given in
// a period, in the filter's mailboxes, tags, folders and types.
func RatingFilter(p Period, f Filter) query.Node {
	nodes := append([]query.Node{during("ratedAt", p)}, f.node(tagName))
	return query.And{Nodes: nodes}
}

// ReplyFilter selects the user replies sent in a period.
func ReplyFilter(p Period, f Filter) query.Node {
	return MessageFilter("user", p, f)
}

// MessageFilter selects the messages from users (replies) or from
// customers sent in a period.
func MessageFilter(from string, p Period, f Filter) query.Node {
	nodes := append([]query.Node{query.Keyword{Field: "from", Value: from}, during("createdAt", p)}, f.node(tagName))
	return query.And{Nodes: nodes}
}

func tagName(t parley.Tag) string { return t.Name }

// Happiness computes the happiness report.
func Happiness(ctx context.Context, e Engine, r Request) (*HappinessReport, error) {
	return happiness(ctx, e, r, nil)
}

// happiness computes the happiness report of the replies a node selects
// (of some users), or of every reply when by is nil.
func happiness(ctx context.Context, e Engine, r Request, by query.Node) (*HappinessReport, error) {
	cur, prev, err := bothFigures(ctx, r, func(ctx context.Context, p Period) (*HappinessFigures, error) {
		return happinessFigures(ctx, e, r, p, by)
	})
	if err != nil {
		return nil, err
	}
	rep := &HappinessReport{Current: *cur}
	if r.Previous != nil {
		rep.Previous = prev
		rep.Deltas = &HappinessDeltas{
			RatingsCount:   Delta(float64(cur.RatingsCount), float64(prev.RatingsCount)),
			GreatCount:     Delta(float64(cur.GreatCount), float64(prev.GreatCount)),
			OkayCount:      Delta(float64(cur.OkayCount), float64(prev.OkayCount)),
			NotGoodCount:   Delta(float64(cur.NotGoodCount), float64(prev.NotGoodCount)),
			Great:          deltaOf(cur.Great, prev.Great),
			Okay:           deltaOf(cur.Okay, prev.Okay),
			NotGood:        deltaOf(cur.NotGood, prev.NotGood),
			HappinessScore: deltaOf(cur.HappinessScore, prev.HappinessScore),
			RatingsPercent: deltaOf(cur.RatingsPercent, prev.RatingsPercent),
			TotalCustomers: Delta(float64(cur.TotalCustomers), float64(prev.TotalCustomers)),
		}
	}
	return rep, nil
}

func happinessFigures(ctx context.Context, e Engine, r Request, p Period, by query.Node) (*HappinessFigures, error) {
	rated, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: restrict(RatingFilter(p, r.Filter), by),
		Values: map[string]string{"rating": "rating", "customers": "ratingCustomerId"}})
	if err != nil {
		return nil, err
	}
	helped, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: restrict(ReplyFilter(p, r.Filter), by),
		Values: map[string]string{"customers": "customerId"}})
	if err != nil {
		return nil, err
	}
	customers := map[string]bool{}
	for _, facet := range []index.FacetResult{helped, rated} {
		for key := range facet.Values["customers"] {
			customers[key] = true
		}
	}
	counts := rated.Values["rating"]
	f := &HappinessFigures{StartDate: Date(p.Start), EndDate: Date(p.End), RatingsCount: rated.Total,
		GreatCount: counts["great"], OkayCount: counts["okay"], NotGoodCount: counts["not-good"],
		TotalCustomersWithRatings: len(rated.Values["customers"]), TotalCustomers: len(customers)}
	f.Great, f.Okay, f.NotGood = share(f.GreatCount, f.RatingsCount), share(f.OkayCount, f.RatingsCount), share(f.NotGoodCount, f.RatingsCount)
	if f.Great != nil {
		score := *f.Great - *f.NotGood
		f.HappinessScore = &score
	}
	f.RatingsPercent = share(f.TotalCustomersWithRatings, f.TotalCustomers)
	return f, nil
}

// customersHelped counts the distinct customers of the conversations that
// received a user reply in the period (of one user when by is set).
func customersHelped(ctx context.Context, e Engine, r Request, p Period, by query.Node) (int, error) {
	helped, err := aggregateOne(ctx, e, index.AggregateRequest{Kind: index.Messages, Company: r.Company, Filter: restrict(ReplyFilter(p, r.Filter), by),
		Distinct: []string{"customerId"}})
	return helped.Distinct["customerId"], err
}

// share is part of whole in percent, exact; nil when whole is zero.
func share(part, whole int) *float64 {
	if whole == 0 {
		return nil
	}
	v := float64(part) / float64(whole) * 100
	return &v
}

// deltaOf is Delta of two optional figures; nil when either is.
func deltaOf(current, previous *float64) *float64 {
	if current == nil || previous == nil {
		return nil
	}
	d := Delta(*current, *previous)
	return &d
}

// RatingSorts maps the ratings list's sort fields to reply fields.
var RatingSorts = map[string]string{"number": "number", "modifiedAt": "ratedAt", "rating": "ratingRank"}

// restrict ANDs a filter with a node, when there is one.
func restrict(filter, by query.Node) query.Node {
	if by == nil {
		return filter
	}
	return query.And{Nodes: []query.Node{filter, by}}
}

// RatingsList lists the ratings the happiness report counts in the current
// period, those of one rating unless rating is empty, in the order asked.
func RatingsList(ctx context.Context, e Engine, r Request, rating, sortField string, desc bool, page search.Paging) (search.Keys, error) {
	return ratingsList(ctx, e, r, nil, rating, sortField, desc, page)
}

// ratingsList is RatingsList over the replies by selects (nil: all),
// through search; the keys are the rated replies' message ids.
func ratingsList(ctx context.Context, e Engine, r Request, by query.Node, rating, sortField string, desc bool, page search.Paging) (search.Keys, error) {
	filter := restrict(RatingFilter(r.Current, r.Filter), by)
	if rating != "" {
		filter = query.And{Nodes: []query.Node{filter, query.Keyword{Field: "rating", Value: rating}}}
	}
	return search.List(ctx, e, search.Listing{Kind: index.Messages, Company: r.Company, Filter: filter,
		Sort: []index.Sort{{Field: RatingSorts[sortField], Desc: desc}}, Paging: page})
}
