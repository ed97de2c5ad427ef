package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func testWorkflows(t *testing.T, b Backend) {
	wf := func(company int64, name string) *parley.Workflow {
		return &parley.Workflow{CompanyID: company, MailboxID: 2, Name: name, Type: "automatic", Status: "active", Order: 1,
			Conditions: []string{"status:active"}, Actions: []parley.WorkflowAction{{Type: "assign", UserID: ptr(int64(3))}},
			CreatedAt: clock, ModifiedAt: at(1)}
	}
	first, second, other := wf(1, "first"), wf(1, "second"), wf(2, "other")
	put(t, b, func(tx parley.Tx) error { return tx.PutWorkflow(first) }, func(tx parley.Tx) error { return tx.PutWorkflow(second) },
		func(tx parley.Tx) error { return tx.PutWorkflow(other) })
	require.NotZero(t, first.ID)
	assert.Greater(t, second.ID, first.ID)
	assert.Equal(t, first, get(t, b, func(tx parley.Tx) (*parley.Workflow, error) { return tx.Workflow(1, first.ID) }))
	notFound(t, b, "another company's workflow", func(tx parley.Tx) error { _, err := tx.Workflow(2, first.ID); return err })
	assert.Equal(t, []parley.Workflow{*first, *second}, get(t, b, func(tx parley.Tx) ([]parley.Workflow, error) { return tx.Workflows(1) }))

	run := func(w *parley.Workflow, minute int) *parley.WorkflowRun {
		return &parley.WorkflowRun{CompanyID: w.CompanyID, WorkflowID: w.ID, ConversationID: 9, Trigger: "manual", Matched: true, At: at(minute)}
	}
	r1, r2, r3 := run(first, 1), run(first, 2), run(second, 3)
	r1.ID = 777 // a copied run keeps its id, and later runs are drawn past it
	put(t, b, func(tx parley.Tx) error { return tx.PutWorkflowRun(r1) }, func(tx parley.Tx) error { return tx.PutWorkflowRun(r2) },
		func(tx parley.Tx) error { return tx.PutWorkflowRun(r3) })
	assert.Equal(t, int64(777), r1.ID)
	assert.Greater(t, r2.ID, r1.ID)
	assert.Equal(t, []parley.WorkflowRun{*r1, *r2}, get(t, b, func(tx parley.Tx) ([]parley.WorkflowRun, error) { return tx.WorkflowRuns(1, first.ID) }),
		"oldest first")
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.WorkflowRun, error) { return tx.WorkflowRuns(2, first.ID) }))

	put(t, b, func(tx parley.Tx) error { return tx.DeleteWorkflow(first) })
	notFound(t, b, "a deleted workflow", func(tx parley.Tx) error { _, err := tx.Workflow(1, first.ID); return err })
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.WorkflowRun, error) { return tx.WorkflowRuns(1, first.ID) }), "with its runs")
	assert.Equal(t, []parley.WorkflowRun{*r3}, get(t, b, func(tx parley.Tx) ([]parley.WorkflowRun, error) { return tx.WorkflowRuns(1, second.ID) }))
}
