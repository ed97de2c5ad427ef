package parley

import (
	"encoding/json"
	"fmt"
	"time"
)

// LaterKind is what a "later" item wakes: a snoozed conversation, a
// scheduled thread, or a conversation's automatic workflows whose time
// conditions come true.
type LaterKind string

// Later item kinds.
const (
	LaterSnooze    LaterKind = "snooze"
	LaterScheduled LaterKind = "scheduled"
	// LaterWorkflow wakes a conversation's automatic workflows (one
	// wake-up per conversation, at the earliest instant one of them will
	// match; see package workflow). It is the engine's bookkeeping, not
	// counted against the company's limit.
	LaterWorkflow LaterKind = "workflow"
)

// LaterItem is one pending wake-up. ID is the conversation (snooze,
// workflow) or the thread (scheduled).
type LaterItem struct {
	CompanyID      int64     `json:"companyId"`
	Kind           LaterKind `json:"kind"`
	ID             int64     `json:"id"`
	ConversationID int64     `json:"conversationId"`
	At             time.Time `json:"at"`
	// WorkflowIDs are, for a workflow wake-up, the automatic workflows
	// whose conditions start to match the conversation at At.
	WorkflowIDs []int64 `json:"workflowIds,omitempty"`
	// Ran are, for a workflow wake-up, the automatic workflows that ran
	// on the conversation since it was last changed other than by the
	// workflows themselves: they do not run on it again until it is (see
	// package workflow).
	Ran []int64 `json:"ran,omitempty"`
	// Attempts counts the writes that failed to fire the item (see
	// WakeFailed).
	Attempts int `json:"attempts,omitempty"`
}

// WorkflowWaker fires a due workflow wake-up in the scheduler's
// transaction: the domain cannot evaluate conditions (package workflow
// does, with the search oracle).
type WorkflowWaker func(tx Tx, item LaterItem, now time.Time) error

// DefaultLaterLimit caps a company's snoozed conversations plus scheduled
// threads when the company sets no limit of its own.
const DefaultLaterLimit = 1000

// ScheduleRequest is the body of PUT .../threads/{threadId}/schedule.
type ScheduleRequest struct {
	ScheduledFor              *string `json:"scheduledFor"`
	UnscheduleOnCustomerReply bool    `json:"unscheduleOnCustomerReply"`
	// SendAsCreator sends the reply as the draft's author; by default
	// (false) it goes out as the user who scheduled it (Help Scout's
	// Update Thread Schedule).
	SendAsCreator bool `json:"sendAsCreator"`
}

// futureTime reads a required timestamp that must be after now.
func futureTime(name string, v *string, now time.Time) (time.Time, error) {
	p := &Problems{}
	if v == nil {
		p.Add(name, CodeNullValue, "may not be null", nil)
		return time.Time{}, p.Err()
	}
	t, ok := ParseTime(*v)
	switch {
	case !ok:
		p.Add(name, CodeMalformedDate, "must be ISO 8601 yyyy-MM-dd'T'HH:mm:ss'Z'", *v)
	case !t.After(now):
		p.Add(name, CodeValueNotSupported, "must be in the future", *v)
	}
	return t, p.Err()
}

// checkLaterLimit refuses a new later item past the company's cap.
func checkLaterLimit(tx Tx, company *Company) error {
	n, err := tx.CountLater(company.ID)
	if err != nil {
		return err
	}
	limit := company.LaterLimit
	if limit == 0 {
		limit = DefaultLaterLimit
	}
	if n >= limit {
		return InvalidField("", CodeLaterLimit, fmt.Sprintf("at most %d conversations can be snoozed or scheduled; wait for some to wake", limit), nil)
	}
	return nil
}

