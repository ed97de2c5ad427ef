package parley

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Webhook event kinds (issue 9; EventUserStatusChanged is in
// user_status.go). Each write records its events with
// Tx.PutEvent in the transaction of the change, so an event exists exactly
// when its write committed.
const (
	EventConvoCreated        = "convo.created"
	EventConvoAssigned       = "convo.assigned" // an unassign too
	EventConvoMoved          = "convo.moved"
	EventConvoStatus         = "convo.status"
	EventConvoTags           = "convo.tags"
	EventConvoCustomFields   = "convo.custom-fields"
	EventConvoMerged         = "convo.merged" // the conversation merged into
	EventConvoDeleted        = "convo.deleted"
	EventConvoAgentReply     = "convo.agent.reply.created"
	EventConvoCustomerReply  = "convo.customer.reply.created"
	EventConvoNote           = "convo.note.created"
	EventCustomerCreated     = "customer.created"
	EventCustomerUpdated     = "customer.updated"
	EventCustomerDeleted     = "customer.deleted"
	EventOrganizationCreated = "organization.created"
	EventOrganizationUpdated = "organization.updated"
	EventOrganizationDeleted = "organization.deleted"
	EventTagCreated          = "tag.created"
	EventTagUpdated          = "tag.updated"
	EventTagDeleted          = "tag.deleted"
	EventSatisfactionRatings = "satisfaction.ratings"
	// EventSurveyResponse is Help Scout's survey answer event; Parley's
	// survey is the satisfaction rating of a reply, so a rating records it
	// (about the rating, where satisfaction.ratings is about the
	// conversation).
	EventSurveyResponse    = "message.survey.response.received"
	EventChatEnded         = "widget.chat.ended"
	EventBeaconChatCreated = "beacon.chat.created"
	EventBeaconChatReplied = "beacon.chat.customer.replied"
	// EventTest is the event a webhook receives when it is created; it
	// cannot be subscribed to.
	EventTest = "helpscout.test"
	// EventWorkflowWebhook is the call of a workflow's webhook action:
	// aimed at one webhook (Event.WebhookID), with the conversation as its
	// payload; it cannot be subscribed to.
	EventWorkflowWebhook = "convo.workflow.webhook"
)

// EventKinds lists the events a webhook may subscribe to.
var EventKinds = []string{
	EventConvoCreated, EventConvoAssigned, EventConvoMoved, EventConvoStatus, EventConvoTags,
	EventConvoCustomFields, EventConvoMerged, EventConvoDeleted, EventConvoAgentReply,
	EventConvoCustomerReply, EventConvoNote, EventCustomerCreated, EventCustomerUpdated,
	EventCustomerDeleted, EventOrganizationCreated, EventOrganizationUpdated, EventOrganizationDeleted,
	EventTagCreated, EventTagUpdated, EventTagDeleted, EventSatisfactionRatings, EventSurveyResponse,
	EventUserStatusChanged, EventChatEnded, EventBeaconChatCreated, EventBeaconChatReplied,
}

// Resources events concern (EventResource).
const (
	ResourceConversation = "conversation"
	ResourceCustomer     = "customer"
	ResourceOrganization = "organization"
	ResourceTag          = "tag"
	ResourceUser         = "user"
	ResourceChat         = "chat"
	ResourceRating       = "rating"
	ResourceWebhook      = "webhook"
)

// EventResource names the kind of record an event concerns.
func EventResource(kind string) string {
	switch {
	case strings.HasPrefix(kind, "convo."), strings.HasPrefix(kind, "satisfaction."):
		return ResourceConversation
	case strings.HasPrefix(kind, "customer."):
		return ResourceCustomer
	case strings.HasPrefix(kind, "organization."):
		return ResourceOrganization
	case strings.HasPrefix(kind, "tag."):
		return ResourceTag
	case strings.HasPrefix(kind, "user."):
		return ResourceUser
	case strings.HasPrefix(kind, "widget.chat.") || strings.HasPrefix(kind, "beacon.chat."):
		return ResourceChat
	case strings.HasPrefix(kind, "message.survey."):
		return ResourceRating
	}
	return ResourceWebhook
}

// IsDeleteEvent reports whether an event says a record is gone; its
// payload is only `{"id"}`.
func IsDeleteEvent(kind string) bool { return strings.HasSuffix(kind, ".deleted") }

// OrderKey is the key events are ordered by for one webhook: deliveries
// of the same key are attempted one at a time, in commit order.
func (e Event) OrderKey() string { return EventResource(e.Kind) + ":" + e.ResourceID }

// EventConversation finds the conversation an event concerns: the
// conversation of a conversation event, the rated one of a rating event.
// It is nil for other events and for a conversation gone since.
func EventConversation(tx Tx, e Event) (*Conversation, error) {
	id, _ := strconv.ParseInt(e.ResourceID, 10, 64)
	var c *Conversation
	var err error
	switch EventResource(e.Kind) {
	case ResourceConversation:
		c, err = tx.Conversation(e.CompanyID, id)
	case ResourceRating:
		c, _, err = tx.RatedThread(e.CompanyID, id)
	}
	if IsNotFound(err) {
		return nil, nil
	}
	return c, err
}

// EventMailbox finds the mailbox an event concerns, for the webhooks'
// mailbox filter. scoped is false for events about account-wide records
// (customers, organizations, tags, users), which no mailbox filter holds
// back. A conversation or chat that cannot be found has mailbox 0.
func EventMailbox(tx Tx, e Event) (mailboxID int64, scoped bool, err error) {
	switch EventResource(e.Kind) {
	case ResourceConversation, ResourceRating:
		c, err := EventConversation(tx, e)
		if err != nil || c == nil {
			return 0, true, err
		}
		return c.MailboxID, true, nil
	case ResourceChat:
		c, err := tx.Chat(e.CompanyID, e.ResourceID)
		if IsNotFound(err) {
			return 0, true, nil
		}
		if err != nil {
			return 0, true, err
		}
		return c.MailboxID, true, nil
	}
	return 0, false, nil
}

// silent is a transaction whose writes record no event: a historical
// import generates no outgoing notification (Help Scout's docs), webhooks included.
type silent struct{ Tx }

// PutEvent drops the event.
func (silent) PutEvent(Event) error { return nil }

// PutMail drops the e-mail: an import sends nothing.
func (silent) PutMail(*Mail) error { return nil }

// recorded is a write's transaction that remembers the events it stores,
// for CommitHooks.
type recorded struct {
	Tx
	events []Event
}

// PutEvent stores the event and remembers it.
func (r *recorded) PutEvent(e Event) error {
	if err := r.Tx.PutEvent(e); err != nil {
		return err
	}
	r.events = append(r.events, e)
	return nil
}

// emit records an event about a record with a numeric id.
func emit(tx EventStore, kind string, companyID, id int64, now time.Time) error {
	return tx.PutEvent(Event{Kind: kind, CompanyID: companyID, ResourceID: strconv.FormatInt(id, 10), At: now})
}

// threadEvent is the event a published thread records: agent replies,
// notes, and customer-side threads (customer, chat and phone threads, which
// reopen a conversation like a customer reply). Drafts and line items
// record none.
func threadEvent(t *Thread) string {
	switch {
	case t == nil || t.State != ThreadPublished:
		return ""
	case t.Type == ThreadMessage:
		return EventConvoAgentReply
	case t.Type == ThreadNote:
		return EventConvoNote
	case t.Type.IsCustomerKind():
		return EventConvoCustomerReply
	}
	return ""
}

// emitConversationChanges records the events of a change of a published
// conversation: status, assignee (an unassign too) and mailbox.
func emitConversationChanges(tx EventStore, before Conversation, after *Conversation, now time.Time) error {
	var kinds []string
	if before.Status != after.Status {
		kinds = append(kinds, EventConvoStatus)
	}
	if !samePartyPtr(before.Assignee, after.Assignee) {
		kinds = append(kinds, EventConvoAssigned)
	}
	if before.MailboxID != after.MailboxID {
		kinds = append(kinds, EventConvoMoved)
	}
	for _, k := range kinds {
		if err := emit(tx, k, after.CompanyID, after.ID, now); err != nil {
			return err
		}
	}
	return nil
}

func samePartyPtr(a, b *Party) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameIDs reports whether two id lists hold the same ids, in any order.
func sameIDs(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// emitThreadAdded records the events of a thread added to a published
// conversation: the thread's own, then the changes it caused.
func emitThreadAdded(tx EventStore, before Conversation, c *Conversation, t *Thread, now time.Time) error {
	if c.State != StatePublished {
		return nil
	}
	if kind := threadEvent(t); kind != "" {
		if err := emit(tx, kind, c.CompanyID, c.ID, now); err != nil {
			return err
		}
	}
	return emitConversationChanges(tx, before, c, now)
}

// emitPublished records an event about a conversation unless it is a
// draft (drafts are announced when published).
func emitPublished(tx EventStore, kind string, c *Conversation, now time.Time) error {
	if c.State != StatePublished {
		return nil
	}
	return emit(tx, kind, c.CompanyID, c.ID, now)
}

// emitPatched records the events of PATCH /v2/conversations/{id}: a
// published draft is announced as created; otherwise status, assignee and
// mailbox changes.
func emitPatched(tx EventStore, before Conversation, c *Conversation, now time.Time) error {
	if before.State == StateDraft && c.State == StatePublished {
		return emit(tx, EventConvoCreated, c.CompanyID, c.ID, now)
	}
	if c.State != StatePublished {
		return nil
	}
	return emitConversationChanges(tx, before, c, now)
}

// Event is something integrators may be told about (webhooks): its kind
// (e.g. "widget.chat.ended"), the company, and the resource it concerns.
type Event struct {
	Kind       string    `json:"kind"`
	CompanyID  int64     `json:"companyId"`
	ResourceID string    `json:"resourceId"`
	At         time.Time `json:"at"`
	// WebhookID, when set, aims the event at that webhook alone, whatever
	// it subscribes to (a workflow's webhook action).
	WebhookID int64 `json:"webhookId,omitempty"`
}
