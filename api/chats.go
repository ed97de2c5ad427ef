package api

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	parley "github.com/parley/parley"
)

// chatKeepAlive is the Keep-Alive SPEC gives Get Chat.
const chatKeepAlive = "timeout=60"

// chatTimeLayout renders chat timestamps with fractional seconds (SPEC
// convention 3).
const chatTimeLayout = "2006-01-02T15:04:05.000Z"

// chatEnv gives chat rules the time and UUIDs.
func (s *Server) chatEnv() parley.ChatEnv {
	return parley.ChatEnv{Now: s.cfg.Clock.Now().UTC(), NewID: s.cfg.NewID}
}

// chatResponse writes the Chat after a chat write or read.
func (s *Server) chatResponse(c *gin.Context, chatID string) error {
	var body gin.H
	err := s.store.View(func(tx parley.Tx) error {
		chat, err := parley.ReadChat(tx, caller(c), chatID)
		if err != nil {
			return err
		}
		body = s.chatResource(c, tx, chat)
		return nil
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

// chatResource renders SPEC's Chat with its history.
func (s *Server) chatResource(c *gin.Context, tx parley.Tx, chat *parley.Chat) gin.H {
	r := newRenderer(s, c, tx)
	self := s.url(c, "v2", "chats", chat.ID)
	links := gin.H{"self": link(self), "customer": link(s.url(c, "v2", "customers", chat.CustomerID))}
	out := gin.H{
		"id": chat.ID, "widgetId": chat.WidgetID, "mailboxId": chat.MailboxID,
		"createdAt": chat.CreatedAt.UTC().Format(chatTimeLayout), "preview": chat.Preview,
		"customer":     r.person(parley.Party{ID: chat.CustomerID, Type: parley.PartyCustomer}),
		"customFields": chatFields(chat), "tags": chatTags(chat), "timeline": chatTimeline(chat),
		"assignee": nil, // the real shape always has it: null until an agent accepts the chat
	}
	if chat.EndedAt != nil {
		out["endedAt"] = chat.EndedAt.UTC().Format(chatTimeLayout)
	}
	if chat.AssigneeID != 0 {
		out["assignee"] = r.person(parley.Party{ID: chat.AssigneeID, Type: parley.PartyUser})
		links["assignee"] = link(s.url(c, "v2", "users", chat.AssigneeID))
	}
	events := make([]gin.H, 0, len(chat.Events))
	for _, e := range chat.Events {
		item := gin.H{"id": e.ID, "chatId": chat.ID, "type": e.Type, "action": e.Action,
			"createdAt": e.CreatedAt.UTC().Format(chatTimeLayout)}
		switch e.Author.Type {
		case parley.PartyUser:
			item["author"] = r.person(parley.Party{ID: e.Author.ID, Type: parley.PartyUser})
			item["_links"] = gin.H{"author": link(s.url(c, "v2", "users", e.Author.ID))}
		case parley.PartyCustomer:
			item["author"] = r.person(parley.Party{ID: e.Author.ID, Type: parley.PartyCustomer})
			item["_links"] = gin.H{"author": link(s.url(c, "v2", "customers", e.Author.ID))}
		default:
			item["author"] = gin.H{"type": "system"}
			item["_links"] = gin.H{}
		}
		if e.Type == parley.ChatMessage || e.Body != "" {
			item["body"] = e.Body
		}
		events = append(events, item)
	}
	out["_embedded"] = gin.H{"events": events}
	out["_links"] = links
	return out
}

func chatFields(chat *parley.Chat) []gin.H {
	out := []gin.H{}
	for _, f := range chat.CustomFields {
		out = append(out, gin.H{"id": f.ID, "value": f.Value})
	}
	return out
}

func chatTags(chat *parley.Chat) []gin.H {
	out := []gin.H{}
	for _, t := range chat.Tags {
		out = append(out, gin.H{"id": t.ID, "slug": t.Slug, "color": t.Color})
	}
	return out
}

func chatTimeline(chat *parley.Chat) []gin.H {
	out := []gin.H{}
	for _, e := range chat.Timeline {
		out = append(out, gin.H{"type": e.Type, "timestamp": e.Timestamp.UTC().Format(chatTimeLayout), "url": e.URL, "title": e.Title})
	}
	return out
}
