package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// listCustomerProperties handles GET /v2/customer-properties: the
// company's definitions in slug order (one page holds them all).
func (s *Server) listCustomerProperties(c *gin.Context) error {
	return s.listPropertyDefs(c, "customer-properties", s.url(c, "v2", "customer-properties"), (parley.Tx).PropertyDefs, s.propertyResource)
}

// listPropertyDefs renders every definition of the caller's company, as
// loaded by defs, under _embedded.<rel> (one page holds them all).
func (s *Server) listPropertyDefs(c *gin.Context, rel, self string, defs func(parley.Tx, int64) ([]parley.PropertyDef, error),
	resource func(*gin.Context, *parley.PropertyDef) propertyDefView) error {
	if err := readParams(c).err(); err != nil {
		return err
	}
	var list []parley.PropertyDef
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		list, err = defs(tx, caller(c).Company.ID)
		return err
	})
	if err != nil {
		return err
	}
	items := make([]propertyDefView, 0, len(list))
	for i := range list {
		items = append(items, resource(c, &list[i]))
	}
	render(c, http.StatusOK, newList(rel, self, items))
	return nil
}

// createCustomerProperty handles POST /v2/customer-properties: owners and
// administrators define a property.
func (s *Server) createCustomerProperty(c *gin.Context) error {
	var in parley.PropertyDefInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	var d *parley.PropertyDef
	err := s.write(c, func(tx parley.Tx) (err error) {
		d, err = parley.DefineProperty(tx, caller(c), &in, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.created(c, d.ID, s.url(c, "v2", "customer-properties", d.ID))
	return nil
}

// getCustomerProperty handles GET /v2/customer-properties/{slug}; a
// numeric reference that is no slug is read as the definition's id.
func (s *Server) getCustomerProperty(c *gin.Context) error {
	var found *parley.PropertyDef
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		defs, err := tx.PropertyDefs(caller(c).Company.ID)
		if err == nil {
			found, err = parley.FindPropertyDef(defs, c.Param("slug"))
		}
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.propertyResource(c, found))
	return nil
}

// deleteCustomerProperty handles DELETE /v2/customer-properties/{slug}:
// the definition and every customer's value go, freeing the slug.
func (s *Server) deleteCustomerProperty(c *gin.Context) error {
	err := s.write(c, func(tx parley.Tx) error {
		return parley.DeleteProperty(tx, caller(c), c.Param("slug"))
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// propertyDefView is a property definition: a customer property's has an
// id and, for a dropdown, options with ids; an organization property's
// has neither id nor option ids.
type propertyDefView struct {
	Links   selfLinks           `json:"_links"`
	ID      *int64              `json:"id,omitempty"`
	Name    string              `json:"name"`
	Options *[]optionView       `json:"options,omitempty"`
	Slug    string              `json:"slug"`
	Type    parley.PropertyType `json:"type"`
}

// optionView is a dropdown option.
type optionView struct {
	ID    *int64 `json:"id,omitempty"`
	Label string `json:"label"`
}

// propertyResource renders a customer property definition.
func (s *Server) propertyResource(c *gin.Context, d *parley.PropertyDef) propertyDefView {
	item := propertyDefView{ID: &d.ID, Slug: d.Slug, Name: d.Name, Type: d.Type,
		Links: selfLinks{link(s.url(c, "v2", "customer-properties", d.ID))}}
	if d.Type == parley.PropertyDropdown {
		opts := make([]optionView, 0, len(d.Options))
		for _, o := range d.Options {
			opts = append(opts, optionView{ID: &o.ID, Label: o.Label})
		}
		item.Options = &opts
	}
	return item
}
