package parley

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// conversationPatchPaths lists the allowed operations, for messages.
const conversationPatchPaths = "replace /subject, replace /status, replace or remove /assignTo, " +
	"move or replace /mailboxId, replace /primaryCustomer.id, replace /draft (a boolean: publishes)"

// conversationPatcher applies operations to one conversation; the line
// items it records are stored when every operation passed.
type conversationPatcher struct {
	tx      Tx
	caller  Caller
	c       *Conversation
	threads []Thread
	items   []Thread
	now     time.Time
}

// conversationPatches is PATCH /v2/conversations/{id}'s table.
var conversationPatches = patchTable[*conversationPatcher]{
	{OpReplace, "/subject"}:            (*conversationPatcher).subject,
	{OpReplace, "/status"}:             (*conversationPatcher).status,
	{OpReplace, "/assignTo"}:           (*conversationPatcher).assign,
	{OpRemove, "/assignTo"}:            (*conversationPatcher).unassign,
	{OpMove, "/mailboxId"}:             (*conversationPatcher).mailbox,
	{OpReplace, "/mailboxId"}:          (*conversationPatcher).mailbox,
	{OpReplace, "/primaryCustomer.id"}: (*conversationPatcher).customer,
	{OpReplace, "/draft"}:              (*conversationPatcher).publish,
}

// PatchConversation applies PATCH /v2/conversations/{id}. Every operation
// is checked before anything changes; changes of status, assignee and
// mailbox leave a line item in the history.
func PatchConversation(tx Tx, caller Caller, id int64, ops []PatchOp, now time.Time) error {
	c, err := LoadConversation(tx, caller, id, now)
	if err != nil {
		return err
	}
	was := *c
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	p := &conversationPatcher{tx: tx, caller: caller, c: c, threads: threads, now: now}
	if err := conversationPatches.apply(p, ops, conversationPatchPaths); err != nil {
		return err
	}
	for i := range p.items {
		if err := tx.PutThread(&p.items[i]); err != nil {
			return err
		}
	}
	if was.State == StateDraft && c.State == StatePublished {
		if err := queueReplies(tx, c, threads, now); err != nil {
			return err
		}
	}
	if err := saveConversation(tx, c, now); err != nil {
		return err
	}
	if err := emitPatched(tx, was, c, now); err != nil {
		return err
	}
	return notifyChanges(tx, caller.User.ID, was, c, nil, now)
}

// lineItem records a line item with the status it set (nochange otherwise)
// and the assignee it made, as the real thread object does.
func (p *conversationPatcher) lineItem(typ, text string) {
	c := p.c
	status, assignee := StatusNoChange, (*Party)(nil)
	switch typ {
	case "changed-ticket-status":
		status = c.Status
	case "assigned":
		if c.Assignee != nil {
			a := *c.Assignee // a later operation may reassign
			assignee = &a
		}
	}
	p.items = append(p.items, Thread{ConversationID: c.ID, CompanyID: c.CompanyID, Type: ThreadLineItem, State: ThreadPublished, Status: status,
		CreatedBy: Party{ID: p.caller.User.ID, Type: PartyUser}, AssignedTo: assignee, CreatedAt: p.now, Action: &Action{Type: typ, Text: text}})
}

// patchValue reads operation i's value into v.
func patchValue(i int, op PatchOp, v any) error {
	if err := UnmarshalValue(op.Value, v); err != nil || len(op.Value) == 0 {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeInvalidJSON, "missing or mistyped value for "+op.Path, nil)
	}
	return nil
}

func (p *conversationPatcher) subject(i int, op PatchOp) error {
	var s string
	if err := patchValue(i, op, &s); err != nil {
		return err
	}
	if strings.TrimSpace(s) == "" || len([]rune(s)) > MaxSubjectLength {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeEmptyValue, "the subject may not be empty", s)
	}
	p.c.Subject = strings.TrimSpace(s)
	return nil
}

