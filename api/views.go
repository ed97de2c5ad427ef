package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

// savedViewResource is a saved view (Parley's own resource): its query,
// its list filters named as GET /v2/conversations names them, and its
// sort; userId is its owner, as on a folder.
type savedViewResource struct {
	Links struct {
		Conversations halLink `json:"conversations"`
		Self          halLink `json:"self"`
	} `json:"_links"`
	CreatedAt  string          `json:"createdAt"`
	Filters    viewFiltersView `json:"filters"`
	ID         int64           `json:"id"`
	MailboxID  int64           `json:"mailboxId,omitempty"`
	ModifiedAt string          `json:"modifiedAt"`
	Name       string          `json:"name"`
	Query      string          `json:"query"`
	SortField  string          `json:"sortField"`
	SortOrder  string          `json:"sortOrder"`
	UserID     int64           `json:"userId"`
	Visibility string          `json:"visibility"`
}

// viewFiltersView is a view's filters with the list's parameter names.
type viewFiltersView struct {
	AssignedTo    *int64   `json:"assigned_to,omitempty"`
	Mailbox       []int64  `json:"mailbox,omitempty"`
	ModifiedSince string   `json:"modifiedSince,omitempty"`
	Status        string   `json:"status,omitempty"`
	Tag           []string `json:"tag,omitempty"`
}

func (s *Server) savedViewResource(c *gin.Context, v *parley.SavedView) *savedViewResource {
	out := &savedViewResource{ID: v.ID, Name: v.Name, Visibility: v.Visibility, MailboxID: v.MailboxID, UserID: v.OwnerID,
		Query: v.Query, SortField: v.SortField, SortOrder: v.SortOrder,
		CreatedAt: parley.FormatTime(v.CreatedAt), ModifiedAt: parley.FormatTime(v.ModifiedAt),
		Filters: viewFiltersView{AssignedTo: v.Filters.AssignedTo, Mailbox: v.Filters.Mailboxes, Status: v.Filters.Status, Tag: v.Filters.Tags}}
	if v.Filters.ModifiedSince != nil {
		out.Filters.ModifiedSince = parley.FormatTime(*v.Filters.ModifiedSince)
	}
	out.Links.Self = link(s.url(c, "v2", "views", v.ID))
	out.Links.Conversations = link(s.url(c, "v2", "conversations") + "?folder=" + strconv.FormatInt(v.ID, 10))
	return out
}

// listSavedViews handles GET /v2/views (Parley's own): the caller's private
// views and the shared views of its mailboxes, in id order, paged;
// `mailboxId` keeps those listed among that mailbox's folders.
func (s *Server) listSavedViews(c *gin.Context) error {
	p := readParams(c, "page", "mailboxId")
	var mailboxID int64
	if id := p.id("mailboxId"); id != nil {
		mailboxID = *id
	}
	return listRecords(s, c, p, "views",
		func(tx parley.Tx, _ int64) ([]parley.SavedView, error) {
			return parley.SavedViewsOf(tx, caller(c), mailboxID)
		}, nil,
		func(v *parley.SavedView) (*savedViewResource, error) { return s.savedViewResource(c, v), nil })
}

// getSavedView handles GET /v2/views/{id} (Parley's own).
func (s *Server) getSavedView(c *gin.Context) error {
	id, err := pathID(c, "viewId")
	if err == nil {
		err = readParams(c).err()
	}
	var v *parley.SavedView
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			v, err = parley.LoadSavedView(tx, caller(c), id)
			return err
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.savedViewResource(c, v))
	return nil
}

// createSavedView handles POST /v2/views (Parley's own): 201 with
// Resource-ID and Location.
func (s *Server) createSavedView(c *gin.Context) error {
	var in parley.SavedViewInput
	err := decodeJSON(c, &in)
	var v *parley.SavedView
	if err == nil {
		err = s.write(c, func(tx parley.Tx) (err error) {
			v, err = parley.CreateSavedView(tx, caller(c), &in, search.CheckQuery, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	s.created(c, v.ID, s.url(c, "v2", "views", v.ID))
	return nil
}

// updateSavedView handles PUT /v2/views/{id} (Parley's own): 204.
func (s *Server) updateSavedView(c *gin.Context) error {
	id, err := pathID(c, "viewId")
	var in parley.SavedViewInput
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.UpdateSavedView(tx, caller(c), id, &in, search.CheckQuery, s.now())
		})
	}
	return s.noContent(c, err)
}

// deleteSavedView handles DELETE /v2/views/{id} (Parley's own): 204.
func (s *Server) deleteSavedView(c *gin.Context) error {
	id, err := pathID(c, "viewId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.DeleteSavedView(tx, caller(c), id) })
	}
	return s.noContent(c, err)
}
