package api

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	parley "github.com/parley/parley"
)

// chatKeepAlive is the Keep-Alive Help Scout's docs give Get Chat.
const chatKeepAlive = "timeout=60"

// chatTimeLayout renders chat timestamps with fractional seconds (Help Scout's docs
// convention 3).
const chatTimeLayout = "2006-01-02T15:04:05.000Z"

// chatEnv gives chat rules the time and UUIDs.
func (s *Server) chatEnv() parley.ChatEnv {
	return parley.ChatEnv{Now: s.cfg.Clock.Now().UTC(), NewID: s.cfg.NewID}
}

// chatResponse writes the Chat after a chat write or read.
func (s *Server) chatResponse(c *gin.Context, chatID string) error {
	var body *chatView
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		chat, err := parley.ReadChat(tx, caller(c), chatID)
		if err != nil {
			return err
		}
		body, err = s.chatResource(c, tx, chat)
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Keep-Alive", chatKeepAlive)
	render(c, http.StatusOK, body)
	return nil
}

// getChat handles GET /v2/chats/{chatId}; an ended chat stays readable.
func (s *Server) getChat(c *gin.Context) error {
	if err := readParams(c).err(); err != nil {
		return err
	}
	return s.chatResponse(c, c.Param("chatId"))
}

// chatWrite runs a chat rule in one write, tells waiting visitors, and
// answers the Chat.
func (s *Server) chatWrite(c *gin.Context, fn func(tx parley.Tx, env parley.ChatEnv) error) error {
	chatID := c.Param("chatId")
	err := s.write(c, func(tx parley.Tx) error { return fn(tx, s.chatEnv()) })
	if err != nil {
		return err
	}
	s.chats.notify(chatID)
	return s.chatResponse(c, chatID)
}

// addChatMessage handles PUT /v2/chats/{chatId}/messages/{messageId}.
func (s *Server) addChatMessage(c *gin.Context) error {
	messageID := c.Param("messageId")
	if _, err := uuid.Parse(messageID); err != nil {
		return parley.Invalid("path", "messageId", parley.CodeInvalidID, "must be a UUID chosen by the caller", messageID)
	}
	var in parley.AgentMessageRequest
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.chatWrite(c, func(tx parley.Tx, env parley.ChatEnv) error {
		_, err := parley.AgentMessage(tx, caller(c), c.Param("chatId"), messageID, &in, env)
		return err
	})
}

// endChat handles PUT /v2/chats/{chatId}/end.
func (s *Server) endChat(c *gin.Context) error {
	var in parley.EndChatRequest
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.chatWrite(c, func(tx parley.Tx, env parley.ChatEnv) error {
		_, err := parley.EndChat(tx, caller(c), c.Param("chatId"), &in, env)
		return err
	})
}

