package workflow_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// setup loads the demo into a fresh database with automatic workflows
// wired as cmd/parley wires them, and returns the owner of company 1.
func setup(t testing.TB) (*storage.DB, parley.Caller) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db.Store(), now))
	db.SetBeforeCommit((&workflow.Engine{Clock: parley.ClockFunc(func() time.Time { return now })}).BeforeCommit)
	caller := ownerOf(t, db.Store())
	return db, caller
}

// firstConversation returns a published conversation of company 1.
func firstConversation(t testing.TB, db *storage.DB) *parley.Conversation {
	var conv *parley.Conversation
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if conv == nil && c.CompanyID == 1 && c.State == parley.StatePublished {
				conv = c
				return parley.ErrStop
			}
			return nil
		})
	}))
	require.NotNil(t, conv)
	return conv
}

func create(t testing.TB, db *storage.DB, caller parley.Caller, in parley.WorkflowInput) *parley.Workflow {
	t.Helper()
	var w *parley.Workflow
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) (err error) {
		w, err = parley.CreateWorkflow(tx, caller, &in, workflow.Check, now)
		return err
	})
	require.NoError(t, err)
	return w
}

func ptr[T any](v T) *T { return &v }

// lineItems returns the texts of a conversation's workflow line items.
func lineItems(t *testing.T, db *storage.DB, convID int64) []string {
	var out []string
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		threads, err := tx.Threads(1, convID)
		for _, th := range threads {
			if th.Action != nil && th.Action.Type == "workflow" {
				out = append(out, th.Action.Text)
			}
		}
		return err
	}))
	return out
}

