package parley_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestWakeFailed: a wake-up whose write failed is taken in a write of its
// own; a refusal, or a fifth failure, drops it with a line item saying what
// was not done and why; any other failure (internal, or a resource running
// short) moves it later, doubling the wait with each attempt; an item
// moved since it was listed is left alone.
func TestWakeFailed(t *testing.T) {
	locked := parley.Locked(parley.CodeTooManyThreads, "the conversation has 99 threads; at most 100 are allowed")
	internal := errors.New("disk full")
	shortage := parley.Unavailable(errors.New("out of shared memory"))
	for _, tc := range []struct {
		name      string
		item      func(convID, workflowID int64) parley.LaterItem
		cause     error
		taken     bool
		dropped   bool
		retryAt   time.Time // when moved
		lineItems []string
	}{
		{"a snooze refused", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterSnooze, ID: c, ConversationID: c, At: ruleNow}
		}, locked, true, true, time.Time{}, []string{"Snooze could not end: the conversation has 99 threads; at most 100 are allowed"}},
		{"a workflow wake-up refused", func(c, w int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterWorkflow, ID: c, ConversationID: c, At: ruleNow, WorkflowIDs: []int64{w}}
		}, locked, true, true, time.Time{}, []string{"Workflow Follow up skipped: the conversation has 99 threads; at most 100 are allowed"}},
		{"a first internal failure", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterScheduled, ID: 77, ConversationID: c, At: ruleNow}
		}, internal, true, false, ruleNow.Add(time.Minute), nil},
		{"a fourth internal failure", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterScheduled, ID: 77, ConversationID: c, At: ruleNow, Attempts: 3}
		}, internal, true, false, ruleNow.Add(8 * time.Minute), nil},
		{"a fifth internal failure", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterScheduled, ID: 77, ConversationID: c, At: ruleNow, Attempts: 4}
		}, internal, true, true, time.Time{}, []string{"Scheduled reply could not be sent: an internal error (see the server log)"}},
		{"a first shortage", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterScheduled, ID: 77, ConversationID: c, At: ruleNow}
		}, shortage, true, false, ruleNow.Add(time.Minute), nil},
		{"a fifth shortage", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterScheduled, ID: 77, ConversationID: c, At: ruleNow, Attempts: 4}
		}, shortage, true, true, time.Time{}, []string{"Scheduled reply could not be sent: the server was short of a resource (see the server log)"}},
		{"moved since it was listed", func(c, _ int64) parley.LaterItem {
			return parley.LaterItem{Kind: parley.LaterSnooze, ID: c, ConversationID: c, At: ruleNow.Add(time.Hour)}
		}, locked, false, false, time.Time{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, convID := oneConversation(t, "active")
			wf := &parley.Workflow{CompanyID: w.caller.Company.ID, MailboxID: w.mailbox, Name: "Follow up", Type: parley.WorkflowAutomatic,
				Status: parley.WorkflowActive, Conditions: []string{"status:pending"}, Actions: []parley.WorkflowAction{{Type: parley.ActionNote, Text: "x"}}}
			item := tc.item(convID, 0)
			_, err := w.st.Update(context.Background(), func(tx parley.Tx) error {
				if err := tx.PutWorkflow(wf); err != nil {
					return err
				}
				item = tc.item(convID, wf.ID)
				item.CompanyID = w.caller.Company.ID
				return tx.PutLater(item)
			})
			require.NoError(t, err)

			var left parley.LaterItem
			var dropped, taken bool
			_, err = w.st.Update(context.Background(), func(tx parley.Tx) (err error) {
				left, dropped, taken, err = parley.WakeFailed(tx, item, tc.cause, ruleNow)
				return err
			})
			require.NoError(t, err)
			assert.Equal(t, tc.taken, taken, "taken")
			assert.Equal(t, tc.dropped, dropped, "dropped")
			var pending []parley.LaterItem
			require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				pending, err = tx.DueLater(ruleNow.AddDate(1, 0, 0))
				return err
			}))
			switch {
			case !tc.taken:
				assert.Equal(t, []parley.LaterItem{item}, utc(pending), "left as it was")
			case tc.dropped:
				assert.Empty(t, pending)
			default:
				moved := item
				moved.At, moved.Attempts = tc.retryAt, item.Attempts+1
				assert.Equal(t, []parley.LaterItem{moved}, utc(pending))
				assert.Equal(t, moved, utc([]parley.LaterItem{left})[0])
			}
			_, threads := w.load(t, convID)
			var texts []string
			for _, th := range threads {
				if th.Type == parley.ThreadLineItem {
					texts = append(texts, th.Action.Text)
					assert.Equal(t, parley.Party{ID: w.caller.User.ID, Type: parley.PartyUser}, th.CreatedBy, "by the account owner")
				}
			}
			assert.Equal(t, tc.lineItems, texts)
		})
	}
}

// utc reads items' times in UTC, as a store may give another location.
func utc(items []parley.LaterItem) []parley.LaterItem {
	for i := range items {
		items[i].At = items[i].At.UTC()
	}
	return items
}
