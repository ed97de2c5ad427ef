package parley

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// targetStore is what checking an action's target reads.
type targetStore interface {
	Mailbox(companyID, id int64) (*Mailbox, error)
	User(companyID, id int64) (*User, error)
	Team(companyID, id int64) (*Team, error)
	SavedReply(companyID, mailboxID, id int64) (*SavedReply, error)
	Webhook(companyID, id int64) (*Webhook, error)
}

// validate checks one action and its target: the user exists and may use
// the mailbox, the mailbox exists, the field belongs to the mailbox.
func (a *WorkflowAction) validate(p *Problems, path string, tx targetStore, caller Caller, m *Mailbox) {
	switch a.Type {
	case ActionAssign:
		if a.UserID != nil && *a.UserID != 0 {
			checkAssignee(p, path+".userId", tx, caller.Company.ID, m, *a.UserID)
		}
	case ActionStatus:
		if !slices.Contains(ThreadStatuses, a.Status) {
			p.Add(path+".status", CodeEnumValue, "must be one of: "+strings.Join(ThreadStatuses, ", "), a.Status)
		}
	case ActionAddTags, ActionRemoveTags:
		if len(a.Tags) == 0 {
			p.Add(path+".tags", CodeEmptyValue, "at least one tag is needed", nil)
		}
		sub := &Problems{}
		checkTagNames(sub, a.Tags)
		for _, item := range sub.items {
			p.Add(path+"."+item.Path, item.Code, item.Message, item.RejectedValue)
		}
	case ActionMove:
		target, err := tx.Mailbox(caller.Company.ID, a.MailboxID)
		if err != nil || !caller.User.CanAccessMailbox(target.ID) {
			p.Add(path+".mailboxId", CodeInvalidID, "no mailbox with this id", a.MailboxID)
		}
	case ActionSetField:
		if m == nil {
			return
		}
		id, value := a.FieldID, a.Value
		if _, ok := m.Field(id); !ok {
			p.Add(path+".fieldId", CodeInvalidID, "no custom field with this id in the mailbox", id)
			return
		}
		if _, err := ValidateFieldValues(m, []FieldValueInput{{ID: &id, Value: &value}}); err != nil {
			p.Add(path+".value", CodeValueNotSupported, "not a valid value for the field: "+err.Error(), value)
		}
	case ActionNote:
		if strings.TrimSpace(a.Text) == "" {
			p.Add(path+".text", CodeEmptyValue, "may not be empty", a.Text)
		}
	case ActionSavedReply:
		if m == nil {
			return
		}
		r, err := tx.SavedReply(caller.Company.ID, m.ID, a.SavedReplyID)
		switch {
		case err != nil:
			p.Add(path+".savedReplyId", CodeInvalidID, "no saved reply with this id in the mailbox", a.SavedReplyID)
		case r.ChatOnly():
			p.Add(path+".savedReplyId", CodeValueNotSupported, "the saved reply has no e-mail text (it is for chats only)", a.SavedReplyID)
		}
	case ActionWebhook:
		if _, err := tx.Webhook(caller.Company.ID, a.WebhookID); err != nil {
			p.Add(path+".webhookId", CodeInvalidID, "no webhook with this id", a.WebhookID)
		}
	default:
		p.Add(path+".type", CodeEnumValue, "must be one of: "+strings.Join(WorkflowActionTypes, ", "), a.Type)
	}
}

func (a *WorkflowAction) apply(tx Tx, caller Caller, convID int64, now time.Time) error {
	patch := func(op, path string, v any) error {
		raw, _ := json.Marshal(v)
		return PatchConversation(tx, caller, convID, []PatchOp{{Op: op, Path: path, Value: raw}}, now)
	}
	switch a.Type {
	case ActionAssign:
		c, err := tx.Conversation(caller.Company.ID, convID)
		if err != nil {
			return err
		}
		if a.UserID == nil || *a.UserID == 0 {
			return patch("remove", "/assignTo", nil)
		}
		id := *a.UserID
		if _, err := tx.User(c.CompanyID, id); IsNotFound(err) {
			if id, err = assignToTeam(tx, c, id); err != nil || id == 0 {
				return err
			}
		} else if err != nil {
			return err
		}
		if c.Assignee != nil && c.Assignee.ID == id {
			return nil
		}
		return patch("replace", "/assignTo", id)
	case ActionStatus:
		return patch("replace", "/status", a.Status)
	case ActionMove:
		return patch("move", "/mailboxId", a.MailboxID)
	case ActionAddTags, ActionRemoveTags:
		c, err := tx.Conversation(caller.Company.ID, convID)
		if err != nil {
			return err
		}
		var names []string
		for _, id := range c.TagIDs {
			if t, err := tx.Tag(c.CompanyID, id); err == nil {
				names = append(names, t.Name)
			}
		}
		for _, name := range a.Tags {
			name = strings.ToLower(strings.TrimSpace(name))
			i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
			switch {
			case a.Type == ActionAddTags && i < 0:
				names = append(names, name)
			case a.Type == ActionRemoveTags && i >= 0:
				names = slices.Delete(names, i, i+1)
			}
		}
		if names == nil {
			names = []string{}
		}
		return ReplaceTags(tx, caller, convID, names, now)
	case ActionSetField:
		c, err := tx.Conversation(caller.Company.ID, convID)
		if err != nil {
			return err
		}
		var in []FieldValueInput
		set := false
		for _, v := range c.CustomFields {
			id, value := v.ID, v.Value
			if id == a.FieldID {
				value, set = a.Value, true
			}
			in = append(in, FieldValueInput{ID: &id, Value: &value})
		}
		if !set {
			id, value := a.FieldID, a.Value
			in = append(in, FieldValueInput{ID: &id, Value: &value})
		}
		m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
		if err != nil {
			return err
		}
		for _, def := range m.Fields {
			given := slices.ContainsFunc(in, func(v FieldValueInput) bool { return *v.ID == def.ID && *v.Value != "" })
			if def.Required && !given {
				return nil // ReplaceFields would refuse: a required field has no value yet
			}
		}
		return ReplaceFields(tx, caller, convID, in, now)
	case ActionNote:
		text := a.Text
		_, err := AddThread(tx, caller, convID, ThreadNote, &ThreadRequest{Text: &text}, nil, now)
		return err
	case ActionSavedReply:
		c, err := tx.Conversation(caller.Company.ID, convID)
		if err != nil {
			return err
		}
		r, err := tx.SavedReply(c.CompanyID, c.MailboxID, a.SavedReplyID)
		if err != nil {
			return err
		}
		// As POST .../reply with the saved reply's text: the same thread,
		// line items, events and outgoing e-mail.
		id := r.ID
		_, err = AddThread(tx, caller, convID, ThreadMessage, &ThreadRequest{Text: &r.Text, SavedReplyID: &id}, nil, now)
		return err
	case ActionWebhook:
		// An event aimed at the one webhook: the dispatcher delivers the
		// conversation to it after the commit, signed and retried as any
		// delivery, whatever events the webhook subscribes to.
		return tx.PutEvent(Event{Kind: EventWorkflowWebhook, CompanyID: caller.Company.ID, ResourceID: strconv.FormatInt(convID, 10),
			At: now, WebhookID: a.WebhookID})
	}
	return nil
}
