// Package workflow runs Parley's workflows and evaluates saved views: it
// checks their conditions and queries with the query checker, matches them
// against one conversation with the scan oracle's evaluation over the
// conversation's index document (built by indexer.ConversationDocument, so
// a condition matches exactly what the same search finds), and applies
// workflows' actions through the domain. Manual runs come from the API;
// automatic runs come from the domain events of each write, in the
// write's own transaction (see Engine.BeforeCommit).
package workflow

import (
	"slices"
	"strconv"
	"sync"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
	"github.com/parley/parley/search"
)

// Check is the parley.ConditionChecker: the condition must parse and check
// against the conversation schema of the workflow's mailbox (its custom
// fields included). The error message names the column.
func Check(m *parley.Mailbox, condition string) error {
	_, err := compile(m, condition, time.Now())
	return err
}

var _ parley.ConditionChecker = Check

// compile parses and checks a condition, resolving date math at now.
func compile(m *parley.Mailbox, condition string, now time.Time) (query.Node, error) {
	return search.Compile([]parley.Mailbox{*m}, condition, now)
}

// Matches reports whether every condition of w holds for the conversation,
// evaluated as the scan oracle evaluates a search at now. A conversation
// that is not searchable (deleted) matches nothing; so does a condition
// that no longer checks (a custom field since removed from the mailbox).
func Matches(tx parley.Tx, w *parley.Workflow, convID int64, now time.Time) (bool, error) {
	doc, ok, err := indexer.ConversationDocument(tx, w.CompanyID, convID)
	if err != nil || !ok {
		return false, err
	}
	return matchDocument(newConditions(tx), w, doc, now)
}

// matchDocument is Matches over a conversation's document, built once for
// the workflows tried on it, with their conditions compiled once in cs.
func matchDocument(cs *conditions, w *parley.Workflow, doc index.Document, now time.Time) (bool, error) {
	if doc.Company != w.CompanyID {
		return false, nil
	}
	schema, syntax, ok, err := cs.of(w)
	if err != nil || !ok {
		return false, err
	}
	nodes, ok, err := checked(schema, syntax, now)
	if err != nil || !ok {
		return false, err
	}
	return scan.Match(doc, nodes...)
}

// Run runs a manual workflow on conversations the API already allowed
// (parley.CheckWorkflowRun): each matching conversation gets the actions
// and a line item; every conversation gets a line in the run log.
func Run(tx parley.Tx, caller parley.Caller, w *parley.Workflow, ids []int64, now time.Time) error {
	for _, id := range ids {
		ok, err := Matches(tx, w, id, now)
		if err != nil {
			return err
		}
		if err := record(tx, caller, w, id, ok, parley.WorkflowManual, now); err != nil {
			return err
		}
	}
	return nil
}

// record applies w when it matched and logs the run.
func record(tx parley.Tx, caller parley.Caller, w *parley.Workflow, convID int64, matched bool, trigger string, now time.Time) error {
	if matched {
		if err := parley.ApplyWorkflow(tx, caller, w, convID, now); err != nil {
			return err
		}
	}
	return tx.PutWorkflowRun(&parley.WorkflowRun{CompanyID: w.CompanyID, WorkflowID: w.ID,
		ConversationID: convID, Trigger: trigger, Matched: matched, At: now})
}

// Triggers are the events that run automatic workflows: a conversation
// created, a customer or user reply, a change of status, assignee or tags.
var Triggers = []string{parley.EventConvoCreated, parley.EventConvoCustomerReply, parley.EventConvoAgentReply,
	parley.EventConvoStatus, parley.EventConvoAssigned, parley.EventConvoTags}

// TriggerTime is the trigger of a run a workflow wake-up made: its
// conditions came true as time passed.
const TriggerTime = "time"

// touched is a conversation a write's events concern, with the first
// triggering event's kind ("" when none triggers workflows).
type touched struct {
	company, id int64
	trigger     string
}

// Engine runs automatic workflows inside write transactions, and when
// their time conditions come true (Wake).
type Engine struct {
	// Clock dates the runs; Now is read once per transaction.
	Clock parley.Clock
	// woken holds, for a transaction of Wake until it ends, the workflows
	// that ran on each conversation since it was last changed other than
	// by the workflows, the wake-up's included (parley.Tx -> woken), so the
	// automatic run its own changes trigger in the same transaction
	// (BeforeCommit) does not run them again.
	woken sync.Map
}

