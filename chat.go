package parley

import (
	"crypto/subtle"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Chat event types and actions (Help Scout's docs, "Chat event"). `note-added` and
// `chat-ended` are Parley's: an agent's internal note, and the closing
// message the visitor sees.
const (
	ChatMessage  = "message"
	ChatLineItem = "line_item"

	ActionMessageAdded = "message-added"
	ActionNoteAdded    = "note-added"
	ActionAccepted     = "chat-accepted"
	ActionTagAdded     = "tag-added"
	ActionTagRemoved   = "tag-removed"
	ActionEnded        = "chat-ended"
)

// The two closing messages of Help Scout's End Chat row, chosen by whether the
// visitor's last message was answered.
const (
	ClosingAnswered   = "Thanks for chatting with us! This chat has ended; a transcript is in your inbox."
	ClosingUnanswered = "Sorry we missed you. This chat has ended; we will follow up by e-mail as soon as we can."
)

// Chat limits. The timeline's bound what anonymous visitors may store:
// entries are few and small, so that a chat stays cheap to read whatever
// its visitor sends.
const (
	MaxChatMessageLength = 10000
	MaxChatTagLength     = 255
	MaxVisitorNameLength = 80
	// MaxChatIntegrationLength bounds the name of the integration a chat
	// came through.
	MaxChatIntegrationLength = 64
	// MaxTimelineEntries is the most page views a chat's timeline holds.
	MaxTimelineEntries = 200
	// MaxTimelineType, MaxTimelineTitle and MaxTimelineURL bound an entry's
	// fields, in characters (bytes for the URL).
	MaxTimelineType  = 64
	MaxTimelineTitle = 255
	MaxTimelineURL   = 2000
)

// ChatAuthor is who wrote a chat event: a user, the customer or the system.
type ChatAuthor struct {
	Type PartyType `json:"type"` // "user", "customer" or "system"
	ID   int64     `json:"id,omitempty"`
}

// PartySystem authors events no person wrote.
const PartySystem PartyType = "system"

// ChatEvent is one entry of a chat's history.
type ChatEvent struct {
	ID        string     `json:"id"`
	Type      string     `json:"type"`
	Action    string     `json:"action"`
	Author    ChatAuthor `json:"author"`
	CreatedAt time.Time  `json:"createdAt"`
	Body      string     `json:"body,omitempty"`
}

// visible reports whether the visitor sees the event.
func (e *ChatEvent) visible() bool {
	return e.Action == ActionMessageAdded || e.Action == ActionEnded
}

// ChatTag is a tag applied to a chat, identified by its slug; ID is nil for
// tags applied through the chat tag update (Help Scout's docs).
type ChatTag struct {
	ID    *int64 `json:"id"`
	Slug  string `json:"slug"`
	Color string `json:"color"`
	Name  string `json:"name"`
}

// TimelineEntry is a page the visitor viewed. A chat's entries are stored
// apart from the chat (PutTimelineEntry), so that recording one rewrites
// nothing else.
type TimelineEntry struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	URL       string    `json:"url"`
	Title     string    `json:"title"`
}

// Chat is a live chat started from a widget.
type Chat struct {
	ID               string       `json:"id"`
	CompanyID        int64        `json:"companyId"`
	MailboxID        int64        `json:"mailboxId"`
	WidgetID         string       `json:"widgetId"`
	CustomerID       int64        `json:"customerId"`
	AssigneeID       int64        `json:"assigneeId,omitempty"`
	CreatedAt        time.Time    `json:"createdAt"`
	AcceptedAt       *time.Time   `json:"acceptedAt,omitempty"`
	EndedAt          *time.Time   `json:"endedAt,omitempty"`
	Preview          string       `json:"preview,omitempty"`
	CustomFields     []FieldValue `json:"customFields,omitempty"`
	Tags             []ChatTag    `json:"tags,omitempty"`
	Events           []ChatEvent  `json:"events,omitempty"`
	VisitorTokenHash string       `json:"visitorTokenHash"`
	// Integration names the third-party integration the chat came through.
	Integration    string `json:"integration,omitempty"`
	ConversationID int64  `json:"conversationId,omitempty"`
}

// ChatEnv is what chat rules need from their caller: the time and a
// generator of event ids (UUIDs).
type ChatEnv struct {
	Now   time.Time
	NewID func() string
}

func (c *Chat) add(env ChatEnv, typ, action string, author ChatAuthor, body string) ChatEvent {
	e := ChatEvent{ID: env.NewID(), Type: typ, Action: action, Author: author, CreatedAt: env.Now, Body: body}
	c.Events = append(c.Events, e)
	return e
}

// Figures the chat report reads. They are defined on the event history:
// wait is start to acceptance; response is the visitor's first message to
// the first agent message after it; messages counts visitor and agent
// messages (notes excluded); duration is start to end. A chat is missed
// when it ended with no agent message, completed when it ended with one.

// WaitTime is how long the visitor waited for an agent (ok=false if none came).
func (c *Chat) WaitTime() (time.Duration, bool) {
	if c.AcceptedAt == nil {
		return 0, false
	}
	return c.AcceptedAt.Sub(c.CreatedAt), true
}

// ResponseTime is the time from the visitor's first message to the first
// agent message after it.
func (c *Chat) ResponseTime() (time.Duration, bool) {
	var first *time.Time
	for i := range c.Events {
		e := &c.Events[i]
		if e.Action != ActionMessageAdded {
			continue
		}
		if e.Author.Type == PartyCustomer && first == nil {
			first = &e.CreatedAt
		}
		if e.Author.Type == PartyUser && first != nil {
			return e.CreatedAt.Sub(*first), true
		}
	}
	return 0, false
}

// FirstVisitorMessage is when the visitor first wrote (the chat's start
// when it never did).
func (c *Chat) FirstVisitorMessage() time.Time {
	for _, e := range c.Events {
		if e.Action == ActionMessageAdded && e.Author.Type == PartyCustomer {
			return e.CreatedAt
		}
	}
	return c.CreatedAt
}

// Messages counts visitor and agent messages.
func (c *Chat) Messages() int {
	n := 0
	for _, e := range c.Events {
		if e.Action == ActionMessageAdded {
			n++
		}
	}
	return n
}

// Duration is how long the chat lasted (ok=false while open).
func (c *Chat) Duration() (time.Duration, bool) {
	if c.EndedAt == nil {
		return 0, false
	}
	return c.EndedAt.Sub(c.CreatedAt), true
}

// Answered reports whether an agent wrote any message.
func (c *Chat) Answered() bool {
	for _, e := range c.Events {
		if e.Action == ActionMessageAdded && e.Author.Type == PartyUser {
			return true
		}
	}
	return false
}

// Missed reports an ended chat no agent answered.
func (c *Chat) Missed() bool { return c.EndedAt != nil && !c.Answered() }

// lastVisitorMessageAnswered reports whether an agent message follows the
// visitor's last message (notes are not messages, so they do not count).
// With no visitor message there is nothing left unanswered.
func (c *Chat) lastVisitorMessageAnswered() bool {
	answered := true
	for _, e := range c.Events {
		if e.Action == ActionMessageAdded {
			answered = e.Author.Type == PartyUser
		}
	}
	return answered
}

// EventsAfter returns the events after the one with id after ("" for all);
// the visitor's view holds messages and the closing message only.
func (c *Chat) EventsAfter(after string, visitor bool) []ChatEvent {
	start := 0
	for i, e := range c.Events {
		if e.ID == after {
			start = i + 1
		}
	}
	var out []ChatEvent
	for _, e := range c.Events[start:] {
		if !visitor || e.visible() {
			out = append(out, e)
		}
	}
	return out
}

// VisitorCan reports whether token is the chat's visitor token, in
// constant time.
func (c *Chat) VisitorCan(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(HashToken(token)), []byte(c.VisitorTokenHash)) == 1
}

