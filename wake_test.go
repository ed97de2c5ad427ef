package parley_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestWakeItem fires one due wake-up in a write: a snooze ends, and the
// item is taken, so firing it again finds nothing; an item not yet due is
// not taken.
func TestWakeItem(t *testing.T) {
	w, id := oneConversation(t, "active")
	until := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.SnoozeConversation(tx, w.caller, id, &parley.SnoozeRequest{SnoozedUntil: parley.Ptr(until.Format(parley.TimeLayout))}, ruleNow)
	}))
	item := w.laterItems(t, until)[0]
	noWorkflows := func(parley.Tx, parley.LaterItem, time.Time) error { return nil }
	wake := func(at time.Time) bool {
		var fired bool
		require.NoError(t, w.write(func(tx parley.Tx) (err error) {
			fired, err = parley.WakeItem(tx, item, at, noWorkflows)
			return err
		}))
		return fired
	}
	assert.False(t, wake(until.Add(-time.Second)), "not yet due")
	c, _ := w.load(t, id)
	assert.NotNil(t, c.Snooze)
	assert.True(t, wake(until))
	c, _ = w.load(t, id)
	assert.Nil(t, c.Snooze, "the snooze ended")
	assert.False(t, wake(until), "taken: it fires once")
}

// TestApplyWorkflowSkipsWhatCannotApply runs a manual workflow on a
// conversation holding 99 threads: its note is refused by the thread
// limit, so it is skipped with the reason on the run's line item, and its
// tag is added all the same.
func TestApplyWorkflowSkipsWhatCannotApply(t *testing.T) {
	w := newWorld(t)
	id, err := w.create(t, 99, "customer", "active")
	require.NoError(t, err)
	wf := &parley.Workflow{ID: 7, CompanyID: w.caller.Company.ID, MailboxID: w.mailbox, Name: "Escalate", Type: parley.WorkflowManual,
		Status: parley.WorkflowActive, Actions: []parley.WorkflowAction{
			{Type: parley.ActionNote, Text: "Escalated"}, {Type: parley.ActionAddTags, Tags: []string{"escalated"}}}}
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.ApplyWorkflow(tx, w.caller, wf, id, ruleNow) }))
	assert.Equal(t, []string{"escalated"}, w.tagNames(t, id))
	_, threads := w.load(t, id)
	var runs []parley.Action
	for _, th := range threads {
		if th.Action != nil && th.Action.Type == "workflow" {
			runs = append(runs, *th.Action)
		}
	}
	require.Len(t, runs, 1, "one line item for the run")
	assert.Equal(t, int64(7), runs[0].WorkflowID)
	assert.Contains(t, runs[0].Text, "Workflow Escalate ran; skipped note: ")
}

func TestOverwriteCustomer(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	require.NoError(t, w.write(func(tx parley.Tx) error {
		_, err := parley.AddEntry(tx, company, w.customer, parley.PhoneEntries, &parley.EntryInput{Value: parley.Ptr("555")}, ruleNow)
		return err
	}))
	overwrite := func(f parley.CustomerFields) error {
		return w.write(func(tx parley.Tx) error { return parley.OverwriteCustomer(tx, company, w.customer, &f, ruleNow) })
	}
	assert.Equal(t, parley.KindInvalid, parley.KindOf(overwrite(parley.CustomerFields{FirstName: parley.Ptr(""), JobTitle: parley.Ptr("x")})))
	require.NoError(t, overwrite(parley.CustomerFields{FirstName: parley.Ptr("Cara"), JobTitle: parley.Ptr("Buyer")}))
	require.NoError(t, overwrite(parley.CustomerFields{FirstName: parley.Ptr("Cara"), LastName: parley.Ptr("Lind")}))
	c := w.customerRecord(t)
	assert.Equal(t, []string{"Cara", "Lind", ""}, []string{c.FirstName, c.LastName, c.JobTitle}, "a field left out is emptied")
	assert.Len(t, c.Phones, 1, "entries are untouched")
	assert.Len(t, c.Emails, 1)
}

func TestMailAndRatingValues(t *testing.T) {
	many := make([]string, parley.MaxMailCC+5)
	for i := range many {
		many[i] = "cc" + string(rune('a'+i%26)) + "@example.com"
	}
	c := &parley.Conversation{CC: many}
	got := parley.InheritedCC(c)
	assert.Len(t, got, parley.MaxMailCC, "a reply inherits at most MaxMailCC of its conversation's cc")
	got[0] = "changed@example.com"
	assert.NotEqual(t, "changed@example.com", c.CC[0], "a copy")
	assert.Empty(t, parley.InheritedCC(&parley.Conversation{}))

	for rating, category := range map[string]string{"great": "promoter", "okay": "passive", "not-good": "detractor"} {
		assert.Equal(t, category, parley.RatingCategory(rating))
	}
	selections := parley.StatusSelections()
	assert.ElementsMatch(t, []parley.Status{parley.StatusActive, parley.StatusPending}, selections["open"])
	assert.ElementsMatch(t, parley.Statuses, selections["all"])
	assert.Equal(t, []parley.Status{parley.StatusClosed}, selections["closed"])
}