// ScheduleThread schedules a draft reply to be published at a time.
func ScheduleThread(tx Tx, caller Caller, convID, threadID int64, r *ScheduleRequest, now time.Time) error {
	at, err := futureTime("scheduledFor", r.ScheduledFor, now)
	if err != nil {
		return err
	}
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	if t.State != ThreadDraft || t.Type != ThreadMessage {
		return InvalidID("threadId", CodeValueNotSupported, "only a draft reply can be scheduled", threadID)
	}
	if t.Scheduled == nil {
		if err := checkLaterLimit(tx, caller.Company); err != nil {
			return err
		}
	}
	t.Scheduled = &Schedule{For: at, By: caller.User.ID, UnscheduleOnCustomerReply: r.UnscheduleOnCustomerReply, SendAsCreator: r.SendAsCreator}
	t.markSent(now)
	if err := tx.PutThread(t); err != nil {
		return err
	}
	if err := tx.PutLater(LaterItem{CompanyID: c.CompanyID, Kind: LaterScheduled, ID: t.ID, ConversationID: c.ID, At: at}); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}

// UnscheduleThread cancels a thread's schedule; the thread stays a draft.
func UnscheduleThread(tx Tx, caller Caller, convID, threadID int64, now time.Time) error {
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	if t.Scheduled == nil {
		return NotFound("schedule")
	}
	if err := cancelSchedules(tx, []Thread{*t}); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}

// cancelSchedules removes the schedule of the given threads that have one.
func cancelSchedules(tx Tx, threads []Thread) error {
	for i := range threads {
		t := &threads[i]
		if t.Scheduled == nil {
			continue
		}
		t.Scheduled = nil
		if err := tx.PutThread(t); err != nil {
			return err
		}
		if err := tx.DeleteLater(t.CompanyID, LaterScheduled, t.ID); err != nil {
			return err
		}
	}
	return nil
}

// cancelSchedulesOnReply cancels the schedules that ask to be cancelled by
// a customer reply.
func cancelSchedulesOnReply(tx Tx, threads []Thread) error {
	var due []Thread
	for _, t := range threads {
		if t.Scheduled != nil && t.Scheduled.UnscheduleOnCustomerReply {
			due = append(due, t)
		}
	}
	return cancelSchedules(tx, due)
}

// WakeItem fires one wake-up listed as due at now, in a write of its
// own: it ends a snooze, publishes a scheduled thread, or fires (through
// wake) a workflow wake-up. The item is taken (TakeLater) in the same
// transaction, so it fires once; false means it was no longer there to
// take (fired by another node, moved or removed by a write since it was
// listed).
func WakeItem(tx Tx, due LaterItem, now time.Time, wake WorkflowWaker) (bool, error) {
	it, ok, err := tx.TakeLater(due.CompanyID, due.Kind, due.ID, now)
	if err != nil || !ok {
		return false, err
	}
	if it.Kind == LaterWorkflow {
		return true, wake(tx, it, now)
	}
	c, err := tx.Conversation(it.CompanyID, it.ConversationID)
	if IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return true, err
	}
	var sent *Thread
	switch it.Kind {
	case LaterSnooze:
		c.Snooze = nil
	case LaterScheduled:
		t, err := findThread(tx, c, it.ID)
		if IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return true, err
		}
		if err := publishScheduled(tx, c, t, it.At, now); err != nil {
			return true, err
		}
		sent = t
	}
	if err := saveConversation(tx, c, now); err != nil {
		return true, err
	}
	if kind := threadEvent(sent); kind != "" {
		return true, emitPublished(tx, kind, c, now)
	}
	return true, nil
}

// A wake-up whose write failed is dealt with in a write of its own, so it
// holds up no other item and no other company, and it is not retried
// forever: a refusal (the domain's answer, which the same write would get
// again) drops it at once; any other failure moves it WakeRetry later,
// doubling with each attempt, and drops it after MaxWakeAttempts.
const (
	MaxWakeAttempts = 5
	WakeRetry       = time.Minute
)

