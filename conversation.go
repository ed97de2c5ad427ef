package parley

import (
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// ConversationType is the channel of a conversation.
type ConversationType string

// Conversation types.
const (
	TypeEmail ConversationType = "email"
	TypePhone ConversationType = "phone"
	TypeChat  ConversationType = "chat"
)

// ConversationTypes lists the accepted conversation types.
var ConversationTypes = []string{"chat", "email", "phone"}

// Status is a conversation's status.
type Status string

// Stored statuses. `open` and `all` exist only as list filters (StatusFilter).
const (
	StatusActive  Status = "active"
	StatusPending Status = "pending"
	StatusClosed  Status = "closed"
	StatusSpam    Status = "spam"
)

// Statuses are the stored statuses.
var Statuses = []Status{StatusActive, StatusPending, StatusClosed, StatusSpam}

// CreateStatuses are the statuses a conversation may be created with.
var CreateStatuses = []string{"active", "closed", "pending"}

// ListStatuses are the values of the list `status` parameter.
var ListStatuses = []string{"active", "all", "closed", "open", "pending", "spam"}

// StatusFilter expands a list `status` value into the stored statuses it
// selects: `open` is active or pending (work not finished). `all` is every
// status, spam included; since every stored conversation has one of them,
// it restricts nothing: all is true and no statuses are listed.
func StatusFilter(v string) (statuses []Status, all bool) {
	switch v {
	case "open":
		return []Status{StatusActive, StatusPending}, false
	case "all":
		return nil, true
	default:
		return []Status{Status(v)}, false
	}
}

// StatusSelections maps each value of the list `status` parameter (which
// the search language's status: takes too) to the stored statuses it
// selects: open is active or pending, all is every status.
func StatusSelections() map[string][]Status {
	out := map[string][]Status{}
	for _, v := range ListStatuses {
		statuses, all := StatusFilter(v)
		if all {
			statuses = Statuses
		}
		out[v] = statuses
	}
	return out
}

// State is a conversation's lifecycle state.
type State string

// Conversation states.
const (
	StatePublished State = "published"
	StateDraft     State = "draft"
	StateDeleted   State = "deleted"
)

// PartyType says whether a person is a customer, a user or a team.
type PartyType string

// Party types.
const (
	PartyCustomer PartyType = "customer"
	PartyUser     PartyType = "user"
	PartyTeam     PartyType = "team"
)

// Party references a person by id and type.
type Party struct {
	ID   int64     `json:"id"`
	Type PartyType `json:"type"`
}

// Source says how a conversation came in.
type Source struct {
	Type string    `json:"type"`
	Via  PartyType `json:"via"`
}

// FieldValue is a custom field value of a conversation. For a dropdown the
// value is the option id.
type FieldValue struct {
	ID    int64  `json:"id"`
	Value string `json:"value"`
}

// Snooze is present while a conversation is snoozed.
type Snooze struct {
	SnoozedBy               int64     `json:"snoozedBy"`
	SnoozedUntil            time.Time `json:"snoozedUntil"`
	UnsnoozeOnCustomerReply bool      `json:"unsnoozeOnCustomerReply"`
}

// Conversation is a support case made of threads.
type Conversation struct {
	ID        int64            `json:"id"`
	CompanyID int64            `json:"companyId"`
	Number    int64            `json:"number"`
	Type      ConversationType `json:"type"`
	MailboxID int64            `json:"mailboxId"`
	FolderID  int64            `json:"folderId"`
	Status    Status           `json:"status"`
	State     State            `json:"state"`
	Subject   string           `json:"subject"`
	// Assignee is nil while unassigned.
	Assignee  *Party     `json:"assignee,omitempty"`
	CreatedBy Party      `json:"createdBy"`
	CreatedAt time.Time  `json:"createdAt"`
	ClosedBy  int64      `json:"closedBy,omitempty"`
	ClosedAt  *time.Time `json:"closedAt,omitempty"`
	// ModifiedAt changes on every write; it sorts and filters lists.
	ModifiedAt   time.Time    `json:"modifiedAt"`
	Source       Source       `json:"source"`
	TagIDs       []int64      `json:"tagIds,omitempty"`
	CC           []string     `json:"cc,omitempty"`
	BCC          []string     `json:"bcc,omitempty"`
	CustomerID   int64        `json:"customerId"`
	CustomFields []FieldValue `json:"customFields,omitempty"`
	Snooze       *Snooze      `json:"snooze,omitempty"`
	Imported     bool         `json:"imported,omitempty"`
	// MergedInto is the conversation this one was merged into, at MergedAt.
	MergedInto int64      `json:"mergedInto,omitempty"`
	MergedAt   *time.Time `json:"mergedAt,omitempty"`

	// Derived from the threads by Derive; stored so lists need no threads.
	ThreadCount          int        `json:"threadCount"`
	Preview              string     `json:"preview"`
	UserUpdatedAt        *time.Time `json:"userUpdatedAt,omitempty"`
	CustomerWaitingSince *time.Time `json:"customerWaitingSince,omitempty"`
	HasAttachments       bool       `json:"hasAttachments,omitempty"`
	ReplyUserIDs         []int64    `json:"replyUserIds,omitempty"`
	// NextEvent is the earliest of the snooze's end and the scheduled threads.
	NextEvent *NextEvent `json:"nextEvent,omitempty"`
}

// NextEvent is the next snooze end or scheduled thread of a conversation.
type NextEvent struct {
	Time                  time.Time `json:"time"`
	EventType             string    `json:"eventType"` // "snooze" or "scheduled"
	UserID                int64     `json:"userId"`
	CancelOnCustomerReply bool      `json:"cancelOnCustomerReply"`
}

// MergeRedirect is how long a merged conversation's old URL redirects.
const MergeRedirect = 60 * 24 * time.Hour

// ThreadType is the kind of a thread.
type ThreadType string

// Thread types. The request side says `reply` for an agent reply; reads say
// `message` (as Help Scout's clients send it), so the stored form is `message`.
const (
	ThreadNote     ThreadType = "note"
	ThreadChat     ThreadType = "chat"
	ThreadPhone    ThreadType = "phone"
	ThreadMessage  ThreadType = "message"
	ThreadCustomer ThreadType = "customer"
	ThreadLineItem ThreadType = "lineitem"
)

// RequestThreadTypes are the thread types a create request may name.
var RequestThreadTypes = []string{"note", "chat", "phone", "reply", "customer"}

// ThreadTypeFromRequest maps a request's thread type to the stored one.
func ThreadTypeFromRequest(t string) ThreadType {
	if t == "reply" {
		return ThreadMessage
	}
	return ThreadType(t)
}

// IsCustomerKind reports whether a thread of this type comes from the
// customer's side; such a thread reopens a closed conversation (Help Scout's docs).
func (t ThreadType) IsCustomerKind() bool {
	return t == ThreadCustomer || t == ThreadChat || t == ThreadPhone
}

// ThreadState is a thread's state.
type ThreadState string

// Thread states.
const (
	ThreadPublished ThreadState = "published"
	ThreadDraft     ThreadState = "draft"
	ThreadHidden    ThreadState = "hidden"
	ThreadReview    ThreadState = "review"
	ThreadBounced   ThreadState = "bounced"
)

// Thread is one message, note or event of a conversation.
type Thread struct {
	ID             int64       `json:"id"`
	ConversationID int64       `json:"conversationId"`
	CompanyID      int64       `json:"companyId"`
	Type           ThreadType  `json:"type"`
	Status         Status      `json:"status,omitempty"`
	State          ThreadState `json:"state"`
	Body           string      `json:"body"`
	// CustomerID is the customer the thread is from (customer kinds) or to.
	CustomerID  int64      `json:"customerId,omitempty"`
	CreatedBy   Party      `json:"createdBy"`
	AssignedTo  *Party     `json:"assignedTo,omitempty"`
	To          []string   `json:"to,omitempty"`
	CC          []string   `json:"cc,omitempty"`
	BCC         []string   `json:"bcc,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	OpenedAt    *time.Time `json:"openedAt,omitempty"`
	Imported    bool       `json:"imported,omitempty"`
	Attachments []int64    `json:"attachments,omitempty"`
	// OriginalBody keeps the first text of a thread whose text was edited.
	OriginalBody string `json:"originalBody,omitempty"`
	// Action describes a line item (a status change, an assignment...).
	Action *Action `json:"action,omitempty"`
	// Scheduled is set on a draft reply scheduled to be sent.
	Scheduled *Schedule `json:"scheduled,omitempty"`
	// Rating is the customer's satisfaction rating of a reply.
	Rating *Rating `json:"rating,omitempty"`
	// SavedReplyID is the saved reply the thread was written from.
	SavedReplyID int64 `json:"savedReplyId,omitempty"`
	// DraftedAt and SentAt time a reply written as a draft first: when its
	// draft was created, and when a user sent it (published it, or
	// scheduled it to be sent). Its handle time lies between the two.
	DraftedAt *time.Time `json:"draftedAt,omitempty"`
	SentAt    *time.Time `json:"sentAt,omitempty"`
	// MessageID is the e-mail Message-ID of the thread (without angle
	// brackets): of the message Parley sent for a reply, or of the message
	// a customer thread came in as. Replies find their conversation by it.
	MessageID string `json:"messageId,omitempty"`
	// BounceReason says why the relay refused a bounced reply for good.
	BounceReason string `json:"bounceReason,omitempty"`
}

// Clone returns a deep copy of the thread: changing the copy, its slices
// and what its pointers point to included, leaves t as it was.
func (t Thread) Clone() Thread {
	c := t
	c.AssignedTo, c.OpenedAt = clonePtr(t.AssignedTo), clonePtr(t.OpenedAt)
	c.DraftedAt, c.SentAt = clonePtr(t.DraftedAt), clonePtr(t.SentAt)
	c.Action, c.Scheduled, c.Rating = clonePtr(t.Action), clonePtr(t.Scheduled), clonePtr(t.Rating)
	c.To, c.CC, c.BCC = slices.Clone(t.To), slices.Clone(t.CC), slices.Clone(t.BCC)
	c.Attachments = slices.Clone(t.Attachments)
	return c
}

// clonePtr copies what p points to (the pointed-to types are flat).
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Action is what a line item records.
type Action struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// WorkflowID is the workflow whose run the line item records.
	WorkflowID int64 `json:"workflowId,omitempty"`
}

// Schedule is when a draft thread is published, and by whom.
type Schedule struct {
	For                       time.Time `json:"scheduledFor"`
	By                        int64     `json:"scheduledBy"`
	UnscheduleOnCustomerReply bool      `json:"unscheduleOnCustomerReply"`
	SendAsCreator             bool      `json:"sendAsCreator,omitempty"`
}

// MaxThreads is the most threads a conversation may hold (Help Scout's docs, "Limits").
const MaxThreads = 100

// PreviewLength is how many characters of the latest thread the preview holds.
const PreviewLength = 185

// counted reports whether a thread counts in `threads`: published, notes and
// line items excluded.
func (t *Thread) counted() bool {
	return t.State == ThreadPublished && t.Type != ThreadNote && t.Type != ThreadLineItem
}

// Derive recomputes the fields a conversation derives from its threads:
// the published count, preview, user and customer times, attachments, the
// users who replied and the next event. Threads are taken in time order
// (imported threads may be older than threads stored before them). It must
// run after every change of threads so lists and search stay true.
func (c *Conversation) Derive(threads []Thread) {
	threads = append([]Thread(nil), threads...)
	sort.SliceStable(threads, func(i, j int) bool {
		if !threads[i].CreatedAt.Equal(threads[j].CreatedAt) {
			return threads[i].CreatedAt.Before(threads[j].CreatedAt)
		}
		return threads[i].ID < threads[j].ID
	})
	c.ThreadCount = 0
	c.Preview = ""
	c.UserUpdatedAt = nil
	c.CustomerWaitingSince = nil
	c.HasAttachments = false
	c.ReplyUserIDs = nil
	c.NextEvent = nil
	if c.Snooze != nil {
		c.NextEvent = &NextEvent{Time: c.Snooze.SnoozedUntil, EventType: "snooze", UserID: c.Snooze.SnoozedBy,
			CancelOnCustomerReply: c.Snooze.UnsnoozeOnCustomerReply}
	}
	for _, t := range threads {
		if s := t.Scheduled; s != nil && (c.NextEvent == nil || s.For.Before(c.NextEvent.Time)) {
			c.NextEvent = &NextEvent{Time: s.For, EventType: "scheduled", UserID: s.By, CancelOnCustomerReply: s.UnscheduleOnCustomerReply}
		}
	}
	var lastCustomer, lastUser *time.Time
	seen := map[int64]bool{}
	for i := range threads {
		t := &threads[i]
		if t.counted() {
			c.ThreadCount++
		}
		if t.State != ThreadPublished || t.Type == ThreadLineItem {
			continue
		}
		if len(t.Attachments) > 0 {
			c.HasAttachments = true
		}
		if t.Type != ThreadNote || c.Preview == "" {
			c.Preview = makePreview(t.Body)
		}
		at := t.CreatedAt
		if t.Type.IsCustomerKind() && t.CreatedBy.Type == PartyCustomer {
			lastCustomer = &at
		} else if t.CreatedBy.Type == PartyUser {
			lastUser = &at
			if t.Type == ThreadMessage && !seen[t.CreatedBy.ID] {
				seen[t.CreatedBy.ID] = true
				c.ReplyUserIDs = append(c.ReplyUserIDs, t.CreatedBy.ID)
			}
		}
	}
	// The customer waits since its last message not yet answered by a user.
	if lastCustomer != nil && (lastUser == nil || lastUser.Before(*lastCustomer)) {
		c.CustomerWaitingSince = lastCustomer
	}
	// userUpdatedAt equals customerWaitingSince when no user acted since the
	// customer's last action (Help Scout's docs).
	switch {
	case lastUser != nil && (lastCustomer == nil || !lastUser.Before(*lastCustomer)):
		c.UserUpdatedAt = lastUser
	case lastCustomer != nil:
		c.UserUpdatedAt = lastCustomer
	}
}

// FolderTypeOf is the system folder a conversation lives in.
func (c *Conversation) FolderTypeOf() FolderType {
	switch {
	case c.State == StateDraft:
		return FolderDrafts
	case c.Status == StatusSpam:
		return FolderSpam
	case c.Status == StatusClosed:
		return FolderClosed
	case c.Assignee != nil:
		return FolderAssigned
	default:
		return FolderUnassigned
	}
}

// PlaceInFolder sets FolderID from the mailbox's folders.
func (c *Conversation) PlaceInFolder(m *Mailbox) {
	if f, ok := m.FolderOfType(c.FolderTypeOf()); ok {
		c.FolderID = f.ID
	}
}

func makePreview(body string) string {
	s := strings.Join(strings.Fields(stripTags(body)), " ")
	if utf8.RuneCountInString(s) <= PreviewLength {
		return s
	}
	return string([]rune(s)[:PreviewLength])
}

// stripTags removes HTML tags from a thread body for the preview.
func stripTags(s string) string {
	if !strings.ContainsRune(s, '<') {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WaitingFriendly renders a waiting period the way agents read it: "5 min",
// "3 hours", "2 days".
func WaitingFriendly(since, now time.Time) string {
	d := now.Sub(since)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "min", "min")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour", "hours")
	case d < 30*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day", "days")
	case d < 365*24*time.Hour:
		return plural(int(d/(30*24*time.Hour)), "month", "months")
	default:
		return plural(int(d/(365*24*time.Hour)), "year", "years")
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// saveConversation re-derives and stores a conversation in its mailbox.
func saveConversation(tx Tx, c *Conversation, now time.Time) error {
	m, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return err
	}
	return saveWithThreads(tx, c, m, now)
}
