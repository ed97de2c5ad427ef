package parley

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestReportFigures(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	customer := func(id int64, min int) Thread {
		return Thread{ID: id, Type: ThreadCustomer, State: ThreadPublished, CreatedBy: Party{ID: 9, Type: PartyCustomer}, CreatedAt: at(min)}
	}
	reply := func(id int64, min int) Thread {
		return Thread{ID: id, Type: ThreadMessage, State: ThreadPublished, CreatedBy: Party{ID: 1, Type: PartyUser}, CreatedAt: at(min)}
	}
	note := Thread{ID: 50, Type: ThreadNote, State: ThreadPublished, CreatedBy: Party{ID: 1, Type: PartyUser}, CreatedAt: at(1)}
	draft := reply(51, 2)
	draft.State = ThreadDraft
	closed := func(by int64, min int) Conversation {
		end := at(min)
		return Conversation{CreatedAt: t0, Status: StatusClosed, ClosedBy: by, ClosedAt: &end}
	}
	ptr := func(t time.Time) *time.Time { return &t }
	// A reply written as a draft at minute 10 and sent at 25 (published
	// at 40: it was scheduled), and a draft never sent.
	drafted := reply(8, 40)
	drafted.DraftedAt, drafted.SentAt = ptr(at(10)), ptr(at(25))
	unsent := reply(9, 50)
	unsent.State, unsent.DraftedAt = ThreadDraft, ptr(at(45))
	for _, tc := range []struct {
		name    string
		conv    Conversation
		threads []Thread
		want    Figures
	}{
		{"no reply yet", Conversation{CreatedAt: t0, Status: StatusActive}, []Thread{customer(1, 0), note, draft},
			Figures{FirstCustomerAt: ptr(at(0)), Responses: map[int64]time.Duration{}, Waiting: map[int64]time.Time{}, Handles: map[int64]time.Duration{}}},
		{"first reply after the first customer message, out of order; a follow-up answers nobody", closed(1, 90),
			[]Thread{reply(3, 60), customer(1, 0), customer(2, 30), reply(4, 45), customer(5, 70), customer(6, 75), reply(7, 80)},
			Figures{FirstCustomerAt: ptr(at(0)), FirstResponseAt: ptr(at(45)), FirstResponse: 45 * time.Minute, Replies: 3, ResolvedAt: ptr(at(90)), Resolution: 90 * time.Minute,
				Responses: map[int64]time.Duration{4: 45 * time.Minute, 7: 10 * time.Minute}, Waiting: map[int64]time.Time{4: at(0), 7: at(70)}, Handles: map[int64]time.Duration{}}},
		{"an outbound reply before the customer writes is no response", Conversation{CreatedAt: t0}, []Thread{reply(1, 0), customer(2, 10), reply(3, 25)},
			Figures{FirstCustomerAt: ptr(at(10)), FirstResponseAt: ptr(at(25)), FirstResponse: 15 * time.Minute, Replies: 2,
				Responses: map[int64]time.Duration{3: 15 * time.Minute}, Waiting: map[int64]time.Time{3: at(10)}, Handles: map[int64]time.Duration{}}},
		{"closed without a reply is not resolved", closed(1, 5), []Thread{customer(1, 0)},
			Figures{FirstCustomerAt: ptr(at(0)), Responses: map[int64]time.Duration{}, Waiting: map[int64]time.Time{}, Handles: map[int64]time.Duration{}}},
		{"closed by no user is not resolved", closed(0, 5), []Thread{customer(1, 0), reply(2, 1)},
			Figures{FirstCustomerAt: ptr(at(0)), FirstResponseAt: ptr(at(1)), FirstResponse: time.Minute, Replies: 1,
				Responses: map[int64]time.Duration{2: time.Minute}, Waiting: map[int64]time.Time{2: at(0)}, Handles: map[int64]time.Duration{}}},
		{"a reply sent from a draft is handled from the draft's creation to its sending", Conversation{CreatedAt: t0},
			[]Thread{customer(1, 0), reply(2, 5), drafted, unsent},
			Figures{FirstCustomerAt: ptr(at(0)), FirstResponseAt: ptr(at(5)), FirstResponse: 5 * time.Minute, Replies: 2,
				Responses: map[int64]time.Duration{2: 5 * time.Minute}, Waiting: map[int64]time.Time{2: at(0)},
				Handles: map[int64]time.Duration{8: 15 * time.Minute}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.conv.ReportFigures(tc.threads))
		})
	}
}

func TestFiguresHandleTime(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handles map[int64]time.Duration
		want    time.Duration
		ok      bool
	}{
		{"no reply sent from a draft", map[int64]time.Duration{}, 0, false},
		{"the average of its replies'", map[int64]time.Duration{1: 10 * time.Minute, 2: 20 * time.Minute, 3: 0}, 10 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Figures{Handles: tc.handles}.HandleTime()
			assert.Equal(t, []any{tc.want, tc.ok}, []any{got, ok})
		})
	}
}
