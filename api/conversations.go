package api

import (
	"cmp"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/filters"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

var (
	conversationListParams = []string{"embed", "mailbox", "folder", "status", "tag", "assigned_to",
		"modifiedSince", "number", "sortField", "sortOrder", "page", "query", "customFieldsByIds", "facets"}
)

// listConversations handles GET /v2/conversations. A `folder` that names a
// saved view lists the view: its query and filters ANDed with the
// request's, in its sort unless the request gives one, and without the
// list's default status (the view keeps its own).
func (s *Server) listConversations(c *gin.Context) error {
	who := caller(c)
	p := readParams(c, conversationListParams...)
	embed := embedThreads(p)
	mailboxIDs := p.ids("mailbox")
	cf := conversationFilter(p, mailboxIDs)
	sortField := p.enum("sortField", parley.DefaultSortField, parley.ConversationSortFields)
	sortOrder := p.enum("sortOrder", parley.DefaultSortOrder, parley.SortOrders)
	pg := page{size: ConversationPageSize, number: p.page()}
	mailboxes := &lazyMailboxes{s: s, ctx: c.Request.Context(), company: who.Company.ID}
	custom := customFieldFilters(p, mailboxes.get, mailboxIDs)
	facets := readFacets(p)
	if err := cmp.Or(mailboxes.err, p.err()); err != nil {
		return err
	}
	nodes := custom
	selection, err := s.listSavedView(c, p, &cf, &sortField, &sortOrder, mailboxes.get)
	if err != nil {
		return err
	}
	if selection != nil {
		nodes = append(nodes, selection)
	}
	filter := filters.Conversations(cf.VisibleTo(who))
	if len(nodes) > 0 {
		filter = query.And{Nodes: append([]query.Node{filter}, nodes...)}
	}
	search, err := s.parseQuery(c, index.ConversationSchemaLoading(mailboxes.get))
	if err = cmp.Or(mailboxes.err, err); err != nil {
		return err
	}
	items, err := s.conversationPage(c, index.Request{Filter: filter, Query: search,
		Sort: []index.Sort{{Field: index.SortFields[index.Conversations][sortField], Desc: sortOrder == "desc"}}}, &pg, embed)
	body := pageBody(s, c, "conversations", items, pg)
	if err == nil && facets != nil {
		body.Facets, err = s.conversationFacets(c, facets, filter, search)
	}
	if err != nil {
		return err
	}
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

// conversationPage runs a conversation search for one page of the
// caller's company and renders the hits; it sets the page's total.
func (s *Server) conversationPage(c *gin.Context, r index.Request, pg *page, embed bool) ([]*conversationView, error) {
	who := caller(c)
	r.Kind, r.Company, r.Offset, r.Limit = index.Conversations, who.Company.ID, pg.offset(), pg.size
	res, err := s.cfg.Engine.Search(c.Request.Context(), r)
	if err != nil {
		return nil, err
	}
	pg.total = res.Total
	if pg.suggestions, err = s.suggest(c, r, res.Total); err != nil {
		return nil, err
	}
	var items []*conversationView
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		// One read for the page (those deleted between the search and this
		// read are left out), one for its users, one for its customers.
		convs, err := tx.ConversationsByIDs(who.Company.ID, index.ParseIDs(res.IDs))
		if err != nil {
			return err
		}
		rd := newRenderer(s, c, tx)
		if err := rd.prefetch(convs); err != nil {
			return err
		}
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

// conversationFilter reads the list parameters into a filter (mailboxIDs
// were read already: the custom-field filters need them too).
func conversationFilter(p *params, mailboxIDs []int64) parley.ConversationFilter {
	f := parley.ConversationFilter{MailboxIDs: mailboxIDs}
	if selected, all := parley.StatusFilter(p.enum("status", "active", parley.ListStatuses)); !all {
		f.Statuses = selected
	}
	if id := p.id("folder"); id != nil {
		f.FolderIDs = []int64{*id}
	}
	for _, t := range p.list("tag") {
		f.Tags = append(f.Tags, parley.NormalizeTagName(t))
	}
	f.AssigneeID = p.id("assigned_to")
	f.ModifiedSince = p.time("modifiedSince")
	f.Number = p.number("number")
	return f
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
