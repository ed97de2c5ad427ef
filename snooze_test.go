package parley_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// laterItems are the company's pending wake-ups due by the given time.
func (w *world) laterItems(t *testing.T, by time.Time) []parley.LaterItem {
	t.Helper()
	var items []parley.LaterItem
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		items, err = tx.DueLater(by)
		return err
	}))
	return items
}

func TestSnooze(t *testing.T) {
	w, id := oneConversation(t, "active")
	snooze := func(until *string, onReply bool) error {
		return w.write(func(tx parley.Tx) error {
			return parley.SnoozeConversation(tx, w.caller, id, &parley.SnoozeRequest{SnoozedUntil: until, UnsnoozeOnCustomerReply: onReply}, ruleNow)
		})
	}
	for _, tt := range []struct {
		name  string
		until *string
		code  string
	}{
		{"no time", nil, parley.CodeNullValue},
		{"not a date", parley.Ptr("tomorrow"), parley.CodeMalformedDate},
		{"now is not the future", parley.Ptr(ruleNow.Format(parley.TimeLayout)), parley.CodeValueNotSupported},
		{"the past", parley.Ptr(ruleNow.Add(-time.Hour).Format(parley.TimeLayout)), parley.CodeValueNotSupported},
	} {
		assert.Equal(t, tt.code, code(t, snooze(tt.until, false)), tt.name)
	}

	until := ruleNow.Add(48 * time.Hour)
	require.NoError(t, snooze(parley.Ptr(until.Format(parley.TimeLayout)), true))
	c, _ := w.load(t, id)
	require.NotNil(t, c.Snooze)
	assert.Equal(t, parley.Snooze{SnoozedBy: w.caller.User.ID, SnoozedUntil: until, UnsnoozeOnCustomerReply: true}, *c.Snooze)
	assert.Empty(t, w.laterItems(t, until.Add(-time.Second)), "nothing wakes before its time")
	assert.Equal(t, []parley.LaterItem{{CompanyID: w.caller.Company.ID, Kind: parley.LaterSnooze, ID: id, ConversationID: id, At: until}},
		w.laterItems(t, until), "one wake-up, at the time")

	later := until.Add(24 * time.Hour)
	require.NoError(t, snooze(parley.Ptr(later.Format(parley.TimeLayout)), false), "snoozing again moves the wake-up")
	assert.Len(t, w.laterItems(t, later), 1)

	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.UnsnoozeConversation(tx, w.caller, id, ruleNow) }))
	c, _ = w.load(t, id)
	assert.Nil(t, c.Snooze)
	assert.Empty(t, w.laterItems(t, later), "unsnoozing removes the wake-up")
	err := w.write(func(tx parley.Tx) error { return parley.UnsnoozeConversation(tx, w.caller, id, ruleNow) })
	assert.True(t, parley.IsNotFound(err), "a conversation that is not snoozed")
}

// TestLaterLimit: a company may have at most LaterLimit snoozes and
// scheduled replies pending; moving one does not count again.
func TestLaterLimit(t *testing.T) {
	w := newWorld(t)
	w.caller.Company.LaterLimit = 2
	until := parley.Ptr(ruleNow.Add(time.Hour).Format(parley.TimeLayout))
	var ids []int64
	for range 3 {
		id, err := w.create(t, 1, "customer", "active")
		require.NoError(t, err)
		ids = append(ids, id)
	}
	snooze := func(id int64) error {
		return w.write(func(tx parley.Tx) error {
			return parley.SnoozeConversation(tx, w.caller, id, &parley.SnoozeRequest{SnoozedUntil: until}, ruleNow)
		})
	}
	require.NoError(t, snooze(ids[0]))
	require.NoError(t, snooze(ids[1]))
	assert.Equal(t, parley.CodeLaterLimit, code(t, snooze(ids[2])), "the third is over the limit")
	assert.NoError(t, snooze(ids[1]), "moving a pending one is not a new one")
}

