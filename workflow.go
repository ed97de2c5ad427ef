package parley

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Workflow is a mailbox's automation: when every condition (a Parley
// query, ANDed in order) matches a conversation, the actions apply in
// order. Manual workflows run when asked (POST /v2/workflows/{id}/run);
// automatic ones run on conversation writes. The conditions are checked
// by the query checker before a workflow is stored; the domain cannot
// import it, so the caller passes it in as a ConditionChecker.
type Workflow struct {
	ID         int64            `json:"id"`
	CompanyID  int64            `json:"companyId"`
	MailboxID  int64            `json:"mailboxId"`
	Name       string           `json:"name"`
	Type       string           `json:"type"`
	Status     string           `json:"status"`
	Order      int              `json:"order"`
	Conditions []string         `json:"conditions"`
	Actions    []WorkflowAction `json:"actions"`
	CreatedAt  time.Time        `json:"createdAt"`
	ModifiedAt time.Time        `json:"modifiedAt"`
}

// WorkflowAction is one action of a workflow; which fields it uses depends
// on its type (see WorkflowActionTypes).
type WorkflowAction struct {
	Type      string   `json:"type"`
	UserID    *int64   `json:"userId,omitempty"`
	Status    string   `json:"status,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	MailboxID int64    `json:"mailboxId,omitempty"`
	FieldID   int64    `json:"fieldId,omitempty"`
	Value     string   `json:"value,omitempty"`
	Text      string   `json:"text,omitempty"`
	// SavedReplyID names a saved reply of the workflow's mailbox.
	SavedReplyID int64 `json:"savedReplyId,omitempty"`
	// WebhookID names one of the account's webhooks (POST /v2/webhooks),
	// whose URL, secret, retries and delivery log the call uses.
	WebhookID int64 `json:"webhookId,omitempty"`
}

// Workflow types, statuses and action types.
const (
	WorkflowManual    = "manual"
	WorkflowAutomatic = "automatic"
	WorkflowActive    = "active"
	WorkflowInactive  = "inactive"

	ActionAssign     = "assign"      // userId: a user or a team; absent or 0 unassigns
	ActionStatus     = "status"      // status: active, pending, closed, spam
	ActionAddTags    = "add-tags"    // tags
	ActionRemoveTags = "remove-tags" // tags
	ActionMove       = "move"        // mailboxId
	ActionSetField   = "set-field"   // fieldId, value
	ActionNote       = "note"        // text
	ActionSavedReply = "saved-reply" // savedReplyId
	ActionWebhook    = "webhook"     // webhookId
)

// WorkflowTypes, WorkflowStatuses and WorkflowActionTypes are the allowed
// values, for validation messages.
var (
	WorkflowTypes       = []string{WorkflowManual, WorkflowAutomatic}
	WorkflowStatuses    = []string{WorkflowActive, WorkflowInactive}
	WorkflowActionTypes = []string{ActionAssign, ActionStatus, ActionAddTags, ActionRemoveTags, ActionMove, ActionSetField, ActionNote,
		ActionSavedReply, ActionWebhook}
)

// Limits of a workflow.
const (
	MaxWorkflowName       = 255
	MaxWorkflowConditions = 20
	MaxWorkflowCondition  = 2000 // characters of one condition
	MaxWorkflowActions    = 20
	MaxWorkflowRun        = 50 // conversations per POST /v2/workflows/{id}/run
)

// CodeCannotRunWorkflow is Help Scout's error code for a run the API refuses.
const CodeCannotRunWorkflow = "Cannot Run Workflow"

// CodeInvalidCondition is the code of a condition the query checker
// refuses; the same code as an invalid `query=` on a list.
const CodeInvalidCondition = "Invalid query"

// WorkflowInput is the body of creating or replacing a workflow.
type WorkflowInput struct {
	MailboxID  *int64           `json:"mailboxId"`
	Name       *string          `json:"name"`
	Type       *string          `json:"type"`
	Status     *string          `json:"status"`
	Order      *int             `json:"order"`
	Conditions []string         `json:"conditions"`
	Actions    []WorkflowAction `json:"actions"`
}

// ConditionChecker checks one condition (a Parley query) for a mailbox's
// conversations; its error message names the column.
type ConditionChecker func(mailbox *Mailbox, condition string) error

// WorkflowRun is one line of a workflow's run log: a workflow evaluated
// against a conversation, and whether it matched (and so acted).
type WorkflowRun struct {
	ID             int64     `json:"id"`
	CompanyID      int64     `json:"companyId"`
	WorkflowID     int64     `json:"workflowId"`
	ConversationID int64     `json:"conversationId"`
	Trigger        string    `json:"trigger"` // "manual" or the event kind that ran it
	Matched        bool      `json:"matched"`
	At             time.Time `json:"at"`
}

// WorkflowStore stores workflows and their run log.
type WorkflowStore interface {
	Mailbox(companyID, id int64) (*Mailbox, error)
	User(companyID, id int64) (*User, error)
	Team(companyID, id int64) (*Team, error)
	SavedReply(companyID, mailboxID, id int64) (*SavedReply, error)
	Webhook(companyID, id int64) (*Webhook, error)
	Workflow(companyID, id int64) (*Workflow, error)
	// Workflows lists a company's workflows in id order.
	Workflows(companyID int64) ([]Workflow, error)
	// PutWorkflow stores a workflow, assigning an id when ID is 0.
	PutWorkflow(w *Workflow) error
	DeleteWorkflow(w *Workflow) error
	// PutWorkflowRun appends to the run log, assigning an id when ID is 0.
	PutWorkflowRun(r *WorkflowRun) error
	// WorkflowRuns lists a workflow's runs, oldest first.
	WorkflowRuns(companyID, workflowID int64) ([]WorkflowRun, error)
}

// validate checks the input and every action's target; the conditions go
// through check. It returns the mailbox the workflow belongs to.
func (in *WorkflowInput) validate(tx WorkflowStore, caller Caller, check ConditionChecker) (*Mailbox, error) {
	p := &Problems{}
	var m *Mailbox
	if in.MailboxID == nil {
		p.Add("mailboxId", CodeNullValue, "may not be null", nil)
	} else {
		var err error
		if m, err = tx.Mailbox(caller.Company.ID, *in.MailboxID); err != nil || !caller.User.CanAccessMailbox(m.ID) {
			p.Add("mailboxId", CodeInvalidID, "no mailbox with this id", *in.MailboxID)
			m = nil
		}
	}
	requireString(p, "name", in.Name, MaxWorkflowName)
	requireEnum(p, "type", in.Type, WorkflowTypes)
	if in.Status != nil && !slices.Contains(WorkflowStatuses, *in.Status) {
		p.Add("status", CodeEnumValue, "must be one of: "+strings.Join(WorkflowStatuses, ", "), *in.Status)
	}
	if in.Order != nil && *in.Order < 0 {
		p.Add("order", CodeInvalidNumber, "must be a non-negative integer", *in.Order)
	}
	if len(in.Conditions) > MaxWorkflowConditions {
		p.Add("conditions", CodeSize, sizeMessage(0, MaxWorkflowConditions), nil)
	}
	if in.Type != nil && *in.Type == WorkflowAutomatic && len(in.Conditions) == 0 {
		p.Add("conditions", CodeEmptyValue, "an automatic workflow needs at least one condition", nil)
	}
	for i, cond := range in.Conditions {
		path := fmt.Sprintf("conditions[%d]", i)
		switch {
		case strings.TrimSpace(cond) == "":
			p.Add(path, CodeEmptyValue, "may not be empty", cond)
		case utf8.RuneCountInString(cond) > MaxWorkflowCondition:
			p.Add(path, CodeSize, sizeMessage(1, MaxWorkflowCondition), nil)
		case m != nil:
			if err := check(m, cond); err != nil {
				p.Add(path, CodeInvalidCondition, err.Error(), cond)
			}
		}
	}
	switch {
	case len(in.Actions) == 0:
		p.Add("actions", CodeEmptyValue, "a workflow needs at least one action", nil)
	case len(in.Actions) > MaxWorkflowActions:
		p.Add("actions", CodeSize, sizeMessage(1, MaxWorkflowActions), nil)
	}
	for i := range in.Actions {
		in.Actions[i].validate(p, fmt.Sprintf("actions[%d]", i), tx, caller, m)
	}
	return m, p.Err()
}

// LoadWorkflow loads a workflow of a mailbox the caller may use.
func LoadWorkflow(tx WorkflowStore, caller Caller, id int64) (*Workflow, error) {
	w, err := tx.Workflow(caller.Company.ID, id)
	if err != nil {
		return nil, err
	}
	if !caller.User.CanAccessMailbox(w.MailboxID) {
		return nil, NotFound("workflow")
	}
	return w, nil
}

// WorkflowFilter narrows a list of workflows; zero values keep all.
type WorkflowFilter struct {
	MailboxID int64
	Type      string
}

// WorkflowsOf lists the workflows of the mailboxes the caller may use, by
// mailbox, then order, then id.
func WorkflowsOf(tx WorkflowStore, caller Caller, f WorkflowFilter) ([]Workflow, error) {
	if f.Type != "" && !slices.Contains(WorkflowTypes, f.Type) {
		return nil, InvalidParameter("type", CodeEnumValue, "must be one of: "+strings.Join(WorkflowTypes, ", "), f.Type)
	}
	all, err := tx.Workflows(caller.Company.ID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, w := range all {
		if caller.User.CanAccessMailbox(w.MailboxID) && (f.MailboxID == 0 || w.MailboxID == f.MailboxID) && (f.Type == "" || w.Type == f.Type) {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b Workflow) int {
		return cmp.Or(cmp.Compare(a.MailboxID, b.MailboxID), cmp.Compare(a.Order, b.Order))
	})
	return out, nil
}

// CreateWorkflow validates and stores a new workflow; it starts active
// unless the input says otherwise.
func CreateWorkflow(tx WorkflowStore, caller Caller, in *WorkflowInput, check ConditionChecker, now time.Time) (*Workflow, error) {
	w := &Workflow{CompanyID: caller.Company.ID, CreatedAt: now}
	return w, w.apply(tx, caller, in, check, now)
}

// UpdateWorkflow replaces a workflow's definition, as PUT replaces.
func UpdateWorkflow(tx WorkflowStore, caller Caller, id int64, in *WorkflowInput, check ConditionChecker, now time.Time) error {
	w, err := LoadWorkflow(tx, caller, id)
	if err != nil {
		return err
	}
	return w.apply(tx, caller, in, check, now)
}

func (w *Workflow) apply(tx WorkflowStore, caller Caller, in *WorkflowInput, check ConditionChecker, now time.Time) error {
	if _, err := in.validate(tx, caller, check); err != nil {
		return err
	}
	w.MailboxID, w.Name, w.Type = *in.MailboxID, strings.TrimSpace(*in.Name), *in.Type
	w.Status, w.Order = WorkflowActive, 0
	if in.Status != nil {
		w.Status = *in.Status
	}
	if in.Order != nil {
		w.Order = *in.Order
	}
	w.Conditions = make([]string, len(in.Conditions))
	for i, c := range in.Conditions {
		w.Conditions[i] = strings.TrimSpace(c)
	}
	w.Actions, w.ModifiedAt = in.Actions, now
	return tx.PutWorkflow(w)
}

// DeleteWorkflow removes a workflow; its runs stay in conversations'
// histories.
func DeleteWorkflow(tx WorkflowStore, caller Caller, id int64) error {
	w, err := LoadWorkflow(tx, caller, id)
	if err != nil {
		return err
	}
	return tx.DeleteWorkflow(w)
}

// PatchWorkflow applies PATCH /v2/workflows/{id}: only `replace /status`
// with active or inactive, as the real API allows.
func PatchWorkflow(tx WorkflowStore, caller Caller, id int64, ops []PatchOp, now time.Time) error {
	w, err := LoadWorkflow(tx, caller, id)
	if err != nil {
		return err
	}
	for i, op := range ops {
		if op.Op != "replace" || op.Path != "/status" {
			return patchRefused(i, op, "replace /status")
		}
		var s string
		if err := UnmarshalValue(op.Value, &s); err != nil || !slices.Contains(WorkflowStatuses, s) {
			return InvalidField(fmt.Sprintf("[%d].value", i), CodeEnumValue, "must be one of: "+strings.Join(WorkflowStatuses, ", "), string(op.Value))
		}
		w.Status = s
	}
	w.ModifiedAt = now
	return tx.PutWorkflow(w)
}

// WorkflowRunRequest is the body of POST /v2/workflows/{id}/run.
type WorkflowRunRequest struct {
	ConversationIDs []int64 `json:"conversationIds"`
}

// CheckWorkflowRun loads a workflow the API may run on the conversations:
// a manual, active workflow, 1 to 50 conversations, every one in the
// workflow's mailbox. Anything else is Help Scout's Cannot Run Workflow.
func CheckWorkflowRun(tx Tx, wf WorkflowStore, caller Caller, id int64, r *WorkflowRunRequest, now time.Time) (*Workflow, error) {
	w, err := LoadWorkflow(wf, caller, id)
	if err != nil {
		return nil, err
	}
	refuse := func(path, msg string, rejected any) (*Workflow, error) {
		return nil, InvalidField(path, CodeCannotRunWorkflow, msg, rejected)
	}
	switch {
	case w.Type != WorkflowManual:
		return refuse("", "only manual workflows can run via the API", w.Type)
	case w.Status != WorkflowActive:
		return refuse("", "the workflow is inactive", w.Status)
	case len(r.ConversationIDs) == 0:
		return refuse("conversationIds", "at least one conversation id is needed", nil)
	case len(r.ConversationIDs) > MaxWorkflowRun:
		return refuse("conversationIds", "at most "+strconv.Itoa(MaxWorkflowRun)+" conversations per run", len(r.ConversationIDs))
	}
	for i, cid := range r.ConversationIDs {
		c, err := LoadConversation(tx, caller, cid, now)
		if err != nil || c.MailboxID != w.MailboxID {
			return refuse(fmt.Sprintf("conversationIds[%d]", i), "all conversation ids must belong to the workflow's inbox", cid)
		}
	}
	return w, nil
}

// ApplyWorkflow applies a matched workflow's actions to a conversation, in
// order, through the same domain rules as the API's own writes, then
// records the run as a line item "Workflow <name> ran". An action that
// cannot apply is skipped rather than failing the write that ran the
// workflow (a user's own write, or the scheduler's): one whose target went
// stale since the workflow was saved (a user deactivated, a mailbox or
// field removed) silently, and one the domain refuses (the conversation
// holds its 100 threads, or is locked as too old) with its reason on the
// line item. A refusal comes before the rule writes anything, so nothing
// of a skipped action is stored.
func ApplyWorkflow(tx Tx, caller Caller, w *Workflow, convID int64, now time.Time) error {
	text := "Workflow " + w.Name + " ran"
	for _, a := range w.Actions {
		c, err := tx.Conversation(caller.Company.ID, convID)
		if err != nil {
			return err
		}
		m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
		if err != nil {
			return err
		}
		stale := &Problems{}
		if a.validate(stale, "", tx, caller, m); !stale.Empty() {
			continue
		}
		if err := a.apply(tx, caller, convID, now); err != nil {
			if IsFailure(err) {
				return err
			}
			text += "; skipped " + a.Type + ": " + Reason(err)
		}
	}
	c, err := tx.Conversation(caller.Company.ID, convID)
	if err != nil {
		return err
	}
	return putLineItem(tx, c, caller.User, Action{Type: "workflow", Text: text, WorkflowID: w.ID}, now)
}

// putLineItem records a line item by a user that changes no status.
func putLineItem(tx Tx, c *Conversation, by *User, a Action, now time.Time) error {
	item := Thread{ConversationID: c.ID, CompanyID: c.CompanyID, Type: ThreadLineItem, State: ThreadPublished, Status: StatusNoChange,
		CreatedBy: Party{ID: by.ID, Type: PartyUser}, CreatedAt: now, Action: &a}
	return tx.PutThread(&item)
}

// AccountOwner is who automatic workflows and the scheduler act as: the
// account owner, who may use every mailbox, so their line items and notes
// have an author clients can resolve. Caller.User is nil when the company
// has no owner.
func AccountOwner(tx Tx, companyID int64) (Caller, error) {
	company, err := tx.Company(companyID)
	if err != nil {
		return Caller{}, err
	}
	users, err := tx.Users(companyID)
	if err != nil {
		return Caller{}, err
	}
	for i := range users {
		if users[i].Role == RoleOwner {
			return Caller{Company: company, User: &users[i]}, nil
		}
	}
	return Caller{Company: company}, nil
}
