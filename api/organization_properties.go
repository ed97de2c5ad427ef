package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// listOrganizationProperties handles GET /v2/organizations/properties: the
// company's definitions in slug order (at most 50: one page).
func (s *Server) listOrganizationProperties(c *gin.Context) error {
	return s.listPropertyDefs(c, "organization-properties", s.url(c, "v2", "organizations", "properties"),
		(parley.Tx).OrganizationPropertyDefs, s.organizationPropertyResource)
}

// createOrganizationProperty handles POST /v2/organizations/properties:
// owners and administrators define a property.
func (s *Server) createOrganizationProperty(c *gin.Context) error {
	var in parley.PropertyDefInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	var d *parley.PropertyDef
	err := s.write(c, func(tx parley.Tx) (err error) {
		d, err = parley.DefineOrganizationProperty(tx, caller(c), &in, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.created(c, d.ID, s.url(c, "v2", "organizations", "properties", d.Slug))
	return nil
}

// getOrganizationProperty handles GET /v2/organizations/properties/{slug}.
func (s *Server) getOrganizationProperty(c *gin.Context) error {
	var d *parley.PropertyDef
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		d, err = parley.FindOrganizationPropertyDef(tx, caller(c).Company.ID, c.Param("slug"))
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.organizationPropertyResource(c, d))
	return nil
}

// updateOrganizationProperty handles PUT /v2/organizations/properties/{slug}:
// the name, and a dropdown's whole option list.
func (s *Server) updateOrganizationProperty(c *gin.Context) error {
	var in parley.PropertyDefInput
	err := decodeJSON(c, &in)
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.ReviseOrganizationProperty(tx, caller(c), c.Param("slug"), &in, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deleteOrganizationProperty handles DELETE /v2/organizations/properties/{slug}.
func (s *Server) deleteOrganizationProperty(c *gin.Context) error {
	err := s.write(c, func(tx parley.Tx) error {
		return parley.DeleteOrganizationProperty(tx, caller(c), c.Param("slug"), s.now())
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// setOrganizationProperty handles PUT /v2/organizations/{organizationId}/properties/{slug}.
func (s *Server) setOrganizationProperty(c *gin.Context) error {
	var in parley.PropertyValueInput
	id, err := pathID(c, "organizationId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.SetOrganizationProperty(tx, caller(c).Company.ID, id, c.Param("slug"), &in, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// removeOrganizationProperty handles DELETE /v2/organizations/{organizationId}/properties/{slug}.
func (s *Server) removeOrganizationProperty(c *gin.Context) error {
	id, err := pathID(c, "organizationId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.RemoveOrganizationProperty(tx, caller(c).Company.ID, id, c.Param("slug"), s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// organizationPropertyResource renders a definition as Help Scout does:
// type, slug, name, and a dropdown's options by label.
func (s *Server) organizationPropertyResource(c *gin.Context, d *parley.PropertyDef) propertyDefView {
	item := propertyDefView{Type: d.Type, Slug: d.Slug, Name: d.Name,
		Links: selfLinks{link(s.url(c, "v2", "organizations", "properties", d.Slug))}}
	if d.Type == parley.PropertyDropdown {
		item.Options = optionLabels(d)
	}
	return item
}

// organizationPropertyValue is one of an organization's property values,
// with its definition.
type organizationPropertyValue struct {
	DefinitionID int64               `json:"definitionId"`
	Name         string              `json:"name"`
	Options      *[]optionView       `json:"options,omitempty"`
	Slug         string              `json:"slug"`
	Type         parley.PropertyType `json:"type"`
	Value        string              `json:"value"`
}

// organizationPropertyValues renders an organization's values for
// `includeProperties=true`.
func organizationPropertyValues(o *parley.Organization, defs []parley.PropertyDef) []organizationPropertyValue {
	out := []organizationPropertyValue{}
	for _, v := range parley.OrganizationPropertyValues(o, defs) {
		item := organizationPropertyValue{DefinitionID: v.Def.ID, Slug: v.Def.Slug, Name: v.Def.Name, Type: v.Def.Type, Value: v.Value}
		if v.Def.Type == parley.PropertyDropdown {
			item.Options = optionLabels(v.Def)
		}
		out = append(out, item)
	}
	return out
}

// optionLabels are a dropdown's options by label alone.
func optionLabels(d *parley.PropertyDef) *[]optionView {
	opts := make([]optionView, 0, len(d.Options))
	for _, o := range d.Options {
		opts = append(opts, optionView{Label: o.Label})
	}
	return &opts
}
