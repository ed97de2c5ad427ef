package parley

import (
	"sort"
	"time"
)

// Figures are what the reports count of one conversation, computed once
// from its threads so that every report reads the same number.
// docs/reports.md ("Report figures") defines each one.
type Figures struct {
	// FirstCustomerAt is the first published thread written by a customer.
	FirstCustomerAt *time.Time
	// FirstResponseAt is the first published user reply at or after
	// FirstCustomerAt; FirstResponse is the time between the two.
	FirstResponseAt *time.Time
	FirstResponse   time.Duration
	// Replies counts the published replies written by users.
	Replies int
	// Responses holds, per user reply that answered a waiting customer, the
	// time the customer had been waiting: since the first customer message
	// after the previous user reply. Waiting holds that message's time.
	Responses map[int64]time.Duration
	Waiting   map[int64]time.Time
	// Handles holds, per user reply written as a draft first, its handle
	// time: from the draft's creation to when a user sent it. A reply
	// sent at once has none (Parley cannot see how long it took).
	Handles map[int64]time.Duration
	// ResolvedAt is set when the conversation is closed, was closed by a
	// user, and has at least one user reply: then Resolution is the time
	// from its creation to its closing.
	ResolvedAt *time.Time
	Resolution time.Duration
}

// markSent records that a user sent a draft at now, publishing it or
// scheduling it: its handle time runs from the draft's creation to now.
func (t *Thread) markSent(now time.Time) {
	if t.DraftedAt == nil {
		drafted := t.CreatedAt
		t.DraftedAt = &drafted
	}
	t.SentAt = &now
}

// IsUserReply reports whether a thread is a reply a user sent: a published
// message written by a user.
func (t *Thread) IsUserReply() bool {
	return t.Type == ThreadMessage && t.State == ThreadPublished && t.CreatedBy.Type == PartyUser
}

// IsCustomerMessage reports whether a thread was written by a customer: a
// published customer-kind thread whose author is the customer.
func (t *Thread) IsCustomerMessage() bool {
	return t.State == ThreadPublished && t.Type.IsCustomerKind() && t.CreatedBy.Type == PartyCustomer
}

// ReportFigures computes the conversation's report figures from its threads.
func (c *Conversation) ReportFigures(threads []Thread) Figures {
	threads = append([]Thread(nil), threads...)
	sort.SliceStable(threads, func(i, j int) bool {
		if !threads[i].CreatedAt.Equal(threads[j].CreatedAt) {
			return threads[i].CreatedAt.Before(threads[j].CreatedAt)
		}
		return threads[i].ID < threads[j].ID
	})
	f := Figures{Responses: map[int64]time.Duration{}, Waiting: map[int64]time.Time{}, Handles: map[int64]time.Duration{}}
	var waiting *time.Time
	for i := range threads {
		t := &threads[i]
		at := t.CreatedAt
		switch {
		case t.IsCustomerMessage():
			if f.FirstCustomerAt == nil {
				f.FirstCustomerAt = &at
			}
			if waiting == nil {
				waiting = &at
			}
		case t.IsUserReply():
			f.Replies++
			if t.DraftedAt != nil && t.SentAt != nil {
				f.Handles[t.ID] = max(0, t.SentAt.Sub(*t.DraftedAt))
			}
			if waiting != nil {
				f.Responses[t.ID], f.Waiting[t.ID] = at.Sub(*waiting), *waiting
				waiting = nil
			}
			if f.FirstCustomerAt != nil && f.FirstResponseAt == nil {
				f.FirstResponseAt = &at
				f.FirstResponse = at.Sub(*f.FirstCustomerAt)
			}
		}
	}
	if c.Status == StatusClosed && c.ClosedBy != 0 && c.ClosedAt != nil && f.Replies > 0 {
		at := *c.ClosedAt
		f.ResolvedAt = &at
		f.Resolution = max(0, at.Sub(c.CreatedAt))
	}
	return f
}

// HandleTime is the conversation's handle time: the average of its
// replies' (Handles); ok is false when no reply has one.
func (f Figures) HandleTime() (avg time.Duration, ok bool) {
	if len(f.Handles) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, h := range f.Handles {
		sum += h
	}
	return sum / time.Duration(len(f.Handles)), true
}

// ReportLocation is the time zone reports count days and hours in: the
// office hours' zone when the company has one, else UTC.
func (c *Company) ReportLocation() *time.Location {
	if c.OfficeHours.TimeZone != "" {
		if loc := c.OfficeHours.Location(); loc != nil {
			return loc
		}
	}
	return time.UTC
}

// WeekHour is the day of the week (Monday 1 to Sunday 7) and the hour
// (0-23) of t in loc, as the busy-times report counts them.
func WeekHour(t time.Time, loc *time.Location) (day, hour int) {
	t = t.In(loc)
	day = int(t.Weekday())
	if day == 0 {
		day = 7
	}
	return day, t.Hour()
}

// Activity lists the times a conversation was worked on: its creation, its
// customer messages and its user replies.
func (c *Conversation) Activity(threads []Thread) []time.Time {
	out := []time.Time{c.CreatedAt}
	for i := range threads {
		if t := &threads[i]; t.IsCustomerMessage() || t.IsUserReply() {
			out = append(out, t.CreatedAt)
		}
	}
	return out
}
