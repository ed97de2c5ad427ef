package api

import (
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// The visitor side of live chat is Parley's own design (Help Scout's docs do not
// describe the widget): a public widget id starts chats without a bearer
// token; the visitor then proves itself with the X-Visitor-Token it got.

// chatWaiters lets visitors long-poll for new events of a chat.
type chatWaiters struct {
	mu    sync.Mutex
	chans map[string]chan struct{}
	// parked, when set (tests only), is called each time a visitor's poll
	// has found nothing new and starts waiting, so a test can act exactly
	// then instead of sleeping and hoping.
	parked func(chatID string)
}

// wait returns a channel closed at the next change of the chat.
func (w *chatWaiters) wait(chatID string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.chans == nil {
		w.chans = map[string]chan struct{}{}
	}
	ch, ok := w.chans[chatID]
	if !ok {
		ch = make(chan struct{})
		w.chans[chatID] = ch
	}
	return ch
}

// notify wakes everyone waiting on the chat.
func (w *chatWaiters) notify(chatID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.chans[chatID]; ok {
		close(ch)
		delete(w.chans, chatID)
	}
}

// ChatChanged wakes the visitors long-polling a chat that changed on
// another node sharing the database (cmd wires it to the database's
// announcements); changes made here wake them already.
func (s *Server) ChatChanged(chatID string) { s.chats.notify(chatID) }

// startChat handles POST /v2/widgets/{widgetId}/chats: 201 with
// Resource-ID and `{id, visitorToken}`.
func (s *Server) startChat(c *gin.Context) error {
	if err := s.limited(c, budgetChatStart+c.ClientIP(), s.cfg.ChatStartsPerMinute); err != nil {
		return err
	}
	var in parley.StartChatRequest
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	token := newToken()
	var chat *parley.Chat
	err := s.write(c, func(tx parley.Tx) error {
		var err error
		chat, err = parley.StartChat(tx, c.Param("widgetId"), &in, token, s.chatEnv())
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Resource-ID", chat.ID)
	c.Header("Location", s.url(c, "v2", "widgets", chat.WidgetID, "chats", chat.ID, "events"))
	c.JSON(http.StatusCreated, struct {
		ID           string `json:"id"`
		VisitorToken string `json:"visitorToken"`
	}{chat.ID, token})
	return nil
}

// visitorChat loads the chat of a widget path for its visitor.
func (s *Server) visitorChat(tx parley.Tx, c *gin.Context) (*parley.Chat, error) {
	m, err := tx.MailboxByWidget(c.Param("widgetId"))
	if err != nil {
		return nil, parley.NotFound("chat")
	}
	chat, err := tx.Chat(m.CompanyID, c.Param("chatId"))
	if err != nil || chat.WidgetID != c.Param("widgetId") {
		return nil, parley.NotFound("chat")
	}
	if !chat.VisitorCan(c.GetHeader("X-Visitor-Token")) {
		return nil, parley.Unauthorized("the X-Visitor-Token header does not match the chat")
	}
	return chat, nil
}

// visitorWrite runs a visitor write and wakes waiting readers.
func (s *Server) visitorWrite(c *gin.Context, fn func(tx parley.Tx, chat *parley.Chat) error) error {
	err := s.write(c, func(tx parley.Tx) error {
		chat, err := s.visitorChat(tx, c)
		if err != nil {
			return err
		}
		return fn(tx, chat)
	})
	if err != nil {
		return err
	}
	s.chats.notify(c.Param("chatId"))
	c.Status(http.StatusCreated)
	return nil
}

// visitorMessage handles POST /v2/widgets/{widgetId}/chats/{chatId}/messages.
func (s *Server) visitorMessage(c *gin.Context) error {
	if err := s.limited(c, budgetChatMessage+c.Param("chatId"), s.cfg.ChatMessagesPerMinute); err != nil {
		return err
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.visitorWrite(c, func(tx parley.Tx, chat *parley.Chat) error {
		e, err := parley.VisitorMessage(tx, chat, in.Body, s.chatEnv())
		c.Header("Resource-ID", e.ID)
		return err
	})
}

// visitorPageView handles POST /v2/widgets/{widgetId}/chats/{chatId}/timeline.
// Only the chat's visitor spends its budgets, so that no one else can
// exhaust them; the chat's is spent first, so that a visitor past its own
// spends nothing of the widget's.
func (s *Server) visitorPageView(c *gin.Context) error {
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		_, err := s.visitorChat(tx, c)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.limited(c, budgetChatPageView+c.Param("chatId"), s.cfg.ChatPageViewsPerMinute); err != nil {
		return err
	}
	if err := s.limited(c, budgetWidgetPageView+c.Param("widgetId"), s.cfg.WidgetPageViewsPerMinute); err != nil {
		return err
	}
	var in parley.TimelineRequest
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.visitorWrite(c, func(tx parley.Tx, chat *parley.Chat) error {
		return parley.VisitorPageView(tx, chat, &in, s.chatEnv())
	})
}

// visitorEvents handles GET /v2/widgets/{widgetId}/chats/{chatId}/events:
// the events after `after` the visitor may see. With none yet it waits
// (long-poll) up to ChatPollWait for one.
func (s *Server) visitorEvents(c *gin.Context) error {
	p := readParams(c, "after")
	after, _ := p.raw("after")
	if err := p.err(); err != nil {
		return err
	}
	deadline := time.NewTimer(s.cfg.ChatPollWait)
	defer deadline.Stop()
	for {
		changed := s.chats.wait(c.Param("chatId"))
		events := []visitorEventView{}
		var ended bool
		err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			chat, err := s.visitorChat(tx, c)
			if err != nil {
				return err
			}
			ended = chat.EndedAt != nil
			for _, e := range chat.EventsAfter(after, true) {
				v, err := visitorEvent(tx, chat, e)
				if err != nil {
					return err
				}
				events = append(events, v)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(events) > 0 || ended {
			c.Header("Keep-Alive", chatKeepAlive)
			c.JSON(http.StatusOK, visitorEvents{Events: events, Ended: ended})
			return nil
		}
		if s.chats.parked != nil {
			s.chats.parked(c.Param("chatId"))
		}
		select {
		case <-changed:
		case <-deadline.C:
			c.JSON(http.StatusOK, visitorEvents{Events: []visitorEventView{}})
			return nil
		case <-c.Request.Context().Done():
			return nil
		}
	}
}

// visitorEventView is an event as the visitor sees it.
type visitorEventView struct {
	Action    string            `json:"action"`
	Author    visitorAuthorView `json:"author"`
	Body      string            `json:"body"`
	CreatedAt string            `json:"createdAt"`
	ID        string            `json:"id"`
	Type      string            `json:"type"`
}

// visitorAuthorView names an agent; a user deleted since has no name.
type visitorAuthorView struct {
	Name *string          `json:"name,omitempty"`
	Type parley.PartyType `json:"type"`
}

// visitorEvents is the long-poll's answer.
type visitorEvents struct {
	Ended  bool               `json:"ended"`
	Events []visitorEventView `json:"events"`
}

// visitorEvent renders an event for the visitor: an agent appears by first
// name and last initial (Help Scout's docs, Add Message).
func visitorEvent(tx parley.Tx, chat *parley.Chat, e parley.ChatEvent) (visitorEventView, error) {
	out := visitorEventView{ID: e.ID, Type: e.Type, Action: e.Action, Author: visitorAuthorView{Type: e.Author.Type},
		CreatedAt: e.CreatedAt.UTC().Format(chatTimeLayout), Body: e.Body}
	if e.Author.Type == parley.PartyUser {
		u, err := tx.User(chat.CompanyID, e.Author.ID)
		if err != nil && !parley.IsNotFound(err) {
			return out, err
		}
		if u != nil {
			name := parley.VisitorName(u)
			out.Author.Name = &name
		}
	}
	return out, nil
}
