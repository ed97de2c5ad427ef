package parley_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
	"github.com/parley/parley/workflow"
)

func TestWorkflowDefinitions(t *testing.T) {
	w := newWorld(t)
	tag := []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{"seen"}}}
	input := func(change func(*parley.WorkflowInput)) parley.WorkflowInput {
		in := parley.WorkflowInput{MailboxID: parley.Ptr(w.mailbox), Name: parley.Ptr(" Tag refunds "), Type: parley.Ptr(parley.WorkflowAutomatic),
			Conditions: []string{" subject:refund "}, Actions: tag}
		if change != nil {
			change(&in)
		}
		return in
	}
	var wf *parley.Workflow
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		in := input(nil)
		wf, err = parley.CreateWorkflow(tx, w.caller, &in, workflow.Check, ruleNow)
		return err
	}))
	assert.Equal(t, []any{"Tag refunds", parley.WorkflowActive, []string{"subject:refund"}}, []any{wf.Name, wf.Status, wf.Conditions})

	update := func(in parley.WorkflowInput, at time.Time) error {
		return w.write(func(tx parley.Tx) error { return parley.UpdateWorkflow(tx, w.caller, wf.ID, &in, workflow.Check, at) })
	}
	refused := []struct {
		name string
		in   parley.WorkflowInput
		path string
		code string
	}{
		{"no mailbox", input(func(in *parley.WorkflowInput) { in.MailboxID = nil }), "mailboxId", parley.CodeNullValue},
		{"an unknown mailbox", input(func(in *parley.WorkflowInput) { in.MailboxID = parley.Ptr(w.mailbox + 1000) }), "mailboxId", parley.CodeInvalidID},
		{"an unknown status", input(func(in *parley.WorkflowInput) { in.Status = parley.Ptr("paused") }), "status", parley.CodeEnumValue},
		{"a negative order", input(func(in *parley.WorkflowInput) { in.Order = parley.Ptr(-1) }), "order", parley.CodeInvalidNumber},
		{"automatic without a condition", input(func(in *parley.WorkflowInput) { in.Conditions = nil }), "conditions", parley.CodeEmptyValue},
		{"an empty condition", input(func(in *parley.WorkflowInput) { in.Conditions = []string{" "} }), "conditions[0]", parley.CodeEmptyValue},
		{"a condition that does not parse", input(func(in *parley.WorkflowInput) { in.Conditions = []string{"subjct:refund"} }), "conditions[0]", parley.CodeInvalidCondition},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := update(tt.in, ruleNow)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	later := ruleNow.Add(time.Hour)
	require.NoError(t, update(input(func(in *parley.WorkflowInput) {
		in.Type, in.Conditions, in.Status, in.Order = parley.Ptr(parley.WorkflowManual), nil, parley.Ptr(parley.WorkflowInactive), parley.Ptr(3)
	}), later))
	load := func() *parley.Workflow {
		var got *parley.Workflow
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			got, err = parley.LoadWorkflow(tx, w.caller, wf.ID)
			return err
		}))
		return got
	}
	got := load()
	assert.Equal(t, []any{parley.WorkflowManual, parley.WorkflowInactive, 3, later}, []any{got.Type, got.Status, got.Order, got.ModifiedAt}, "PUT replaces")
	assert.Empty(t, got.Conditions, "a manual workflow may have none")

	patch := func(ops string) error {
		parsed, err := parley.ParsePatch([]byte(ops))
		if err != nil {
			return err
		}
		return w.write(func(tx parley.Tx) error { return parley.PatchWorkflow(tx, w.caller, wf.ID, parsed, later) })
	}
	assert.Equal(t, parley.KindInvalid, parley.KindOf(patch(`{"op":"replace","path":"/name","value":"x"}`)), "only the status may be patched")
	assert.Equal(t, parley.CodeEnumValue, code(t, patch(`{"op":"replace","path":"/status","value":"paused"}`)))
	require.NoError(t, patch(`[{"op":"replace","path":"/status","value":"active"}]`))
	assert.Equal(t, parley.WorkflowActive, load().Status)

	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteWorkflow(tx, w.caller, wf.ID) }))
	assert.True(t, parley.IsNotFound(w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := parley.LoadWorkflow(tx, w.caller, wf.ID)
		return err
	})))
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.DeleteWorkflow(tx, w.caller, wf.ID) })))
}

