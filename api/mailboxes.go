package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

func (s *Server) mailboxResource(c *gin.Context, m *parley.Mailbox) gin.H {
	return gin.H{
		"id": m.ID, "name": m.Name, "slug": m.Slug, "email": m.Email,
		"createdAt": parley.FormatTime(m.CreatedAt), "updatedAt": parley.FormatTime(m.UpdatedAt),
		"_links": gin.H{
			"self":    link(s.url(c, "v2", "mailboxes", m.ID)),
			"fields":  link(s.url(c, "v2", "mailboxes", m.ID, "fields")),
			"folders": link(s.url(c, "v2", "mailboxes", m.ID, "folders")),
		},
	}
}

// listMailboxes handles GET /v2/mailboxes: the mailboxes the caller can
// access, 50 a page.
func (s *Server) listMailboxes(c *gin.Context) error {
	who := caller(c)
	return listRecords(s, c, readParams(c, "page"), "mailboxes", (parley.Tx).Mailboxes,
		func(m *parley.Mailbox) bool { return who.User.CanAccessMailbox(m.ID) },
		func(m *parley.Mailbox) (gin.H, error) { return s.mailboxResource(c, m), nil })
}

// loadMailbox reads a mailbox the caller can access from the path.
func (s *Server) loadMailbox(c *gin.Context) (*parley.Mailbox, error) {
	who := caller(c)
	id, err := pathID(c, "mailboxId")
	if err != nil {
		return nil, err
	}
	var m *parley.Mailbox
	err = s.store.View(func(tx parley.Tx) error {
		m, err = tx.Mailbox(who.Company.ID, id)
		return err
	})
	if err == nil && !who.User.CanAccessMailbox(m.ID) {
		err = parley.NotFound("mailbox")
	}
	return m, err
}

// getMailbox handles GET /v2/mailboxes/{mailboxId}.
func (s *Server) getMailbox(c *gin.Context) error {
	m, err := s.loadMailbox(c)
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.mailboxResource(c, m))
	return nil
}

// listMailboxFields handles GET /v2/mailboxes/{mailboxId}/fields.
func (s *Server) listMailboxFields(c *gin.Context) error {
	m, err := s.loadMailbox(c)
	if err == nil {
		err = readParams(c, "page").err()
	}
	if err != nil {
		return err
	}
	items := make([]gin.H, 0, len(m.Fields))
	for _, f := range m.Fields {
		options := make([]gin.H, 0, len(f.Options))
		for _, o := range f.Options {
			options = append(options, gin.H{"id": o.ID, "order": o.Order, "label": o.Label})
		}
		items = append(items, gin.H{"id": f.ID, "name": f.Name, "type": f.Type, "required": f.Required,
			"order": f.Order, "options": options})
	}
	s.renderPage(c, "fields", items, page{size: DefaultPageSize, number: 1, total: len(items)})
	return nil
}

// listMailboxFolders handles GET /v2/mailboxes/{mailboxId}/folders. The
// counts come from the index, so they are true to the data.
func (s *Server) listMailboxFolders(c *gin.Context) error {
	m, err := s.loadMailbox(c)
	if err == nil {
		err = readParams(c, "page").err()
	}
	if err != nil {
		return err
	}
	company := caller(c).Company.ID
	count := func(nodes ...query.Node) (int, error) {
		res, err := s.cfg.Engine.Search(c.Request.Context(), index.Request{Kind: index.Conversations, Company: company,
			Filter: query.And{Nodes: nodes}})
		return res.Total, err
	}
	items := make([]gin.H, 0, len(m.Folders))
	for _, f := range m.Folders {
		inFolder := query.EqualID("folderId", f.ID)
		total, err := count(inFolder)
		if err != nil {
			return err
		}
		active, err := count(inFolder, query.Keyword{Field: "status", Value: string(parley.StatusActive)})
		if err != nil {
			return err
		}
		items = append(items, gin.H{"id": f.ID, "name": f.Name, "type": f.Type, "userId": f.UserID,
			"totalCount": total, "activeCount": active, "updatedAt": parley.FormatTime(f.UpdatedAt)})
	}
	s.renderPage(c, "folders", items, page{size: DefaultPageSize, number: 1, total: len(items)})
	return nil
}

// listTags handles GET /v2/tags, 50 a page, with each tag's conversation count.
func (s *Server) listTags(c *gin.Context) error {
	return listRecords(s, c, readParams(c, "page"), "tags", (parley.Tx).Tags, nil, func(t *parley.Tag) (gin.H, error) {
		return s.tagResource(c, t)
	})
}

// getTag handles GET /v2/tags/{tagId}: one tag as the list shows it, with
// its self link.
func (s *Server) getTag(c *gin.Context) error {
	id, err := pathID(c, "tagId")
	if err == nil {
		err = readParams(c).err()
	}
	var t *parley.Tag
	if err == nil {
		err = s.store.View(func(tx parley.Tx) (err error) {
			t, err = tx.Tag(caller(c).Company.ID, id)
			return err
		})
	}
	var body gin.H
	if err == nil {
		body, err = s.tagResource(c, t)
	}
	if err != nil {
		return err
	}
	body["_links"] = gin.H{"self": link(s.url(c, "v2", "tags", t.ID))}
	render(c, http.StatusOK, body)
	return nil
}

// tagResource renders a tag with the count of conversations that carry it.
func (s *Server) tagResource(c *gin.Context, t *parley.Tag) (gin.H, error) {
	res, err := s.cfg.Engine.Search(c.Request.Context(), index.Request{Kind: index.Conversations, Company: caller(c).Company.ID,
		Filter: query.Keyword{Field: "tag", Value: t.Name}})
	return gin.H{"id": t.ID, "name": t.Name, "slug": t.Slug, "color": t.Color,
		"styles": tagStyles(t.Color), "ticketCount": res.Total,
		"createdAt": parley.FormatTime(t.CreatedAt), "updatedAt": parley.FormatTime(t.UpdatedAt)}, err
}

// updateTag handles PUT /v2/tags/{tagId}: rename and/or recolour (owners
// and administrators).
func (s *Server) updateTag(c *gin.Context) error {
	id, err := pathID(c, "tagId")
	var in parley.TagInput
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.UpdateTag(tx, caller(c), id, &in, s.now()) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deleteTag handles DELETE /v2/tags/{tagId}: the tag leaves every
// conversation (owners and administrators).
func (s *Server) deleteTag(c *gin.Context) error {
	id, err := pathID(c, "tagId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.DeleteTag(tx, caller(c), id, s.now()) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
