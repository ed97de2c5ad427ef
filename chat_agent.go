package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// AgentMessageRequest is the body of PUT /v2/chats/{chatId}/messages/{messageId}.
// Internal is Parley's: a note the visitor does not see, which does not
// count as an answer.
type AgentMessageRequest struct {
	Body     *string `json:"body"`
	Internal bool    `json:"internal"`
}

// checkChatAgent applies Help Scout's chat permissions: the caller can use chat,
// has a first and a last name, and can access the chat's mailbox.
func checkChatAgent(caller Caller, mailboxID int64) error {
	u := caller.User
	if !u.CanChat || strings.TrimSpace(u.FirstName) == "" || strings.TrimSpace(u.LastName) == "" || !u.CanAccessMailbox(mailboxID) {
		return Forbidden(CodeAccessDenied, "the caller cannot chat in this mailbox (chat access, a full profile name and mailbox access are needed)")
	}
	return nil
}

// loadAgentChat loads a chat the caller may act on.
func loadAgentChat(tx Tx, caller Caller, id string, open bool) (*Chat, error) {
	var c *Chat
	var err error
	if open {
		c, err = loadOpenChat(tx, caller.Company.ID, id)
	} else {
		c, err = tx.Chat(caller.Company.ID, id)
	}
	if err != nil {
		return nil, err
	}
	return c, checkChatAgent(caller, c.MailboxID)
}

// ReadChat loads a chat for GET /v2/chats/{id}; an ended chat stays readable.
func ReadChat(tx Tx, caller Caller, id string) (*Chat, error) {
	return loadAgentChat(tx, caller, id, false)
}

// AgentMessage posts the caller's message. An unassigned chat is accepted
// by the caller first (a chat-accepted line item); a chat held by someone
// else answers 400; a reused message id answers 422 and posts nothing.
func AgentMessage(tx Tx, caller Caller, chatID, messageID string, r *AgentMessageRequest, env ChatEnv) (*Chat, error) {
	if err := checkMessage("body", r.Body); err != nil {
		return nil, err
	}
	c, err := loadAgentChat(tx, caller, chatID, true)
	if err != nil {
		return nil, err
	}
	for _, e := range c.Events {
		if e.ID == messageID {
			return nil, chatError(KindUnprocessable, "messageId", CodeConflict, "id value is already in use", messageID)
		}
	}
	agent := ChatAuthor{Type: PartyUser, ID: caller.User.ID}
	switch c.AssigneeID {
	case 0:
		c.AssigneeID, c.AcceptedAt = caller.User.ID, &env.Now
		c.add(env, ChatLineItem, ActionAccepted, agent, "")
	case caller.User.ID:
	default:
		return nil, InvalidID("chatId", CodeValueNotSupported, "the chat is held by another agent", chatID)
	}
	action := ActionMessageAdded
	if r.Internal {
		action = ActionNoteAdded
	}
	c.Events = append(c.Events, ChatEvent{ID: messageID, Type: ChatMessage, Action: action, Author: agent, CreatedAt: env.Now, Body: *r.Body})
	return c, tx.PutChat(c)
}

// UpdateChatTags replaces a chat's tags (Help Scout's docs, Update Tags): names are
// lowercased and identified by slug; each added or removed tag leaves one
// line item; the same set changes nothing. present is false when the body
// had no `tags` array.
func UpdateChatTags(tx Tx, caller Caller, chatID string, names []string, present bool, env ChatEnv) (*Chat, error) {
	if !present {
		return nil, chatError(KindUnprocessable, "tags", CodeNullValue, "tags must be an array of names", nil)
	}
	if len(names) > MaxTags {
		return nil, chatError(KindUnprocessable, "tags", CodeSize, fmt.Sprintf("at most %d tags are allowed", MaxTags), len(names))
	}
	var wanted []ChatTag
	seen := map[string]bool{}
	for i, raw := range names {
		name := NormalizeTagName(raw)
		if name == "" || len(name) > MaxChatTagLength {
			return nil, chatError(KindUnprocessable, fmt.Sprintf("tags[%d]", i), CodeSize, sizeMessage(1, MaxChatTagLength), raw)
		}
		slug := TagSlug(name)
		if !seen[slug] {
			seen[slug] = true
			wanted = append(wanted, ChatTag{Slug: slug, Color: DefaultTagColor(name), Name: name})
		}
	}
	c, err := loadAgentChat(tx, caller, chatID, true)
	if err != nil {
		return nil, err
	}
	agent := ChatAuthor{Type: PartyUser, ID: caller.User.ID}
	had := map[string]bool{}
	for _, t := range c.Tags {
		had[t.Slug] = true
		if !seen[t.Slug] {
			c.add(env, ChatLineItem, ActionTagRemoved, agent, t.Slug)
		}
	}
	changed := len(c.Tags) != len(wanted)
	for _, t := range wanted {
		if !had[t.Slug] {
			changed = true
			c.add(env, ChatLineItem, ActionTagAdded, agent, t.Slug)
		}
	}
	if !changed {
		return c, nil
	}
	c.Tags = wanted
	return c, tx.PutChat(c)
}

// EndChatRequest is the body of PUT /v2/chats/{chatId}/end.
type EndChatRequest struct {
	Status *string `json:"status"`
}

