package parley

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PatchOp is one JSON Patch operation (RFC 6902) of a PATCH request.
type PatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// ParsePatch reads a PATCH body: an array of operations, or a single
// operation object (the documented form of this API family, COMPAT.md).
func ParsePatch(body []byte) ([]PatchOp, error) {
	body = bytes.TrimSpace(body)
	var ops []PatchOp
	var err error
	if len(body) > 0 && body[0] == '{' {
		var op PatchOp
		err = json.Unmarshal(body, &op)
		ops = []PatchOp{op}
	} else {
		err = json.Unmarshal(body, &ops)
	}
	if err != nil {
		return nil, Invalid("JSON", "", CodeInvalidJSON, "the body must be a JSON Patch operation or an array of them", nil)
	}
	if len(ops) == 0 {
		return nil, Invalid("JSON", "", CodeEmptyValue, "at least one patch operation is needed", nil)
	}
	return ops, nil
}

func patchRefused(i int, op PatchOp, allowed string) error {
	return Invalid("JSON", fmt.Sprintf("[%d]", i), CodePatchOperation,
		fmt.Sprintf("%q on %q is not allowed; allowed: %s", op.Op, op.Path, allowed), op.Op+" "+op.Path)
}

// conversationPatchPaths lists the allowed operations, for messages.
const conversationPatchPaths = "replace /subject, replace /status, replace or remove /assignTo, " +
	"move or replace /mailboxId, replace /primaryCustomer.id, replace /draft (a boolean: publishes)"

// PatchConversation applies PATCH /v2/conversations/{id}. Every operation
// is checked before anything changes; changes of status, assignee and
// mailbox leave a line item in the history.
func PatchConversation(tx Tx, caller Caller, id int64, ops []PatchOp, now time.Time) error {
	c, err := LoadConversation(tx, caller, id, now)
	if err != nil {
		return err
	}
	was := *c
	threads, err := tx.Threads(c.ID)
	if err != nil {
		return err
	}
	var items []Thread
	// A line item records the status it set (nochange otherwise) and the
	// assignee it made, as the real thread object does.
	lineItem := func(typ, text string) {
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
		items = append(items, Thread{ConversationID: c.ID, CompanyID: c.CompanyID, Type: ThreadLineItem, State: ThreadPublished, Status: status,
			CreatedBy: Party{ID: caller.User.ID, Type: PartyUser}, AssignedTo: assignee, CreatedAt: now, Action: &Action{Type: typ, Text: text}})
	}
	for i, op := range ops {
		value := func(v any) error {
			if err := UnmarshalValue(op.Value, v); err != nil || len(op.Value) == 0 {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeInvalidJSON, "missing or mistyped value for "+op.Path, nil)
			}
			return nil
		}
		switch {
		case op.Op == "replace" && op.Path == "/subject":
			var s string
			if err := value(&s); err != nil {
				return err
			}
			if strings.TrimSpace(s) == "" || len([]rune(s)) > MaxSubjectLength {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeEmptyValue, "the subject may not be empty", s)
			}
			c.Subject = strings.TrimSpace(s)
		case op.Op == "replace" && op.Path == "/status":
			var s string
			if err := value(&s); err != nil {
				return err
			}
			if !slices.Contains(ThreadStatuses, s) {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeEnumValue, "must be one of: "+strings.Join(ThreadStatuses, ", "), s)
			}
			if Status(s) != c.Status {
				setStatus(c, Status(s), caller.User.ID, now)
				lineItem("changed-ticket-status", "Marked as "+s)
			}
		case op.Op == "replace" && op.Path == "/assignTo":
			var uid int64
			if err := value(&uid); err != nil {
				return err
			}
			u, err := tx.User(c.CompanyID, uid)
			if err != nil || !u.Active {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeConversationOwner, "is not a user of the account", uid)
			}
			c.Assignee = &Party{ID: u.ID, Type: PartyUser}
			lineItem("assigned", "Assigned to "+u.Name())
		case op.Op == "remove" && op.Path == "/assignTo":
			if c.Assignee != nil {
				c.Assignee = nil
				lineItem("assigned", "Unassigned")
			}
		case (op.Op == "move" || op.Op == "replace") && op.Path == "/mailboxId":
			var mid int64
			if err := value(&mid); err != nil {
				return err
			}
			m, err := tx.Mailbox(c.CompanyID, mid)
			if err != nil || !caller.User.CanAccessMailbox(m.ID) {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeInvalidID, "no mailbox with this id", mid)
			}
			if m.ID != c.MailboxID {
				c.MailboxID = m.ID
				c.CustomFields = keepFieldsOf(m, c.CustomFields)
				lineItem("moved-from-mailbox", "Moved to "+m.Name)
			}
		case op.Op == "replace" && op.Path == "/primaryCustomer.id":
			var cid int64
			if err := value(&cid); err != nil {
				return err
			}
			cu, err := tx.Customer(c.CompanyID, cid)
			if err != nil {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeInvalidID, "no customer with this id", cid)
			}
			c.CustomerID = cu.ID
		case op.Op == "replace" && op.Path == "/draft":
			// Help Scout documents "Publish draft: replace /draft, Boolean"
			// without saying which; its own PHP client sends true, others
			// false. A draft cannot be made again, so either publishes.
			var draft bool
			if err := value(&draft); err != nil {
				return err
			}
			if c.State == StateDraft {
				c.State = StatePublished
				for j := range threads {
					if threads[j].State == ThreadDraft && threads[j].Scheduled == nil {
						threads[j].State, threads[j].CreatedAt = ThreadPublished, now
						if err := tx.PutThread(&threads[j]); err != nil {
							return err
						}
					}
				}
			}
		default:
			return patchRefused(i, op, conversationPatchPaths)
		}
	}
	for i := range items {
		if err := tx.PutThread(&items[i]); err != nil {
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
	p := &Problems{Source: "JSON"}
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
	p := &Problems{Source: "JSON"}
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

// dropLater removes the conversation's snooze and thread schedules.
func dropLater(tx Tx, c *Conversation) error {
	if c.Snooze != nil {
		c.Snooze = nil
		if err := tx.DeleteLater(c.CompanyID, LaterSnooze, c.ID); err != nil {
			return err
		}
	}
	threads, err := tx.Threads(c.ID)
	if err != nil {
		return err
	}
	return cancelSchedules(tx, threads)
}

// PatchThread applies PATCH .../threads/{threadId}: `replace /text` keeps
// the original text; `replace /hidden` hides or shows the thread.
func PatchThread(tx Tx, caller Caller, convID, threadID int64, ops []PatchOp, now time.Time) error {
	c, t, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return err
	}
	for i, op := range ops {
		switch {
		case op.Op == "replace" && op.Path == "/text":
			var text string
			if json.Unmarshal(op.Value, &text) != nil || strings.TrimSpace(text) == "" {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeEmptyValue, "the text may not be empty", nil)
			}
			if t.OriginalBody == "" {
				t.OriginalBody = t.Body
			}
			t.Body = text
		case op.Op == "replace" && op.Path == "/hidden":
			var hidden bool
			if UnmarshalValue(op.Value, &hidden) != nil {
				return Invalid("JSON", fmt.Sprintf("[%d].value", i), CodeInvalidJSON, "must be true or false", nil)
			}
			switch {
			case hidden && t.State == ThreadPublished:
				t.State = ThreadHidden
			case !hidden && t.State == ThreadHidden:
				t.State = ThreadPublished
			}
		default:
			return patchRefused(i, op, "replace /text, replace /hidden")
		}
	}
	if err := tx.PutThread(t); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}