// BeforeCommit runs, in the transaction of a write, the automatic
// workflows the write's events trigger (storage.DB.SetBeforeCommit). For
// each conversation concerned, the active automatic workflows of its
// mailbox are tried in order until none that has not run yet matches: a
// workflow runs at most once per write, so workflows whose actions
// trigger each other stop instead of looping. Events the workflows'
// actions record go to webhooks as usual but do not trigger again: the
// hook is handed only the events the write recorded before it ran.
// Every conversation a write changed, triggering or not, then gets its
// workflow wake-up computed again (see schedule); the workflows that ran
// in the write are left out of it.
func (e *Engine) BeforeCommit(tx parley.Tx, events []parley.Event) error {
	var convs []touched
	for _, ev := range events {
		if parley.EventResource(ev.Kind) != parley.ResourceConversation || parley.IsDeleteEvent(ev.Kind) {
			continue
		}
		id, err := strconv.ParseInt(ev.ResourceID, 10, 64)
		if err != nil {
			continue
		}
		trigger := ""
		if slices.Contains(Triggers, ev.Kind) {
			trigger = ev.Kind
		}
		i := slices.IndexFunc(convs, func(c touched) bool { return c.company == ev.CompanyID && c.id == id })
		switch {
		case i < 0:
			convs = append(convs, touched{ev.CompanyID, id, trigger})
		case convs[i].trigger == "":
			convs[i].trigger = trigger
		}
	}
	if len(convs) == 0 {
		return nil
	}
	now := e.Clock.Now()
	woken := e.takeWoken(tx)
	for _, c := range convs {
		ran := woken[c.id]
		if ran == nil {
			ran = map[int64]bool{}
		}
		if err := runAutomatic(tx, c.company, c.id, c.trigger, ran, now); err != nil {
			return err
		}
	}
	return nil
}

// activeAutomatic lists a company's active automatic workflows by order.
func activeAutomatic(tx parley.Tx, companyID int64) ([]parley.Workflow, error) {
	all, err := tx.Workflows(companyID)
	if err != nil {
		return nil, err
	}
	var auto []parley.Workflow
	for _, w := range all {
		if w.Type == parley.WorkflowAutomatic && w.Status == parley.WorkflowActive {
			auto = append(auto, w)
		}
	}
	slices.SortStableFunc(auto, func(a, b parley.Workflow) int { return a.Order - b.Order })
	return auto, nil
}

// runAutomatic runs a conversation's automatic workflows to a fixpoint,
// each at most once (ran holds those that already ran: in the
// transaction, and in a wake-up's, since the conversation was last changed
// other than by the workflows), when trigger is set; then it schedules the
// conversation's wake-up, which keeps ran.
func runAutomatic(tx parley.Tx, companyID, convID int64, trigger string, ran map[int64]bool, now time.Time) error {
	auto, err := activeAutomatic(tx, companyID)
	if err != nil || len(auto) == 0 {
		return err
	}
	var caller parley.Caller
	if trigger != "" {
		if caller, err = parley.AccountOwner(tx, companyID); err != nil {
			return err
		}
	}
	var last *index.Document // of the conversation as the runs left it
	cs := newConditions(tx)
	for progressed := trigger != "" && caller.User != nil; progressed; {
		progressed = false
		c, err := tx.Conversation(companyID, convID)
		if parley.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		doc, ok, err := indexer.ConversationDocument(tx, companyID, convID)
		if err != nil || !ok {
			return err
		}
		last = &doc
		for i := range auto {
			w := &auto[i]
			if ran[w.ID] || w.MailboxID != c.MailboxID {
				continue
			}
			matched, err := matchDocument(cs, w, doc, now)
			if err != nil {
				return err
			}
			if matched {
				if err := record(tx, caller, w, convID, true, trigger, now); err != nil {
					return err
				}
				ran[w.ID], progressed = true, true
				break // the conversation changed: try the workflows again from the first
			}
		}
	}
	return schedule(cs, auto, companyID, convID, last, ran, now)
}
