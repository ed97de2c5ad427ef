package storage

import (
	"bytes"

	parley "github.com/parley/parley"
)

// bucketWorkflows keys workflows by (company id, workflow id), so a
// company's workflows are one prefix; bucketWorkflowRuns keys the run log
// by (workflow id, run id).
var (
	bucketWorkflows    = newBucket("workflows")
	bucketWorkflowRuns = newBucket("workflow_runs")
)

var _ parley.WorkflowStore = (*Tx)(nil)

// Workflow loads a company's workflow.
func (t *Tx) Workflow(companyID, id int64) (*parley.Workflow, error) {
	w := new(parley.Workflow)
	found, err := t.get(bucketWorkflows, key2(companyID, id), w)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("workflow")
	}
	return w, nil
}

// Workflows lists a company's workflows in id order.
func (t *Tx) Workflows(companyID int64) ([]parley.Workflow, error) {
	return prefixed[parley.Workflow](t, bucketWorkflows, key(companyID))
}

// PutWorkflow stores a workflow, assigning an id when ID is 0.
func (t *Tx) PutWorkflow(w *parley.Workflow) error {
	if w.ID == 0 {
		id, err := t.nextID(bucketWorkflows)
		if err != nil {
			return err
		}
		w.ID = id
	}
	return t.put(bucketWorkflows, key2(w.CompanyID, w.ID), w)
}

// DeleteWorkflow removes a workflow and its run log.
func (t *Tx) DeleteWorkflow(w *parley.Workflow) error {
	prefix := key(w.ID)
	b := t.tx.Bucket(bucketWorkflowRuns)
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return t.tx.Bucket(bucketWorkflows).Delete(key2(w.CompanyID, w.ID))
}

// PutWorkflowRun appends a run to its workflow's log, assigning an id
// when ID is 0.
func (t *Tx) PutWorkflowRun(r *parley.WorkflowRun) error {
	if err := t.assignOrKeepID(bucketWorkflowRuns, &r.ID); err != nil {
		return err // a run with its id (a copy) keeps it
	}
	return t.put(bucketWorkflowRuns, key2(r.WorkflowID, r.ID), r)
}

// WorkflowRuns lists a company workflow's runs, oldest first.
func (t *Tx) WorkflowRuns(companyID, workflowID int64) ([]parley.WorkflowRun, error) {
	runs, err := prefixed[parley.WorkflowRun](t, bucketWorkflowRuns, key(workflowID))
	out := runs[:0]
	for _, r := range runs {
		if r.CompanyID == companyID {
			out = append(out, r)
		}
	}
	return out, err
}

// prefixed decodes the values of bucket whose keys start with prefix, in
// key order.
func prefixed[T any](t *Tx, bucket, prefix []byte) ([]T, error) {
	var out []T
	c := t.tx.Bucket(bucket).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		rec := new(T)
		if _, err := t.get(bucket, k, rec); err != nil {
			return nil, err
		}
		out = append(out, *rec)
	}
	return out, nil
}
