package pgstore

import parley "github.com/parley/parley"

var (
	sqlWorkflow    = stmt(`SELECT w.body FROM workflows w WHERE w.company_id = $1 AND w.id = $2`)
	sqlWorkflows   = stmt(`SELECT w.body FROM workflows w WHERE w.company_id = $1 ORDER BY w.id`)
	sqlPutWorkflow = stmt(`INSERT INTO workflows (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteWorkflow = stmt(`DELETE FROM workflows w WHERE w.company_id = $1 AND w.id = $2`)

	sqlWorkflowRuns       = stmt(`SELECT r.body FROM workflow_runs r WHERE r.company_id = $1 AND r.workflow_id = $2 ORDER BY r.id`)
	sqlPutWorkflowRun     = stmt(`INSERT INTO workflow_runs (company_id, workflow_id, id, body) VALUES ($1, $2, $3, $4)`)
	sqlDeleteWorkflowRuns = stmt(`DELETE FROM workflow_runs r WHERE r.company_id = $1 AND r.workflow_id = $2`)
)

var _ parley.WorkflowStore = (*Tx)(nil)

// Workflow loads a company's workflow.
func (t *Tx) Workflow(companyID, id int64) (*parley.Workflow, error) {
	return one[parley.Workflow](t, "workflow", sqlWorkflow, companyID, id)
}

// Workflows lists a company's workflows in id order.
func (t *Tx) Workflows(companyID int64) ([]parley.Workflow, error) {
	return many[parley.Workflow](t, sqlWorkflows, companyID)
}

// PutWorkflow stores a workflow, assigning an id when ID is 0.
func (t *Tx) PutWorkflow(w *parley.Workflow) error {
	if err := t.assignID(seqWorkflows, &w.ID); err != nil {
		return err
	}
	return t.put(sqlPutWorkflow, w, w.CompanyID, w.ID)
}

// DeleteWorkflow removes a workflow and its run log.
func (t *Tx) DeleteWorkflow(w *parley.Workflow) error {
	if err := t.exec(sqlDeleteWorkflowRuns, w.CompanyID, w.ID); err != nil {
		return err
	}
	return t.exec(sqlDeleteWorkflow, w.CompanyID, w.ID)
}

// PutWorkflowRun appends a run to its workflow's log, assigning an id
// when ID is 0.
func (t *Tx) PutWorkflowRun(r *parley.WorkflowRun) error {
	if err := t.drawOrKeepID(seqWorkflowRuns, &r.ID); err != nil {
		return err // a run with its id (a copy) keeps it
	}
	return t.put(sqlPutWorkflowRun, r, r.CompanyID, r.WorkflowID, r.ID)
}

// WorkflowRuns lists a company workflow's runs, oldest first.
func (t *Tx) WorkflowRuns(companyID, workflowID int64) ([]parley.WorkflowRun, error) {
	return many[parley.WorkflowRun](t, sqlWorkflowRuns, companyID, workflowID)
}