func (p *conversationPatcher) status(i int, op PatchOp) error {
	var s string
	if err := patchValue(i, op, &s); err != nil {
		return err
	}
	if !slices.Contains(ThreadStatuses, s) {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeEnumValue, "must be one of: "+strings.Join(ThreadStatuses, ", "), s)
	}
	if Status(s) != p.c.Status {
		setStatus(p.c, Status(s), p.caller.User.ID, p.now)
		p.lineItem("changed-ticket-status", "Marked as "+s)
	}
	return nil
}

func (p *conversationPatcher) assign(i int, op PatchOp) error {
	var uid int64
	if err := patchValue(i, op, &uid); err != nil {
		return err
	}
	u, err := p.tx.User(p.c.CompanyID, uid)
	if err != nil || !u.Active {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeConversationOwner, "is not a user of the account", uid)
	}
	p.c.Assignee = &Party{ID: u.ID, Type: PartyUser}
	p.lineItem("assigned", "Assigned to "+u.Name())
	return nil
}

func (p *conversationPatcher) unassign(int, PatchOp) error {
	if p.c.Assignee != nil {
		p.c.Assignee = nil
		p.lineItem("assigned", "Unassigned")
	}
	return nil
}

func (p *conversationPatcher) mailbox(i int, op PatchOp) error {
	var mid int64
	if err := patchValue(i, op, &mid); err != nil {
		return err
	}
	m, err := p.tx.Mailbox(p.c.CompanyID, mid)
	if err != nil || !p.caller.User.CanAccessMailbox(m.ID) {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeInvalidID, "no mailbox with this id", mid)
	}
	if m.ID != p.c.MailboxID {
		p.c.MailboxID = m.ID
		p.c.CustomFields = keepFieldsOf(m, p.c.CustomFields)
		p.lineItem("moved-from-mailbox", "Moved to "+m.Name)
	}
	return nil
}

func (p *conversationPatcher) customer(i int, op PatchOp) error {
	var cid int64
	if err := patchValue(i, op, &cid); err != nil {
		return err
	}
	cu, err := p.tx.Customer(p.c.CompanyID, cid)
	if err != nil {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeInvalidID, "no customer with this id", cid)
	}
	p.c.CustomerID = cu.ID
	return nil
}

