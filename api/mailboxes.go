package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

// mailboxView is a mailbox; the admin API adds its company and widgets.
type mailboxView struct {
	Links struct {
		Fields  halLink `json:"fields"`
		Folders halLink `json:"folders"`
		Self    halLink `json:"self"`
	} `json:"_links"`
	CompanyID *int64    `json:"companyId,omitempty"`
	CreatedAt string    `json:"createdAt"`
	Email     string    `json:"email"`
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	UpdatedAt string    `json:"updatedAt"`
	Widgets   *[]string `json:"widgets,omitempty"`
}

func (s *Server) mailboxResource(c *gin.Context, m *parley.Mailbox) *mailboxView {
	v := &mailboxView{ID: m.ID, Name: m.Name, Slug: m.Slug, Email: m.Email,
		CreatedAt: parley.FormatTime(m.CreatedAt), UpdatedAt: parley.FormatTime(m.UpdatedAt)}
	v.Links.Self = link(s.url(c, "v2", "mailboxes", m.ID))
	v.Links.Fields = link(s.url(c, "v2", "mailboxes", m.ID, "fields"))
	v.Links.Folders = link(s.url(c, "v2", "mailboxes", m.ID, "folders"))
	return v
}

// listMailboxes handles GET /v2/mailboxes: the mailboxes the caller can
// access, 50 a page.
func (s *Server) listMailboxes(c *gin.Context) error {
	who := caller(c)
	return listRecords(s, c, readParams(c, "page"), "mailboxes", (parley.Tx).Mailboxes,
		func(m *parley.Mailbox) bool { return who.User.CanAccessMailbox(m.ID) },
		func(m *parley.Mailbox) (*mailboxView, error) { return s.mailboxResource(c, m), nil })
}

// loadMailbox reads a mailbox the caller can access from the path.
func (s *Server) loadMailbox(c *gin.Context) (*parley.Mailbox, error) {
	who := caller(c)
	id, err := pathID(c, "mailboxId")
	if err != nil {
		return nil, err
	}
	var m *parley.Mailbox
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
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
	items := make([]*fieldView, 0, len(m.Fields))
	for i := range m.Fields {
		items = append(items, newFieldView(&m.Fields[i]))
	}
	renderPage(s, c, "fields", items, page{size: DefaultPageSize, number: 1, total: len(items)})
	return nil
}

// listMailboxFolders handles GET /v2/mailboxes/{mailboxId}/folders: the
// system folders, then the saved views listed among them (type "view"):
// the mailbox's shared views and the caller's private views that name it.
// The counts come from the index, so they are true to the data; a view's
// counts are of its conversations in this mailbox, what
// `GET /v2/conversations?folder={view}&mailbox={mailboxId}` lists (a view
// may name several mailboxes).
func (s *Server) listMailboxFolders(c *gin.Context) error {
	m, err := s.loadMailbox(c)
	if err == nil {
		err = readParams(c, "page").err()
	}
	if err != nil {
		return err
	}
	folders, err := search.Folders(c.Request.Context(), s.searchDeps(), caller(c), m)
	if err != nil {
		return err
	}
	type folderView struct {
		ActiveCount int               `json:"activeCount"`
		ID          int64             `json:"id"`
		Name        string            `json:"name"`
		TotalCount  int               `json:"totalCount"`
		Type        parley.FolderType `json:"type"`
		UpdatedAt   string            `json:"updatedAt"`
		UserID      int64             `json:"userId"`
	}
	items := make([]folderView, 0, len(folders))
	for _, f := range folders {
		items = append(items, folderView{ID: f.ID, Name: f.Name, Type: f.Type, UserID: f.UserID, UpdatedAt: parley.FormatTime(f.UpdatedAt),
			TotalCount: f.Total, ActiveCount: f.Active})
	}
	renderPage(s, c, "folders", items, page{size: DefaultPageSize, number: 1, total: len(items)})
	return nil
}

// listTags handles GET /v2/tags, 50 a page, with each tag's conversation count.
func (s *Server) listTags(c *gin.Context) error {
	return listRecords(s, c, readParams(c, "page"), "tags", (parley.Tx).Tags, nil, func(t *parley.Tag) (*tagView, error) {
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
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			t, err = tx.Tag(caller(c).Company.ID, id)
			return err
		})
	}
	var body *tagView
	if err == nil {
		body, err = s.tagResource(c, t)
	}
	if err != nil {
		return err
	}
	body.Links = &selfLinks{link(s.url(c, "v2", "tags", t.ID))}
	render(c, http.StatusOK, body)
	return nil
}

// tagView is a tag. The tag endpoints send the count of conversations
// that carry it; a webhook payload does not.
type tagView struct {
	Links       *selfLinks    `json:"_links,omitempty"`
	Color       string        `json:"color"`
	CreatedAt   string        `json:"createdAt"`
	ID          int64         `json:"id"`
	Name        string        `json:"name"`
	Slug        string        `json:"slug"`
	Styles      tagStylesView `json:"styles"`
	TicketCount *int          `json:"ticketCount,omitempty"`
	UpdatedAt   string        `json:"updatedAt"`
}

func newTagView(t *parley.Tag) *tagView {
	return &tagView{ID: t.ID, Name: t.Name, Slug: t.Slug, Color: t.Color, Styles: tagStyles(t.Color),
		CreatedAt: parley.FormatTime(t.CreatedAt), UpdatedAt: parley.FormatTime(t.UpdatedAt)}
}

// tagResource renders a tag with the count of conversations that carry it
// in the mailboxes the caller sees.
func (s *Server) tagResource(c *gin.Context, t *parley.Tag) (*tagView, error) {
	n, err := search.CountConversations(c.Request.Context(), s.searchDeps(), caller(c), parley.ConversationFilter{Tags: []string{t.Name}})
	v := newTagView(t)
	v.TicketCount = &n
	return v, err
}

// fieldView is a mailbox's custom field.
type fieldView struct {
	ID       int64             `json:"id"`
	Name     string            `json:"name"`
	Options  []fieldOptionView `json:"options"`
	Order    int               `json:"order"`
	Required bool              `json:"required"`
	Type     parley.FieldType  `json:"type"`
}

type fieldOptionView struct {
	ID    int64  `json:"id"`
	Label string `json:"label"`
	Order int    `json:"order"`
}

func newFieldView(f *parley.FieldDef) *fieldView {
	v := &fieldView{ID: f.ID, Name: f.Name, Type: f.Type, Required: f.Required, Order: f.Order,
		Options: make([]fieldOptionView, 0, len(f.Options))}
	for _, o := range f.Options {
		v.Options = append(v.Options, fieldOptionView{ID: o.ID, Order: o.Order, Label: o.Label})
	}
	return v
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