func TestScheduleThread(t *testing.T) {
	w, id := oneConversation(t, "active")
	var draft, published *parley.Thread
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		if draft, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Soon"), Draft: true}, parley.EICARScanner{}, ruleNow); err != nil {
			return err
		}
		published, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Now")}, parley.EICARScanner{}, ruleNow)
		return err
	}))
	at := ruleNow.Add(3 * time.Hour)
	schedule := func(threadID int64, when *string) error {
		return w.write(func(tx parley.Tx) error {
			return parley.ScheduleThread(tx, w.caller, id, threadID, &parley.ScheduleRequest{ScheduledFor: when, SendAsCreator: true}, ruleNow)
		})
	}
	assert.Equal(t, parley.CodeNullValue, code(t, schedule(draft.ID, nil)))
	assert.Equal(t, parley.CodeValueNotSupported, code(t, schedule(published.ID, parley.Ptr(at.Format(parley.TimeLayout)))), "only a draft reply")
	assert.True(t, parley.IsNotFound(schedule(draft.ID+1000, parley.Ptr(at.Format(parley.TimeLayout)))))

	require.NoError(t, schedule(draft.ID, parley.Ptr(at.Format(parley.TimeLayout))))
	_, threads := w.load(t, id)
	var got *parley.Thread
	for i := range threads {
		if threads[i].ID == draft.ID {
			got = &threads[i]
		}
	}
	require.NotNil(t, got)
	require.NotNil(t, got.Scheduled)
	assert.Equal(t, parley.Schedule{For: at, By: w.caller.User.ID, SendAsCreator: true}, *got.Scheduled)
	assert.Equal(t, []parley.LaterItem{{CompanyID: w.caller.Company.ID, Kind: parley.LaterScheduled, ID: draft.ID, ConversationID: id, At: at}}, w.laterItems(t, at))

	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.UnscheduleThread(tx, w.caller, id, draft.ID, ruleNow) }))
	assert.Empty(t, w.laterItems(t, at), "unscheduling removes the wake-up")
	err := w.write(func(tx parley.Tx) error { return parley.UnscheduleThread(tx, w.caller, id, draft.ID, ruleNow) })
	assert.True(t, parley.IsNotFound(err), "a thread with no schedule")
}

func TestPublishSchedule(t *testing.T) {
	w, id := oneConversation(t, "active")
	var draft *parley.Thread
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		draft, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Soon"), Draft: true}, parley.EICARScanner{}, ruleNow)
		return err
	}))
	publish := func(ops string) error {
		parsed, err := parley.ParsePatch([]byte(ops))
		if err != nil {
			return err
		}
		return w.write(func(tx parley.Tx) error { return parley.PublishSchedule(tx, w.caller, id, draft.ID, parsed, ruleNow) })
	}
	assert.True(t, parley.IsNotFound(publish(`{"op":"replace","path":"/state","value":"published"}`)), "no schedule yet")
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.ScheduleThread(tx, w.caller, id, draft.ID, &parley.ScheduleRequest{ScheduledFor: parley.Ptr(ruleNow.Add(time.Hour).Format(parley.TimeLayout))}, ruleNow)
	}))
	assert.Equal(t, parley.KindInvalid, parley.KindOf(publish(`{"op":"replace","path":"/state","value":"draft"}`)))
	assert.Equal(t, parley.KindInvalid, parley.KindOf(publish(`{"op":"replace","path":"/text","value":"x"}`)))
	require.NoError(t, publish(`[{"op":"replace","path":"/state","value":"published"}]`))
	_, threads := w.load(t, id)
	for _, th := range threads {
		if th.ID == draft.ID {
			assert.Equal(t, parley.ThreadPublished, th.State, "published now")
			assert.Nil(t, th.Scheduled)
		}
	}
	assert.Empty(t, w.laterItems(t, ruleNow.Add(2*time.Hour)), "its wake-up is gone")
}