// updateChatTags handles PUT /v2/chats/{chatId}/tags.
func (s *Server) updateChatTags(c *gin.Context) error {
	var in struct {
		Tags json.RawMessage `json:"tags"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	var names []string
	present := len(in.Tags) > 0 && json.Unmarshal(in.Tags, &names) == nil && names != nil
	return s.chatWrite(c, func(tx parley.Tx, env parley.ChatEnv) error {
		_, err := parley.UpdateChatTags(tx, caller(c), c.Param("chatId"), names, present, env)
		return err
	})
}

// chatView is Help Scout's Chat with its history. Assignee is always sent:
// null until an agent accepts the chat.
type chatView struct {
	Embedded struct {
		Events []chatEventView `json:"events"`
	} `json:"_embedded"`
	Links        chatLinks          `json:"_links"`
	Assignee     *personView        `json:"assignee"`
	CreatedAt    string             `json:"createdAt"`
	CustomFields []chatFieldView    `json:"customFields"`
	Customer     *personView        `json:"customer"`
	EndedAt      string             `json:"endedAt,omitempty"`
	ID           string             `json:"id"`
	MailboxID    int64              `json:"mailboxId"`
	Preview      string             `json:"preview"`
	Tags         []chatTagView      `json:"tags"`
	Timeline     []chatTimelineView `json:"timeline"`
	WidgetID     string             `json:"widgetId"`
}

type chatLinks struct {
	Assignee *halLink `json:"assignee,omitempty"`
	Customer halLink  `json:"customer"`
	Self     halLink  `json:"self"`
}

// chatEventView is one event of a chat's history. Author is a personView,
// or systemAuthor for what Parley itself did.
type chatEventView struct {
	Links struct {
		Author *halLink `json:"author,omitempty"`
	} `json:"_links"`
	Action    string  `json:"action"`
	Author    any     `json:"author"`
	Body      *string `json:"body,omitempty"`
	ChatID    string  `json:"chatId"`
	CreatedAt string  `json:"createdAt"`
	ID        string  `json:"id"`
	Type      string  `json:"type"`
}

// systemAuthor is the author of the events Parley itself records.
type systemAuthor struct {
	Type string `json:"type"`
}

type chatFieldView struct {
	ID    int64  `json:"id"`
	Value string `json:"value"`
}

type chatTagView struct {
	Color string `json:"color"`
	ID    *int64 `json:"id"`
	Slug  string `json:"slug"`
}

type chatTimelineView struct {
	Timestamp string `json:"timestamp"`
	Title     string `json:"title"`
	Type      string `json:"type"`
	URL       string `json:"url"`
}

// chatResource renders Help Scout's Chat with its history.
func (s *Server) chatResource(c *gin.Context, tx parley.Tx, chat *parley.Chat) (*chatView, error) {
	r := newRenderer(s, c, tx)
	out := &chatView{
		ID: chat.ID, WidgetID: chat.WidgetID, MailboxID: chat.MailboxID,
		CreatedAt: chat.CreatedAt.UTC().Format(chatTimeLayout), Preview: chat.Preview,
		CustomFields: chatFields(chat), Tags: chatTags(chat),
		Links: chatLinks{Self: link(s.url(c, "v2", "chats", chat.ID)), Customer: link(s.url(c, "v2", "customers", chat.CustomerID))},
	}
	var err error
	if out.Timeline, err = chatTimeline(tx, chat); err != nil {
		return nil, err
	}
	if out.Customer, err = r.person(parley.Party{ID: chat.CustomerID, Type: parley.PartyCustomer}); err != nil {
		return nil, err
	}
	if chat.EndedAt != nil {
		out.EndedAt = chat.EndedAt.UTC().Format(chatTimeLayout)
	}
	if chat.AssigneeID != 0 {
		if out.Assignee, err = r.person(parley.Party{ID: chat.AssigneeID, Type: parley.PartyUser}); err != nil {
			return nil, err
		}
		out.Links.Assignee = linkTo(s.url(c, "v2", "users", chat.AssigneeID))
	}
	out.Embedded.Events = make([]chatEventView, 0, len(chat.Events))
	for _, e := range chat.Events {
		item := chatEventView{ID: e.ID, ChatID: chat.ID, Type: e.Type, Action: e.Action,
			CreatedAt: e.CreatedAt.UTC().Format(chatTimeLayout)}
		switch e.Author.Type {
		case parley.PartyUser:
			item.Author, err = r.person(parley.Party{ID: e.Author.ID, Type: parley.PartyUser})
			item.Links.Author = linkTo(s.url(c, "v2", "users", e.Author.ID))
		case parley.PartyCustomer:
			item.Author, err = r.person(parley.Party{ID: e.Author.ID, Type: parley.PartyCustomer})
			item.Links.Author = linkTo(s.url(c, "v2", "customers", e.Author.ID))
		default:
			item.Author = systemAuthor{Type: "system"}
		}
		if err != nil {
			return nil, err
		}
		if e.Type == parley.ChatMessage || e.Body != "" {
			item.Body = &e.Body
		}
		out.Embedded.Events = append(out.Embedded.Events, item)
	}
	return out, nil
}

func chatFields(chat *parley.Chat) []chatFieldView {
	out := []chatFieldView{}
	for _, f := range chat.CustomFields {
		out = append(out, chatFieldView{ID: f.ID, Value: f.Value})
	}
	return out
}

func chatTags(chat *parley.Chat) []chatTagView {
	out := []chatTagView{}
	for _, t := range chat.Tags {
		out = append(out, chatTagView{ID: t.ID, Slug: t.Slug, Color: t.Color})
	}
	return out
}

func chatTimeline(tx parley.Tx, chat *parley.Chat) ([]chatTimelineView, error) {
	entries, err := tx.ChatTimeline(chat.CompanyID, chat.ID)
	out := []chatTimelineView{}
	for _, e := range entries {
		out = append(out, chatTimelineView{Type: e.Type, Timestamp: e.Timestamp.UTC().Format(chatTimeLayout), URL: e.URL, Title: e.Title})
	}
	return out, err
}