// StartChatRequest is a visitor's request to start a chat.
type StartChatRequest struct {
	Name        *string `json:"name"`
	Email       *string `json:"email"`
	Message     *string `json:"message"`
	Integration *string `json:"integration"`
}

func chatError(kind Kind, path, code, msg string, rejected any) *Error {
	return &Error{Kind: kind, Message: msg, Errors: []FieldError{{Path: path, Code: code, Message: msg, RejectedValue: rejected, Origin: OriginBody}}}
}

func checkMessage(path string, body *string) error {
	switch {
	case body == nil || strings.TrimSpace(*body) == "":
		return chatError(KindUnprocessable, path, CodeEmptyValue, path+" is required", nil)
	case utf8.RuneCountInString(*body) > MaxChatMessageLength:
		return chatError(KindUnprocessable, path, CodeSize, fmt.Sprintf("%s must be at most %d characters", path, MaxChatMessageLength), nil)
	}
	return nil
}

// StartChat opens a chat from a public widget; the visitor's customer is
// found or created by e-mail. token is the visitor's secret, stored hashed.
func StartChat(tx Tx, widgetID string, r *StartChatRequest, token string, env ChatEnv) (*Chat, error) {
	p := &Problems{}
	if r.Name == nil || strings.TrimSpace(*r.Name) == "" || utf8.RuneCountInString(*r.Name) > MaxVisitorNameLength {
		p.Add("name", CodeSize, sizeMessage(1, MaxVisitorNameLength), r.Name)
	}
	if r.Email == nil || !ValidEmail(strings.TrimSpace(*r.Email)) {
		p.Add("email", CodeEmail, EmailRule, r.Email)
	}
	if r.Integration != nil && utf8.RuneCountInString(strings.TrimSpace(*r.Integration)) > MaxChatIntegrationLength {
		p.Add("integration", CodeSize, sizeMessage(0, MaxChatIntegrationLength), r.Integration)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if r.Message != nil {
		if err := checkMessage("message", r.Message); err != nil {
			return nil, err
		}
	}
	m, err := tx.MailboxByWidget(widgetID)
	if err != nil {
		return nil, NotFound("widget")
	}
	first, last, _ := strings.Cut(strings.TrimSpace(*r.Name), " ")
	in := &CustomerInput{Email: r.Email, FirstName: &first}
	if last = strings.TrimSpace(last); last != "" {
		in.LastName = &last
	}
	customer, err := findOrCreateCustomer(tx, m.CompanyID, in, "customer", env.Now)
	if err != nil {
		return nil, err
	}
	c := &Chat{ID: env.NewID(), CompanyID: m.CompanyID, MailboxID: m.ID, WidgetID: widgetID, CustomerID: customer.ID,
		CreatedAt: env.Now, VisitorTokenHash: HashToken(token)}
	if r.Integration != nil {
		c.Integration = strings.TrimSpace(*r.Integration)
	}
	if r.Message != nil {
		c.add(env, ChatMessage, ActionMessageAdded, ChatAuthor{Type: PartyCustomer, ID: customer.ID}, *r.Message)
		c.Preview = makePreview(*r.Message)
	}
	if err := tx.PutChat(c); err != nil {
		return nil, err
	}
	return c, tx.PutEvent(Event{Kind: EventBeaconChatCreated, CompanyID: c.CompanyID, ResourceID: c.ID, At: env.Now})
}

// loadOpenChat loads a chat for a write: an ended chat answers 404 (Help Scout's docs).
func loadOpenChat(tx Tx, companyID int64, id string) (*Chat, error) {
	c, err := tx.Chat(companyID, id)
	if err != nil {
		return nil, err
	}
	if c.EndedAt != nil {
		return nil, NotFound("chat")
	}
	return c, nil
}

// VisitorMessage adds the visitor's message to an open chat.
func VisitorMessage(tx Tx, c *Chat, body *string, env ChatEnv) (ChatEvent, error) {
	if err := checkMessage("body", body); err != nil {
		return ChatEvent{}, err
	}
	if c.EndedAt != nil {
		return ChatEvent{}, NotFound("chat")
	}
	e := c.add(env, ChatMessage, ActionMessageAdded, ChatAuthor{Type: PartyCustomer, ID: c.CustomerID}, *body)
	if c.Preview == "" {
		c.Preview = makePreview(*body)
	}
	if err := tx.PutChat(c); err != nil {
		return ChatEvent{}, err
	}
	return e, tx.PutEvent(Event{Kind: EventBeaconChatReplied, CompanyID: c.CompanyID, ResourceID: c.ID, At: env.Now})
}

// TimelineRequest records a page view of the visitor.
type TimelineRequest struct {
	Type  *string `json:"type"`
	URL   *string `json:"url"`
	Title *string `json:"title"`
}

// entry validates the request and makes the entry it records at now: an
// http or https URL, and fields within their bounds; type defaults to
// page-viewed.
func (r *TimelineRequest) entry(now time.Time) (TimelineEntry, error) {
	e := TimelineEntry{Type: "page-viewed", Timestamp: now}
	p := &Problems{}
	if r.URL != nil {
		e.URL = strings.TrimSpace(*r.URL)
	}
	switch {
	case e.URL == "" || len(e.URL) > MaxTimelineURL:
		p.Add("url", CodeSize, sizeMessage(1, MaxTimelineURL), r.URL)
	case !webPageURL(e.URL):
		p.Add("url", CodeValueNotSupported, "must be an http or https URL", r.URL)
	}
	if r.Type != nil && strings.TrimSpace(*r.Type) != "" {
		e.Type = strings.TrimSpace(*r.Type)
	}
	if utf8.RuneCountInString(e.Type) > MaxTimelineType {
		p.Add("type", CodeSize, sizeMessage(0, MaxTimelineType), r.Type)
	}
	if r.Title != nil {
		e.Title = *r.Title
	}
	if utf8.RuneCountInString(e.Title) > MaxTimelineTitle {
		p.Add("title", CodeSize, sizeMessage(0, MaxTimelineTitle), r.Title)
	}
	return e, p.Err()
}

// webPageURL reports whether raw is an absolute http or https URL: what an
// agent may follow from a timeline (never javascript: or data:).
func webPageURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// VisitorPageView adds an entry to an open chat's timeline, refused once
// the timeline holds MaxTimelineEntries.
func VisitorPageView(tx Tx, c *Chat, r *TimelineRequest, env ChatEnv) error {
	entry, err := r.entry(env.Now)
	if err != nil {
		return err
	}
	if c.EndedAt != nil {
		return NotFound("chat")
	}
	n, err := tx.TimelineLength(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	if n >= MaxTimelineEntries {
		msg := fmt.Sprintf("the chat's timeline is full: it holds at most %d page views", MaxTimelineEntries)
		return &Error{Kind: KindUnprocessable, Message: msg, Errors: []FieldError{{Code: CodeSize, Message: msg}}}
	}
	return tx.PutTimelineEntry(c.CompanyID, c.ID, entry)
}