// WakeFailed deals with a wake-up listed as due at now whose write failed
// with cause: it moves the item later, or drops it and leaves a line item
// on the conversation saying what was not done and why. It returns the
// item as it left it (dropped or moved), and false when the item was no
// longer there to take.
func WakeFailed(tx Tx, due LaterItem, cause error, now time.Time) (it LaterItem, dropped, ok bool, err error) {
	it, ok, err = tx.TakeLater(due.CompanyID, due.Kind, due.ID, now)
	if err != nil || !ok {
		return it, false, ok, err
	}
	it.Attempts++
	if IsFailure(cause) && it.Attempts < MaxWakeAttempts {
		it.At = now.Add(WakeRetry << (it.Attempts - 1))
		return it, false, true, tx.PutLater(it)
	}
	return it, true, true, noteDropped(tx, it, cause, now)
}

// noteDropped leaves on the conversation of a dropped wake-up a line item
// by the account owner (who automatic workflows act as) saying what was not
// done, and why.
func noteDropped(tx Tx, it LaterItem, cause error, now time.Time) error {
	c, err := tx.Conversation(it.CompanyID, it.ConversationID)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	owner, err := AccountOwner(tx, it.CompanyID)
	if err != nil || owner.User == nil {
		return err
	}
	why := Reason(cause)
	var actions []Action
	switch it.Kind {
	case LaterSnooze:
		actions = []Action{{Type: "scheduler", Text: "Snooze could not end: " + why}}
	case LaterScheduled:
		actions = []Action{{Type: "scheduler", Text: "Scheduled reply could not be sent: " + why}}
	case LaterWorkflow:
		for _, id := range it.WorkflowIDs {
			if w, err := tx.Workflow(it.CompanyID, id); err == nil {
				actions = append(actions, Action{Type: "workflow", Text: "Workflow " + w.Name + " skipped: " + why})
			}
		}
	}
	for _, a := range actions {
		if err := putLineItem(tx, c, owner.User, a, now); err != nil {
			return err
		}
	}
	return nil
}

// publishScheduled turns a scheduled draft into a published reply at a
// time: by the user who scheduled it, unless it was scheduled to be sent as
// its creator. Every way a schedule is published (the wake-up, PATCH
// .../schedule) comes here, so the reply's e-mail is queued once, here.
func publishScheduled(tx Tx, c *Conversation, t *Thread, at, now time.Time) error {
	if s := t.Scheduled; s != nil && !s.SendAsCreator && s.By != 0 {
		t.CreatedBy = Party{ID: s.By, Type: PartyUser}
	}
	t.Scheduled, t.State, t.CreatedAt = nil, ThreadPublished, at
	if err := tx.PutThread(t); err != nil {
		return err
	}
	return queueReply(tx, c, t, now)
}

// PublishSchedule applies PATCH .../threads/{threadId}/schedule: the one
// operation `replace /state published` sends a scheduled draft now (Help
// Scout's Publish Thread Schedule). A thread without a schedule is 404.
func PublishSchedule(tx Tx, caller Caller, convID, threadID int64, ops []PatchOp, now time.Time) error {
	for i, op := range ops {
		if op.Op != OpReplace || op.Path != "/state" || i > 0 {
			return patchRefused(i, op, "replace /state with \"published\", once")
		}
		var v string
		if json.Unmarshal(op.Value, &v) != nil || v != "published" {
			return InvalidField(fmt.Sprintf("[%d].value", i), CodeValueNotSupported, "must be \"published\"", string(op.Value))
		}
	}
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	if t.Scheduled == nil {
		return NotFound("schedule")
	}
	if err := tx.DeleteLater(c.CompanyID, LaterScheduled, t.ID); err != nil {
		return err
	}
	t.markSent(now)
	if err := publishScheduled(tx, c, t, now, now); err != nil {
		return err
	}
	if err := saveConversation(tx, c, now); err != nil {
		return err
	}
	if kind := threadEvent(t); kind != "" {
		return emitPublished(tx, kind, c, now)
	}
	return nil
}