// publish publishes a draft. Help Scout documents "Publish draft: replace
// /draft, Boolean" without saying which; its own PHP client sends true,
// others false. A draft cannot be made again, so either publishes.
func (p *conversationPatcher) publish(i int, op PatchOp) error {
	var draft bool
	if err := patchValue(i, op, &draft); err != nil {
		return err
	}
	if p.c.State != StateDraft {
		return nil
	}
	p.c.State = StatePublished
	for j := range p.threads {
		t := &p.threads[j]
		if t.State == ThreadDraft && t.Scheduled == nil {
			t.markSent(p.now)
			t.State, t.CreatedAt = ThreadPublished, p.now
			if err := p.tx.PutThread(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// keepFieldsOf keeps the custom field values the mailbox defines.
func keepFieldsOf(m *Mailbox, values []FieldValue) []FieldValue {
	var out []FieldValue
	for _, v := range values {
		if _, ok := m.Field(v.ID); ok {
			out = append(out, v)
		}
	}
	return out
}

// ReplaceTags sets a conversation's tags, creating names on first use.
func ReplaceTags(tx Tx, caller Caller, id int64, names []string, now time.Time) error {
	p := &Problems{}
	if names == nil {
		p.Add("tags", CodeNullValue, "may not be null", nil)
	}
	checkTagNames(p, names)
	if err := p.Err(); err != nil {
		return err
	}
	c, err := LoadConversation(tx, caller, id, now)
	if err != nil {
		return err
	}
	was := c.TagIDs
	if c.TagIDs, err = resolveTags(tx, c.CompanyID, names, now); err != nil {
		return err
	}
	if err := saveConversation(tx, c, now); err != nil { // bumps modifiedAt
		return err
	}
	if sameIDs(was, c.TagIDs) {
		return nil
	}
	return emitPublished(tx, EventConvoTags, c, now)
}

// ReplaceFields sets a conversation's custom field values, validated
// against its mailbox's definitions; every required field must be given.
func ReplaceFields(tx Tx, caller Caller, id int64, in []FieldValueInput, now time.Time) error {
	p := &Problems{}
	if in == nil {
		p.Add("fields", CodeNullValue, "may not be null", nil)
	}
	for i, f := range in {
		if f.ID == nil || f.Value == nil {
			p.Add(fmt.Sprintf("fields[%d]", i), CodeNullValue, "id and value may not be null", nil)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	c, err := LoadConversation(tx, caller, id, now)
	if err != nil {
		return err
	}
	m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return err
	}
	values, err := ValidateFieldValues(m, in)
	if err != nil {
		return err
	}
	for _, def := range m.Fields {
		found := false
		for _, v := range values {
			found = found || (v.ID == def.ID && v.Value != "")
		}
		if def.Required && !found {
			p.Add("fields", CodeEmptyValue, fmt.Sprintf("the required field %q (id %d) needs a value", def.Name, def.ID), nil)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	was := c.CustomFields
	c.CustomFields = values
	if err := saveConversation(tx, c, now); err != nil {
		return err
	}
	if slices.Equal(was, values) {
		return nil
	}
	return emitPublished(tx, EventConvoCustomFields, c, now)
}

// DeleteConversation moves a conversation to the deleted state: gone from
// lists, search and reads.
func DeleteConversation(tx Tx, caller Caller, id int64, now time.Time) error {
	c, err := LoadConversation(tx, caller, id, now)
	if err != nil {
		return err
	}
	if err := dropLater(tx, c); err != nil {
		return err
	}
	published := c.State == StatePublished
	c.State = StateDeleted
	c.ModifiedAt = now
	if err := tx.PutConversation(c); err != nil || !published {
		return err
	}
	return emit(tx, EventConvoDeleted, c.CompanyID, c.ID, now)
}

// dropLater removes the conversation's snooze, thread schedules and
// workflow wake-up.
func dropLater(tx Tx, c *Conversation) error {
	if err := tx.DeleteLater(c.CompanyID, LaterWorkflow, c.ID); err != nil {
		return err
	}
	if c.Snooze != nil {
		c.Snooze = nil
		if err := tx.DeleteLater(c.CompanyID, LaterSnooze, c.ID); err != nil {
			return err
		}
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	return cancelSchedules(tx, threads)
}

// threadPatches is PATCH .../threads/{threadId}'s table.
var threadPatches = patchTable[*Thread]{
	{OpReplace, "/text"}:   patchThreadText,
	{OpReplace, "/hidden"}: patchThreadHidden,
}

// PatchThread applies PATCH .../threads/{threadId}: `replace /text` keeps
// the original text; `replace /hidden` hides or shows the thread.
func PatchThread(tx Tx, caller Caller, convID, threadID int64, ops []PatchOp, now time.Time) error {
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	if err := threadPatches.apply(t, ops, "replace /text, replace /hidden"); err != nil {
		return err
	}
	if err := tx.PutThread(t); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}

func patchThreadText(t *Thread, i int, op PatchOp) error {
	var text string
	if json.Unmarshal(op.Value, &text) != nil || strings.TrimSpace(text) == "" {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeEmptyValue, "the text may not be empty", nil)
	}
	if t.OriginalBody == "" {
		t.OriginalBody = t.Body
	}
	t.Body = text
	return nil
}

func patchThreadHidden(t *Thread, i int, op PatchOp) error {
	var hidden bool
	if UnmarshalValue(op.Value, &hidden) != nil {
		return InvalidField(fmt.Sprintf("[%d].value", i), CodeInvalidJSON, "must be true or false", nil)
	}
	switch {
	case hidden && t.State == ThreadPublished:
		t.State = ThreadHidden
	case !hidden && t.State == ThreadHidden:
		t.State = ThreadPublished
	}
	return nil
}