func TestSavedViewDefinitions(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t)
	var view *parley.SavedView
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		view, err = parley.CreateSavedView(tx, w.caller, &parley.SavedViewInput{Name: parley.Ptr("Refunds"), Query: parley.Ptr("subject:refund")}, search.CheckQuery, ruleNow)
		return err
	}))
	update := func(caller parley.Caller, in parley.SavedViewInput) error {
		return w.write(func(tx parley.Tx) error {
			return parley.UpdateSavedView(tx, caller, view.ID, &in, search.CheckQuery, ruleNow)
		})
	}
	refused := []struct {
		name string
		in   parley.SavedViewInput
		path string
		code string
	}{
		{"a query that does not parse", parley.SavedViewInput{Name: parley.Ptr("R"), Query: parley.Ptr("subject:(refund")}, "query", parley.CodeInvalidCondition},
		{"a shared view without a mailbox", parley.SavedViewInput{Name: parley.Ptr("R"), Visibility: parley.Ptr(parley.ViewShared)}, "mailboxId", parley.CodeNullValue},
		{"an unknown sort field", parley.SavedViewInput{Name: parley.Ptr("R"), SortField: parley.Ptr("colour")}, "sortField", parley.CodeEnumValue},
		{"an unknown sort order", parley.SavedViewInput{Name: parley.Ptr("R"), SortOrder: parley.Ptr("sideways")}, "sortOrder", parley.CodeEnumValue},
		{"an unknown mailbox", parley.SavedViewInput{Name: parley.Ptr("R"), Visibility: parley.Ptr(parley.ViewShared), MailboxID: parley.Ptr(w.mailbox + 1000)}, "mailboxId", parley.CodeInvalidID},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := update(w.caller, tt.in)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	require.NoError(t, update(w.caller, parley.SavedViewInput{Name: parley.Ptr("Shared refunds"), Visibility: parley.Ptr(parley.ViewShared), MailboxID: parley.Ptr(w.mailbox), Query: parley.Ptr("tag:refund")}))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		v, err := parley.LoadSavedView(tx, w.caller, view.ID)
		require.NoError(t, err)
		assert.Equal(t, []any{"Shared refunds", parley.ViewShared, w.mailbox, "tag:refund"}, []any{v.Name, v.Visibility, v.MailboxID, v.Query})
		return nil
	}))

	// A webhook filtering on the view keeps it.
	var hook *parley.Webhook
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		hook, err = parley.CreateWebhook(tx, w.caller, &parley.WebhookInput{URL: parley.Ptr("https://hooks.example/in"),
			Events: []string{parley.EventConvoCreated}, Secret: parley.Ptr("s"), ViewID: &view.ID}, parley.WebhookPolicy{}, ruleNow)
		return err
	}))
	assert.Equal(t, parley.KindConflict, parley.KindOf(w.write(func(tx parley.Tx) error { return parley.DeleteSavedView(tx, w.caller, view.ID) })))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.RemoveWebhook(tx, w.caller, hook.ID) }))
	err := w.write(func(tx parley.Tx) error { return parley.DeleteSavedView(tx, plain, view.ID) })
	assert.True(t, parley.IsNotFound(err) || parley.KindOf(err) == parley.KindForbidden, "not by a user who is not its owner: %v", err)
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteSavedView(tx, w.caller, view.ID) }))
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.DeleteSavedView(tx, w.caller, view.ID) })))
}

// TestCheckWorkflowRun: the API runs a manual, active workflow on 1 to
// MaxWorkflowRun conversations of its mailbox; anything else is Cannot
// Run Workflow, on the field at fault.
func TestCheckWorkflowRun(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t) // sees no mailbox
	tag := []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{"seen"}}}
	define := func(typ, status string, conditions []string) int64 {
		in := parley.WorkflowInput{MailboxID: parley.Ptr(w.mailbox), Name: parley.Ptr(typ + " " + status), Type: parley.Ptr(typ),
			Status: parley.Ptr(status), Conditions: conditions, Actions: tag}
		var wf *parley.Workflow
		require.NoError(t, w.write(func(tx parley.Tx) (err error) {
			wf, err = parley.CreateWorkflow(tx, w.caller, &in, workflow.Check, ruleNow)
			return err
		}))
		return wf.ID
	}
	manual := define(parley.WorkflowManual, parley.WorkflowActive, nil)
	inactive := define(parley.WorkflowManual, parley.WorkflowInactive, nil)
	automatic := define(parley.WorkflowAutomatic, parley.WorkflowActive, []string{"subject:refund"})
	here, err := w.create(t, 1, "customer", "active")
	require.NoError(t, err)
	elsewhere, err := w.create(t, 1, "customer", "active")
	require.NoError(t, err)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		c, err := tx.Conversation(w.caller.Company.ID, elsewhere)
		if err != nil {
			return err
		}
		c.MailboxID = w.other
		return tx.PutConversation(c)
	}))
	tooMany := make([]int64, parley.MaxWorkflowRun+1)
	for i := range tooMany {
		tooMany[i] = here
	}
	refused := []struct {
		name     string
		workflow int64
		ids      []int64
		path     string
	}{
		{"an automatic workflow", automatic, []int64{here}, ""},
		{"an inactive workflow", inactive, []int64{here}, ""},
		{"no conversation", manual, nil, "conversationIds"},
		{"too many conversations", manual, tooMany, "conversationIds"},
		{"a conversation of another mailbox", manual, []int64{here, elsewhere}, "conversationIds[1]"},
		{"an unknown conversation", manual, []int64{999}, "conversationIds[0]"},
	}
	check := func(caller parley.Caller, id int64, ids []int64) (*parley.Workflow, error) {
		var wf *parley.Workflow
		err := w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			wf, err = parley.CheckWorkflowRun(tx, tx, caller, id, &parley.WorkflowRunRequest{ConversationIDs: ids}, ruleNow)
			return err
		})
		return wf, err
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := check(w.caller, tc.workflow, tc.ids)
			assertRefused(t, err, parley.KindInvalid, tc.path, parley.CodeCannotRunWorkflow)
		})
	}
	_, err = check(plain, manual, []int64{here})
	assert.True(t, parley.IsNotFound(err), "a workflow of a mailbox the caller cannot see")
	wf, err := check(w.caller, manual, []int64{here, here})
	require.NoError(t, err)
	assert.Equal(t, manual, wf.ID)
}
