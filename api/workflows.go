package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/workflow"
)

// workflowView is a workflow as the real API lists it; a single read adds
// Parley's conditions and actions.
type workflowView struct {
	Links      selfLinks                `json:"_links"`
	Actions    *[]parley.WorkflowAction `json:"actions,omitempty"`
	Conditions *[]string                `json:"conditions,omitempty"`
	CreatedAt  string                   `json:"createdAt"`
	ID         int64                    `json:"id"`
	MailboxID  int64                    `json:"mailboxId"`
	ModifiedAt string                   `json:"modifiedAt"`
	Name       string                   `json:"name"`
	Order      int                      `json:"order"`
	Status     string                   `json:"status"`
	Type       string                   `json:"type"`
}

// workflowItem is a workflow as the real API lists it, with its own link;
// full adds Parley's conditions and actions.
func (s *Server) workflowItem(c *gin.Context, w *parley.Workflow, full bool) *workflowView {
	item := &workflowView{Links: selfLinks{link(s.url(c, "v2", "workflows", w.ID))}, ID: w.ID, MailboxID: w.MailboxID, Type: w.Type, Status: w.Status, Order: w.Order,
		Name: w.Name, CreatedAt: parley.FormatTime(w.CreatedAt), ModifiedAt: parley.FormatTime(w.ModifiedAt)}
	if full {
		item.Conditions, item.Actions = &w.Conditions, &w.Actions
	}
	return item
}

// workflowRunView is one entry of a workflow's run log.
type workflowRunView struct {
	At             string `json:"at"`
	ConversationID int64  `json:"conversationId"`
	ID             int64  `json:"id"`
	Matched        bool   `json:"matched"`
	Trigger        string `json:"trigger"`
}

// listWorkflows handles GET /v2/workflows: paged, filtered by mailboxId and
// type, in the real API's shape.
func (s *Server) listWorkflows(c *gin.Context) error {
	p := readParams(c, "page", "mailboxId", "type")
	var f parley.WorkflowFilter
	if id := p.id("mailboxId"); id != nil {
		f.MailboxID = *id
	}
	f.Type = p.enum("type", "", parley.WorkflowTypes)
	return listRecords(s, c, p, "workflows",
		func(tx parley.Tx, _ int64) ([]parley.Workflow, error) { return parley.WorkflowsOf(tx, caller(c), f) }, nil,
		func(w *parley.Workflow) (*workflowView, error) { return s.workflowItem(c, w, false), nil })
}

// getWorkflow handles GET /v2/workflows/{id} (Parley's own).
func (s *Server) getWorkflow(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	if err == nil {
		err = readParams(c).err()
	}
	var w *parley.Workflow
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			w, err = parley.LoadWorkflow(tx, caller(c), id)
			return err
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.workflowItem(c, w, true))
	return nil
}

// createWorkflow handles POST /v2/workflows (Parley's own): 201 with
// Resource-ID and Location.
func (s *Server) createWorkflow(c *gin.Context) error {
	var in parley.WorkflowInput
	err := decodeJSON(c, &in)
	var w *parley.Workflow
	if err == nil {
		err = s.write(c, func(tx parley.Tx) (err error) {
			w, err = parley.CreateWorkflow(tx, caller(c), &in, workflow.Check, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	s.created(c, w.ID, s.url(c, "v2", "workflows", w.ID))
	return nil
}

// updateWorkflow handles PUT /v2/workflows/{id} (Parley's own): 204.
func (s *Server) updateWorkflow(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	var in parley.WorkflowInput
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.UpdateWorkflow(tx, caller(c), id, &in, workflow.Check, s.now())
		})
	}
	return s.noContent(c, err)
}

// patchWorkflow handles PATCH /v2/workflows/{id}: `replace /status`.
func (s *Server) patchWorkflow(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	var body []byte
	if err == nil {
		body, err = readJSON(c, MaxBodyBytes)
	}
	var ops []parley.PatchOp
	if err == nil {
		ops, err = parley.ParsePatch(body)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.PatchWorkflow(tx, caller(c), id, ops, s.now()) })
	}
	return s.noContent(c, err)
}

// deleteWorkflow handles DELETE /v2/workflows/{id} (Parley's own): 204.
func (s *Server) deleteWorkflow(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.DeleteWorkflow(tx, caller(c), id) })
	}
	return s.noContent(c, err)
}

// runWorkflow handles POST /v2/workflows/{id}/run with {conversationIds}:
// a manual workflow on at most 50 conversations of its mailbox; 204.
func (s *Server) runWorkflow(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	var in parley.WorkflowRunRequest
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			w, err := parley.CheckWorkflowRun(tx, tx, caller(c), id, &in, s.now())
			if err != nil {
				return err
			}
			return workflow.Run(tx, caller(c), w, in.ConversationIDs, s.now())
		})
	}
	return s.noContent(c, err)
}

// listWorkflowRuns handles GET /v2/workflows/{id}/runs (Parley's own): the
// run log, oldest first, paged.
func (s *Server) listWorkflowRuns(c *gin.Context) error {
	id, err := pathID(c, "workflowId")
	if err != nil {
		return err
	}
	return listRecords(s, c, readParams(c, "page"), "runs",
		func(tx parley.Tx, companyID int64) ([]parley.WorkflowRun, error) {
			if _, err := parley.LoadWorkflow(tx, caller(c), id); err != nil {
				return nil, err
			}
			return tx.WorkflowRuns(companyID, id)
		}, nil,
		func(r *parley.WorkflowRun) (workflowRunView, error) {
			return workflowRunView{ID: r.ID, ConversationID: r.ConversationID, Trigger: r.Trigger, Matched: r.Matched,
				At: parley.FormatTime(r.At)}, nil
		})
}

// noContent answers 204, or the error.
func (s *Server) noContent(c *gin.Context, err error) error {
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
