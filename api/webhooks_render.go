package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// EventRenderer renders webhook payloads: the resource an event concerns,
// as the API renders it to a GET (conversations with their threads
// embedded). It implements webhooks.Renderer.
type EventRenderer struct {
	s    *Server
	base *url.URL
}

// EventRenderer returns the renderer of webhook payloads. baseURL is the
// absolute URL links start with; "" uses Config.BaseURL.
func (s *Server) EventRenderer(baseURL string) (*EventRenderer, error) {
	if baseURL == "" {
		baseURL = s.cfg.BaseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, err
	}
	return &EventRenderer{s: s, base: u}, nil
}

// context makes the context the resource renderers expect: a request to
// the base URL by a caller of the event's company.
func (r *EventRenderer) context(companyID int64) *gin.Context {
	req := &http.Request{Method: http.MethodGet, Host: r.base.Host, URL: &url.URL{Path: "/"}, Header: http.Header{}}
	if r.base.Scheme == "https" {
		req.Header.Set("X-Forwarded-Proto", "https")
	}
	c := &gin.Context{Request: req}
	c.Set(keyCaller, parley.Caller{Company: &parley.Company{ID: companyID}, User: &parley.User{CompanyID: companyID}})
	return c
}

// deletedView is the payload of a deletion, or of a record gone: its id,
// a number where the resource's id is one.
type deletedView struct {
	ID any `json:"id"`
}

// RenderEvent answers an event's payload and the resource's URI. A
// deletion, or a record gone by the time the event is expanded, is only
// `{"id"}` with no URI.
func (r *EventRenderer) RenderEvent(tx parley.Tx, e parley.Event) ([]byte, string, error) {
	s, c := r.s, r.context(e.CompanyID)
	id, _ := strconv.ParseInt(e.ResourceID, 10, 64)
	var body any
	var uri string
	var err error
	switch kind := parley.EventResource(e.Kind); {
	case parley.IsDeleteEvent(e.Kind):
	case kind == parley.ResourceConversation:
		var conv *parley.Conversation
		if conv, err = tx.Conversation(e.CompanyID, id); err == nil {
			body, err = newRenderer(s, c, tx).conversation(conv, true)
			uri = s.url(c, "v2", "conversations", id)
		}
	case kind == parley.ResourceCustomer:
		var cu *parley.Customer
		if cu, err = tx.Customer(e.CompanyID, id); err == nil {
			body, err = s.newCustomerView(c, tx, e.CompanyID).resource(cu, true)
			uri = s.url(c, "v2", "customers", id)
		}
	case kind == parley.ResourceOrganization:
		var o *parley.Organization
		if o, err = tx.Organization(e.CompanyID, id); err == nil {
			body, uri = s.organizationResource(c, o), s.url(c, "v2", "organizations", id)
		}
	case kind == parley.ResourceTag:
		var t *parley.Tag
		if t, err = tx.Tag(e.CompanyID, id); err == nil { // there is no tag URI
			body = newTagView(t)
		}
	case kind == parley.ResourceUser:
		var u *parley.User
		if u, err = tx.User(e.CompanyID, id); err == nil {
			body, uri = s.userStatusResource(c, u), s.url(c, "v2", "users", id, "status")
		}
	case kind == parley.ResourceRating:
		var conv *parley.Conversation
		var t *parley.Thread
		if conv, t, err = tx.RatedThread(e.CompanyID, id); err == nil {
			body, err = newRenderer(s, c, tx).surveyResponse(conv, t)
			uri = s.url(c, "v2", "ratings", id)
		}
	case kind == parley.ResourceChat:
		var chat *parley.Chat
		if chat, err = tx.Chat(e.CompanyID, e.ResourceID); err == nil {
			body, err = s.chatResource(c, tx, chat)
			uri = s.url(c, "v2", "chats", chat.ID)
		}
	}
	if parley.IsNotFound(err) {
		body, uri, err = nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if body == nil {
		if id != 0 {
			body = deletedView{ID: id}
		} else {
			body = deletedView{ID: e.ResourceID}
		}
	}
	data, err := json.Marshal(body)
	return data, uri, err
}
