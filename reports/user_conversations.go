package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// UserConversation is one conversation the subject replied to in the
// current period, with its figures: the subject's replies in the period
// and their average response time and average handle time (of those that
// have one), and the conversation's first response and resolution times
// (seconds; null when it has none). Status and customers are the
// record's: the caller loads the page it shows.
type UserConversation struct {
	ID                int64    `json:"id"`
	Number            int64    `json:"number"`
	RepliesSent       int      `json:"repliesSent"`
	ResponseTime      *float64 `json:"responseTime"`
	AvgHandleTime     *float64 `json:"avgHandleTime"`
	FirstResponseTime *float64 `json:"firstResponseTime"`
	ResolveTime       *float64 `json:"resolveTime"`
	createdAt         float64
	responseSum       float64
	responses         int
}

// HistorySorts are the sort fields of the conversation history.
var HistorySorts = []string{"number", "repliesSent", "responseTime", "resolveTime"}

// Positions of the numbers of a conversationFigures value (see the index
// catalog).
const (
	figureCreatedAt = iota
	figureNumber
	figureFirst
	figureFirstOffice
	figureResolution
	figureResolutionOffice
	figureCount
)

// userConversations gathers, from one facet over the subject's replies in
// the current period (filters and, unless empty, the conversation status
// applied), every conversation they went to with its figures: each reply
// document carries its conversation's figures and its own response time.
func userConversations(ctx context.Context, e Engine, r Request, s Subject, status string) ([]*UserConversation, error) {
	filter := and(ReplyFilter(r.Current, r.Filter), s.by("userId"))
	if status != "" {
		filter = and(filter, query.Keyword{Field: "status", Value: status})
	}
	res, err := facets(ctx, e, index.FacetRequest{Kind: index.Messages, Company: r.Company, Filter: filter,
		Values: map[string]string{"figures": "conversationFigures", "responses": "responseFigures"}})
	if err != nil {
		return nil, err
	}
	office := r.Filter.OfficeHours
	pick := func(values []*float64, plain, officeTwin int) *float64 {
		if office {
			return values[officeTwin]
		}
		return values[plain]
	}
	byID := map[int64]*UserConversation{}
	var out []*UserConversation
	for value, replies := range res.Values["figures"] {
		id, v, err := index.ParseConversationValues(value, figureCount)
		if err != nil {
			return nil, err
		}
		if v[figureCreatedAt] == nil || v[figureNumber] == nil {
			return nil, errNoFigures(value)
		}
		c := &UserConversation{ID: id, Number: int64(*v[figureNumber]), RepliesSent: replies, createdAt: *v[figureCreatedAt],
			FirstResponseTime: pick(v, figureFirst, figureFirstOffice), ResolveTime: pick(v, figureResolution, figureResolutionOffice)}
		byID[id] = c
		out = append(out, c)
	}
	for value, n := range res.Values["responses"] {
		id, v, err := index.ParseConversationValues(value, 2)
		if err != nil {
			return nil, err
		}
		c, seconds := byID[id], pick(v, 0, 1)
		if c == nil || seconds == nil {
			continue
		}
		c.responseSum += *seconds * float64(n)
		c.responses += n
	}
	for _, c := range out {
		if c.responses > 0 {
			avg := c.responseSum / float64(c.responses)
			c.ResponseTime = &avg
		}
	}
	return out, nil
}

// ConversationHistory is a page of the subject's conversations in the
// current period (status, when given, the conversations' current one),
// sorted by sortField (HistorySorts); a conversation without the figure
// comes last in either direction, ties go by id in the same direction.
func ConversationHistory(ctx context.Context, e Engine, r Request, s Subject, status, sortField string, desc bool, offset, limit int) (rows []UserConversation, total int, err error) {
	all, err := userConversations(ctx, e, r, s, status)
	if err != nil {
		return nil, 0, err
	}
	key := func(c *UserConversation) *float64 {
		var v float64
		switch sortField {
		case "repliesSent":
			v = float64(c.RepliesSent)
		case "responseTime":
			return c.ResponseTime
		case "resolveTime":
			return c.ResolveTime
		default:
			v = float64(c.Number)
		}
		return &v
	}
	slices.SortFunc(all, func(a, b *UserConversation) int {
		ka, kb := key(a), key(b)
		switch {
		case ka == nil && kb != nil:
			return 1
		case ka != nil && kb == nil:
			return -1
		}
		n := 0
		if ka != nil {
			n = cmp.Compare(*ka, *kb)
		}
		if n == 0 {
			n = cmp.Compare(a.ID, b.ID)
		}
		if desc {
			return -n
		}
		return n
	})
	page := pageOf(all, offset, limit)
	if len(page) > 0 {
		handles, err := handleTimesByConversation(ctx, e, r, s)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range page {
			c.AvgHandleTime = meanOfSum(handles[index.ValueKey(float64(c.ID))])
		}
	}
	for _, c := range page {
		rows = append(rows, *c)
	}
	return rows, len(all), nil
}

// handleTimesByConversation sums the handle times of the subject's replies
// sent in the current period, by conversation id (as a value key).
func handleTimesByConversation(ctx context.Context, e Engine, r Request, s Subject) (map[string]index.Sum, error) {
	res, err := e.Aggregate(ctx, index.AggregateRequest{Kind: index.Messages, Company: r.Company,
		Filter: and(ReplyFilter(r.Current, r.Filter), s.by("userId")), GroupBy: []string{"conversationId"}, Sums: []string{"handleSeconds"}})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	out := map[string]index.Sum{}
	for _, g := range res.Groups {
		out[g.Key[0]] = g.Sums["handleSeconds"]
	}
	return out, nil
}

// UserDrillDown is a page of the conversations behind the user report:
// those the subject replied to in the current period, newest first (then
// by id), as conversation ids.
func UserDrillDown(ctx context.Context, e Engine, r Request, s Subject, offset, limit int) (ids []int64, total int, err error) {
	all, err := userConversations(ctx, e, r, s, "")
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(all, func(a, b *UserConversation) int {
		if n := cmp.Compare(b.createdAt, a.createdAt); n != 0 {
			return n
		}
		return cmp.Compare(b.ID, a.ID)
	})
	for _, c := range pageOf(all, offset, limit) {
		ids = append(ids, c.ID)
	}
	return ids, len(all), nil
}

// pageOf is the part of a sorted list a page shows.
func pageOf[T any](all []T, offset, limit int) []T {
	if offset >= len(all) {
		return nil
	}
	return all[offset:min(len(all), offset+limit)]
}

func errNoFigures(value string) error {
	return fmt.Errorf("reports: conversation figures %q lack the creation or the number", value)
}
