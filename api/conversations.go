package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

var (
	conversationListParams = []string{"embed", "mailbox", "folder", "status", "tag", "assigned_to",
		"modifiedSince", "number", "sortField", "sortOrder", "page", "query", "customFieldsByIds", "facets"}
)

// listConversations handles GET /v2/conversations (search.ListConversations:
// a `folder` that names a saved view lists the view).
func (s *Server) listConversations(c *gin.Context) error {
	p := readParams(c, conversationListParams...)
	embed := embedThreads(p)
	f, status := conversationFilter(p)
	r := search.Conversations{Caller: caller(c), Filter: f, Status: status,
		SortField: p.enum("sortField", "", parley.ConversationSortFields), SortOrder: p.enum("sortOrder", "", parley.SortOrders)}
	pg := page{size: ConversationPageSize, number: p.page()}
	r.Offset, r.Limit = pg.offset(), pg.size
	r.CustomFields, r.Facets = p.list("customFieldsByIds"), p.list("facets")
	r.Problems = p.problems
	var err error
	if r.Query, err = queryText(c); err != nil {
		return err
	}
	found, err := search.ListConversations(c.Request.Context(), s.searchDeps(), r)
	if err != nil {
		return err
	}
	items, err := s.conversationItems(c, found, &pg, embed)
	if err != nil {
		return err
	}
	body := pageBody(s, c, "conversations", items, pg)
	body.Facets = found.Facets
	render(c, http.StatusOK, body)
	return nil
}

// embedThreads reads `embed`, sent once or repeated (clients do both).
func embedThreads(p *params) bool {
	embed := false
	for _, v := range p.list("embed") {
		if v != "threads" {
			p.problems.Add("embed", parley.CodeEnumValue, "must be one of: threads", v)
			continue
		}
		embed = true
	}
	return embed
}

// conversationItems renders a page of conversations a search found (those
// deleted since are left out), and sets the page's total and suggestions.
func (s *Server) conversationItems(c *gin.Context, found *search.Page, pg *page, embed bool) ([]*conversationView, error) {
	pg.total, pg.suggestions = found.Total, found.Suggestions
	var items []*conversationView
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		// One read for the page, one for what it names.
		convs, err := tx.ConversationsByIDs(caller(c).Company.ID, found.IDs)
		if err != nil {
			return err
		}
		rd := newRenderer(s, c, tx)
		rd.readAhead(convs)
		for i := range convs {
			item, err := rd.conversation(&convs[i], embed)
			if err != nil {
				return err
			}
			items = append(items, item)
		}
		return nil
	})
	return items, err
}

// conversationFilter reads the list's typed criteria, and its `status`
// ("" when not given).
func conversationFilter(p *params) (parley.ConversationFilter, string) {
	f := parley.ConversationFilter{MailboxIDs: p.ids("mailbox")}
	status := p.enum("status", "", parley.ListStatuses)
	if id := p.id("folder"); id != nil {
		f.FolderIDs = []int64{*id}
	}
	for _, t := range p.list("tag") {
		f.Tags = append(f.Tags, parley.NormalizeTagName(t))
	}
	f.AssigneeID = p.id("assigned_to")
	f.ModifiedSince = p.time("modifiedSince")
	f.Number = p.number("number")
	return f, status
}

// getConversation handles GET /v2/conversations/{conversationId}.
func (s *Server) getConversation(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "conversationId")
	if err != nil {
		return err
	}
	p := readParams(c, "embed")
	embed := embedThreads(p)
	if err := p.err(); err != nil {
		return err
	}
	var body *conversationView
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		conv, err := parley.LoadConversation(tx, who, id, s.now())
		if err != nil {
			return err
		}
		body, err = newRenderer(s, c, tx).conversation(conv, embed)
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// createConversation handles POST /v2/conversations.
func (s *Server) createConversation(c *gin.Context) error {
	var in parley.NewConversation
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	var conv *parley.Conversation
	write := s.write
	if in.Imported {
		write = s.writeImport
	}
	err := write(c, func(tx parley.Tx) error {
		var err error
		conv, err = parley.CreateConversation(tx, caller(c), &in, s.cfg.Scanner, s.now())
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Resource-ID", strconv.FormatInt(conv.ID, 10))
	c.Header("Location", s.url(c, "v2", "conversations", conv.ID))
	c.Header("Web-Location", s.webLink(c, conv))
	c.Status(http.StatusCreated)
	return nil
}

// webLink opens a conversation in the web application.
func (s *Server) webLink(c *gin.Context, conv *parley.Conversation) string {
	return s.webURL(c) + "/conversation/" + strconv.FormatInt(conv.ID, 10) + "/" + strconv.FormatInt(conv.Number, 10)
}
