package reports

import (
	"context"

	"github.com/parley/parley/index"
)

// UserChatFigures are the chats of a user (or a team's members) in one
// period: the chats assigned to them that started in it, and their averages
// (exact; null over none), times in seconds.
type UserChatFigures struct {
	StartDate        string   `json:"startDate"`
	EndDate          string   `json:"endDate"`
	TotalDays        int      `json:"totalDays"`
	NewConversations int      `json:"newConversations"`
	MessagesPerChat  *float64 `json:"messagesPerChat"`
	ResponseTime     *float64 `json:"responseTime"`
	WaitTime         *float64 `json:"waitTime"`
	Duration         *float64 `json:"duration"`
}

// UserChatDeltas are the percentage changes of the chat figures; null when
// either figure is.
type UserChatDeltas struct {
	NewConversations float64  `json:"newConversations"`
	MessagesPerChat  *float64 `json:"messagesPerChat"`
	ResponseTime     *float64 `json:"responseTime"`
	WaitTime         *float64 `json:"waitTime"`
	Duration         *float64 `json:"duration"`
}

// UserChatReport is the user (or team) chat report.
type UserChatReport struct {
	Current  UserChatFigures  `json:"current"`
	Previous *UserChatFigures `json:"previous,omitempty"`
	Deltas   *UserChatDeltas  `json:"deltas,omitempty"`
}

// UserChat computes the chat report of a subject, over the chats the chat
// report counts (its filter) that are assigned to the subject.
func UserChat(ctx context.Context, e Engine, r Request, s Subject) (*UserChatReport, error) {
	cur, err := userChatFigures(ctx, e, r, s, r.Current)
	if err != nil {
		return nil, err
	}
	rep := &UserChatReport{Current: *cur}
	if r.Previous == nil {
		return rep, nil
	}
	prev, err := userChatFigures(ctx, e, r, s, *r.Previous)
	if err != nil {
		return nil, err
	}
	rep.Previous = prev
	rep.Deltas = &UserChatDeltas{NewConversations: Delta(float64(cur.NewConversations), float64(prev.NewConversations)),
		MessagesPerChat: deltaOf(cur.MessagesPerChat, prev.MessagesPerChat), ResponseTime: deltaOf(cur.ResponseTime, prev.ResponseTime),
		WaitTime: deltaOf(cur.WaitTime, prev.WaitTime), Duration: deltaOf(cur.Duration, prev.Duration)}
	return rep, nil
}

func userChatFigures(ctx context.Context, e Engine, r Request, s Subject, p Period) (*UserChatFigures, error) {
	req := index.FacetRequest{Kind: index.Chats, Company: r.Company, Filter: and(ChatFilter(p, r.Filter), s.by("assigneeId")), Values: map[string]string{}}
	for name, spec := range ChatRanges {
		req.Values[name] = spec.field(r.Filter.OfficeHours)
	}
	res, err := facets(ctx, e, req)
	if err != nil {
		return nil, err
	}
	f := &UserChatFigures{StartDate: Date(p.Start), EndDate: Date(p.End), TotalDays: int(p.days()), NewConversations: res.Total}
	for name, out := range map[string]**float64{"messagesPerChat": &f.MessagesPerChat, "responseTime": &f.ResponseTime,
		"waitTime": &f.WaitTime, "duration": &f.Duration} {
		if *out, _, err = meanOf(res.Values[name]); err != nil {
			return nil, err
		}
	}
	return f, nil
}