// EndChat ends a chat: the visitor gets one of the two closing messages,
// and a conversation of type chat is created in the widget's mailbox with
// the requested status, the transcript as one thread, the customer, the
// assignee and the chat's tags resolved to account tags. A
// `widget.chat.ended` event is recorded.
func EndChat(tx Tx, caller Caller, chatID string, r *EndChatRequest, env ChatEnv) (*Chat, error) {
	if r.Status == nil || !slices.Contains(CreateStatuses, *r.Status) {
		return nil, chatError(KindUnprocessable, "status", CodeEnumValue, "status must be one of: "+strings.Join(CreateStatuses, ", "), r.Status)
	}
	c, err := loadAgentChat(tx, caller, chatID, true)
	if err != nil {
		return nil, err
	}
	closing := ClosingUnanswered
	if c.lastVisitorMessageAnswered() {
		closing = ClosingAnswered
	}
	c.add(env, ChatLineItem, ActionEnded, ChatAuthor{Type: PartySystem}, closing)
	c.EndedAt = &env.Now
	conv, err := conversationFromChat(tx, caller, c, Status(*r.Status), env.Now)
	if err != nil {
		return nil, err
	}
	c.ConversationID = conv.ID
	if err := tx.PutChat(c); err != nil {
		return nil, err
	}
	return c, tx.PutEvent(Event{Kind: EventChatEnded, CompanyID: c.CompanyID, ResourceID: c.ID, At: env.Now})
}

// conversationFromChat creates the conversation that keeps a chat.
func conversationFromChat(tx Tx, caller Caller, c *Chat, status Status, now time.Time) (*Conversation, error) {
	tags, err := chatTagNames(tx, c)
	if err != nil {
		return nil, err
	}
	transcript, err := chatTranscript(tx, c)
	if err != nil {
		return nil, err
	}
	subject := "Chat with " + c.Preview
	if c.Preview == "" {
		subject = "Chat"
	}
	if r := []rune(subject); len(r) > 80 {
		subject = string(r[:80])
	}
	in := &NewConversation{
		Subject: &subject, Type: Ptr(string(TypeChat)), MailboxID: &c.MailboxID, Status: Ptr(string(status)),
		Customer: &CustomerInput{ID: &c.CustomerID}, Tags: tags, AssignTo: Nullable[int64]{Set: true, Null: true},
		Threads: []NewThread{{Type: Ptr(string(ThreadChat)), Text: &transcript}},
	}
	agent := caller
	if c.AssigneeID != 0 {
		if u, err := tx.User(c.CompanyID, c.AssigneeID); err == nil {
			agent.User = u
		}
	}
	conv, err := CreateConversation(tx, Caller{Company: caller.Company, User: caller.User}, in, nil, c.CreatedAt)
	if err != nil {
		return nil, err
	}
	conv.Source = Source{Type: "chat", Via: PartyCustomer}
	if c.AssigneeID != 0 {
		conv.Assignee = &Party{ID: agent.User.ID, Type: PartyUser}
		if status == StatusClosed {
			conv.ClosedBy = agent.User.ID
		}
	}
	if status == StatusClosed {
		conv.ClosedAt = &now
	}
	conv.ModifiedAt = now
	m, err := tx.Mailbox(conv.CompanyID, conv.MailboxID)
	if err != nil {
		return nil, err
	}
	conv.PlaceInFolder(m)
	return conv, tx.PutConversation(conv)
}

// chatTagNames resolves chat tags to account tag names (Help Scout's docs): a
// slug matching an existing tag's slug uses that tag; otherwise the name is
// created with the conversation.
func chatTagNames(tx Tx, c *Chat) ([]string, error) {
	if len(c.Tags) == 0 {
		return nil, nil
	}
	account, err := tx.Tags(c.CompanyID)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range c.Tags {
		name := t.Name
		for _, a := range account {
			if a.Slug == t.Slug {
				name = a.Name
			}
		}
		names = append(names, name)
	}
	return names, nil
}

// chatTranscript renders the chat's messages as one thread body.
func chatTranscript(tx Tx, c *Chat) (string, error) {
	var b strings.Builder
	names := map[ChatAuthor]string{}
	name := func(a ChatAuthor) string {
		if n, ok := names[a]; ok {
			return n
		}
		n := "Visitor"
		switch a.Type {
		case PartyUser:
			if u, err := tx.User(c.CompanyID, a.ID); err == nil {
				n = u.Name()
			}
		case PartyCustomer:
			if cu, err := tx.Customer(c.CompanyID, a.ID); err == nil && cu.Name() != "" {
				n = cu.Name()
			}
		}
		names[a] = n
		return n
	}
	for _, e := range c.Events {
		switch e.Action {
		case ActionMessageAdded:
			fmt.Fprintf(&b, "[%s] %s: %s\n", e.CreatedAt.UTC().Format("15:04:05"), name(e.Author), e.Body)
		case ActionNoteAdded:
			fmt.Fprintf(&b, "[%s] %s (internal note): %s\n", e.CreatedAt.UTC().Format("15:04:05"), name(e.Author), e.Body)
		}
	}
	if b.Len() == 0 {
		return "The chat ended without messages.", nil
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// VisitorName is how the visitor sees an agent: first name and last initial.
func VisitorName(u *User) string {
	last := []rune(strings.TrimSpace(u.LastName))
	if len(last) == 0 {
		return u.FirstName
	}
	return u.FirstName + " " + string(last[0]) + "."
}