// TestAutomaticChainStops runs two automatic workflows whose actions
// trigger each other (A swaps tag loop-a for loop-b, B swaps it back): each
// runs once for the write, and the chain stops.
func TestAutomaticChainStops(t *testing.T) {
	db, caller := setup(t)
	conv := firstConversation(t, db)
	for _, wf := range []struct{ name, from, to string }{{"A", "loop-a", "loop-b"}, {"B", "loop-b", "loop-a"}} {
		create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr(wf.name), Type: ptr(parley.WorkflowAutomatic),
			Conditions: []string{"tag:" + wf.from},
			Actions: []parley.WorkflowAction{{Type: parley.ActionRemoveTags, Tags: []string{wf.from}},
				{Type: parley.ActionAddTags, Tags: []string{wf.to}}}})
	}
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
		return parley.ReplaceTags(tx, caller, conv.ID, []string{"loop-a"}, now)
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Workflow A ran", "Workflow B ran"}, lineItems(t, db, conv.ID))
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		c, err := tx.Conversation(1, conv.ID)
		require.NoError(t, err)
		require.Len(t, c.TagIDs, 1)
		tag, err := tx.Tag(1, c.TagIDs[0])
		require.NoError(t, err)
		assert.Equal(t, "loop-a", tag.Name, "B ran last")
		workflows, err := tx.Workflows(1)
		require.NoError(t, err)
		for _, w := range workflows {
			runs, err := tx.WorkflowRuns(1, w.ID)
			require.NoError(t, err)
			if w.Name == "A" || w.Name == "B" {
				assert.Len(t, runs, 1, "workflow %s", w.Name)
			} else {
				assert.Empty(t, runs, "demo workflow %s", w.Name)
			}
		}
		return nil
	}))
	// A later write that triggers again runs the chain again, once.
	_, err = db.Store().Update(context.Background(), func(tx parley.Tx) error {
		return parley.ReplaceTags(tx, caller, conv.ID, []string{"loop-b"}, now)
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Workflow A ran", "Workflow B ran", "Workflow B ran", "Workflow A ran"}, lineItems(t, db, conv.ID))
}

// TestManualRunActions runs a manual workflow with every action on one
// conversation, and leaves a non-matching one alone.
func TestManualRunActions(t *testing.T) {
	db, caller := setup(t)
	conv := firstConversation(t, db)
	w := create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr("Escalate"), Type: ptr(parley.WorkflowManual),
		Conditions: []string{"id:" + itoa(conv.ID)},
		Actions: []parley.WorkflowAction{{Type: parley.ActionStatus, Status: "pending"}, {Type: parley.ActionAssign, UserID: &caller.User.ID},
			{Type: parley.ActionAddTags, Tags: []string{"escalated"}}, {Type: parley.ActionNote, Text: "Escalated by workflow"}}})
	var other int64
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if other == 0 && c.ID != conv.ID && c.MailboxID == conv.MailboxID && c.State == parley.StatePublished {
				other = c.ID
			}
			return nil
		})
	}))
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
		got, err := parley.CheckWorkflowRun(tx, tx, caller, w.ID, &parley.WorkflowRunRequest{ConversationIDs: []int64{conv.ID, other}}, now)
		if err != nil {
			return err
		}
		return workflow.Run(tx, caller, got, []int64{conv.ID, other}, now)
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Workflow Escalate ran"}, lineItems(t, db, conv.ID))
	assert.Empty(t, lineItems(t, db, other))
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		c, err := tx.Conversation(1, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, parley.Status("pending"), c.Status)
		require.NotNil(t, c.Assignee)
		assert.Equal(t, caller.User.ID, c.Assignee.ID)
		runs, err := tx.WorkflowRuns(1, w.ID)
		require.NoError(t, err)
		raw, _ := json.Marshal(runs)
		assert.Len(t, runs, 2, string(raw))
		assert.True(t, runs[0].Matched)
		assert.False(t, runs[1].Matched)
		return nil
	}))
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestDemoWorkflows checks the demo's workflows are stored and that its
// manual ones have conversations to act on.
func TestDemoWorkflows(t *testing.T) {
	db, _ := setup(t)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		workflows, err := tx.Workflows(1)
		require.NoError(t, err)
		var names []string
		for i, w := range workflows {
			names = append(names, w.Name+" ("+w.Type+", "+w.Status+")")
			if w.Type != parley.WorkflowManual {
				continue
			}
			matched := 0
			require.NoError(t, tx.EachConversation(func(c *parley.Conversation) error {
				ok, err := workflow.Matches(tx, &workflows[i], c.ID, now)
				if ok && c.MailboxID == w.MailboxID {
					matched++
				}
				return err
			}))
			assert.Positive(t, matched, "demo workflow %q matches nothing", w.Name)
		}
		assert.Equal(t, []string{"Escalate refunds (manual, active)", "Close stale pending (manual, active)",
			"Tag urgent (automatic, active)", "Unassign spam (automatic, inactive)", "Hand refunds to the team (manual, active)",
			"Follow up pending (automatic, active)"}, names)
		return nil
	}))
}

// TestStaleTargetSkipped deactivates the user a workflow assigns to: the
// run skips that action, applies the others and does not fail the write.
func TestStaleTargetSkipped(t *testing.T) {
	db, caller := setup(t)
	conv := firstConversation(t, db)
	var agent *parley.User
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		users, err := tx.Users(1)
		for i := range users {
			if agent == nil && users[i].Active && users[i].ID != caller.User.ID && users[i].CanAccessMailbox(conv.MailboxID) &&
				(conv.Assignee == nil || conv.Assignee.ID != users[i].ID) {
				agent = &users[i]
			}
		}
		return err
	}))
	require.NotNil(t, agent)
	w := create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr("Hand over"), Type: ptr(parley.WorkflowManual),
		Actions: []parley.WorkflowAction{{Type: parley.ActionAssign, UserID: &agent.ID}, {Type: parley.ActionStatus, Status: "spam"}}})
	agent.Active = false
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
		if err := tx.PutUser(agent); err != nil {
			return err
		}
		return workflow.Run(tx, caller, w, []int64{conv.ID}, now)
	})
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		c, err := tx.Conversation(1, conv.ID)
		require.NoError(t, err)
		assert.Equal(t, parley.Status("spam"), c.Status)
		assert.Equal(t, conv.Assignee, c.Assignee)
		return nil
	}))
	assert.Equal(t, []string{"Workflow Hand over ran"}, lineItems(t, db, conv.ID))
}
