package api

import (
	"net/http"
	"sort"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

var (
	organizationListParams = []string{"page", "query", "sortField", "sortOrder"}
	organizationSortFields = []string{"name", "createdAt"}
)

// listOrganizations handles GET /v2/organizations: 50 a page; `query`
// matches names and domains (case-insensitive substring); sorted by name
// (default, ascending) or createdAt, the id breaking ties.
func (s *Server) listOrganizations(c *gin.Context) error {
	who := caller(c)
	p := readParams(c, organizationListParams...)
	sortField := p.enum("sortField", "name", organizationSortFields)
	desc := p.enum("sortOrder", "asc", parley.SortOrders) == "desc"
	pg := page{size: DefaultPageSize, number: p.page()}
	needle, _ := p.raw("query")
	needle = strings.ToLower(strings.TrimSpace(needle))
	if err := p.err(); err != nil {
		return err
	}
	var orgs []parley.Organization
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		all, err := tx.Organizations(who.Company.ID)
		for _, o := range all {
			if needle == "" || organizationMatches(&o, needle) {
				orgs = append(orgs, o)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.SliceStable(orgs, func(i, j int) bool {
		a, b := orgs[i], orgs[j]
		if desc {
			a, b = b, a
		}
		if sortField == "createdAt" && !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		if an, bn := strings.ToLower(a.Name), strings.ToLower(b.Name); sortField == "name" && an != bn {
			return an < bn
		}
		return a.ID < b.ID
	})
	pg.total = len(orgs)
	items := []*organizationView{}
	shown := pageOf(orgs, pg)
	for i := range shown {
		items = append(items, s.organizationResource(c, &shown[i]))
	}
	renderPage(s, c, "organizations", items, pg)
	return nil
}

func organizationMatches(o *parley.Organization, needle string) bool {
	if strings.Contains(strings.ToLower(o.Name), needle) {
		return true
	}
	for _, d := range o.Domains {
		if strings.Contains(d, needle) {
			return true
		}
	}
	return false
}

// createOrganization handles POST /v2/organizations.
func (s *Server) createOrganization(c *gin.Context) error {
	var in parley.OrganizationInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	var o *parley.Organization
	err := s.write(c, func(tx parley.Tx) (err error) {
		o, err = parley.CreateOrganization(tx, caller(c).Company.ID, &in, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.created(c, o.ID, s.url(c, "v2", "organizations", o.ID))
	return nil
}

// getOrganization handles GET /v2/organizations/{organizationId}, with
// `includeCounts` (customerCount, conversationCount) and
// `includeProperties` (properties).
func (s *Server) getOrganization(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "organizationId")
	p := readParams(c, "includeCounts", "includeProperties")
	counts, props := boolParam(p, "includeCounts"), boolParam(p, "includeProperties")
	if err == nil {
		err = p.err()
	}
	var body *organizationView
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			o, err := tx.Organization(who.Company.ID, id)
			if err != nil {
				return err
			}
			body = s.organizationResource(c, o)
			if counts {
				customers := tx.OrganizationCustomerIDs(o.CompanyID, o.ID)
				conversations := 0
				for _, cid := range customers {
					conversations += tx.ConversationCount(o.CompanyID, cid)
				}
				count := len(customers)
				body.CustomerCount, body.ConversationCount = &count, &conversations
			}
			if props {
				defs, err := tx.OrganizationPropertyDefs(who.Company.ID)
				if err != nil {
					return err
				}
				values := organizationPropertyValues(o, defs)
				body.Properties = &values
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// boolParam reads an optional `true`/`false` parameter.
func boolParam(p *params, name string) bool {
	return p.enum(name, "false", []string{"true", "false"}) == "true"
}

// updateOrganization handles PUT /v2/organizations/{organizationId}.
func (s *Server) updateOrganization(c *gin.Context) error {
	var in parley.OrganizationInput
	id, err := pathID(c, "organizationId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.ReplaceOrganization(tx, caller(c).Company.ID, id, &in, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deleteOrganization handles DELETE /v2/organizations/{organizationId}.
func (s *Server) deleteOrganization(c *gin.Context) error {
	id, err := pathID(c, "organizationId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.RemoveOrganization(tx, caller(c).Company.ID, id, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// organizationCustomers resolves the organization of the path and its
// customer ids, for the two sub-lists.
func (s *Server) organizationCustomers(c *gin.Context) ([]int64, error) {
	id, err := pathID(c, "organizationId")
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		o, err := tx.Organization(caller(c).Company.ID, id)
		if err == nil {
			ids = tx.OrganizationCustomerIDs(o.CompanyID, o.ID)
		}
		return err
	})
	return ids, err
}

// listOrganizationCustomers handles GET /v2/organizations/{organizationId}/customers:
// 50 a page, in id (creation) order.
func (s *Server) listOrganizationCustomers(c *gin.Context) error {
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	ids, err := s.organizationCustomers(c)
	if err == nil {
		err = p.err()
	}
	var items []*customerResource
	if err == nil {
		pg.total = len(ids)
		items, err = s.customerItems(c, caller(c).Company.ID, pageOf(ids, pg))
	}
	if err != nil {
		return err
	}
	renderPage(s, c, "customers", items, pg)
	return nil
}

// listOrganizationConversations handles GET /v2/organizations/{organizationId}/conversations:
// 25 a page, newest first, every status; served by the index on the
// organization's customers.
func (s *Server) listOrganizationConversations(c *gin.Context) error {
	p := readParams(c, "page")
	pg := page{size: ConversationPageSize, number: p.page()}
	ids, err := s.organizationCustomers(c)
	if err == nil {
		err = p.err()
	}
	var found *search.Page
	if err == nil {
		found, err = search.ListConversations(c.Request.Context(), s.searchDeps(), search.Conversations{Caller: caller(c),
			Filter: parley.ConversationFilter{CustomerIDs: &ids}, Status: "all", SortField: "createdAt", SortOrder: "desc",
			Offset: pg.offset(), Limit: pg.size})
	}
	var items []*conversationView
	if err == nil {
		items, err = s.conversationItems(c, found, &pg, false)
	}
	if err != nil {
		return err
	}
	renderPage(s, c, "conversations", items, pg)
	return nil
}

// organizationView is an organization; empty scalars are null. The
// counts and property values are sent when asked for.
type organizationView struct {
	Links             organizationLinks            `json:"_links"`
	BrandColor        *string                      `json:"brandColor"`
	ConversationCount *int                         `json:"conversationCount,omitempty"`
	CreatedAt         string                       `json:"createdAt"`
	CustomerCount     *int                         `json:"customerCount,omitempty"`
	Description       *string                      `json:"description"`
	Domains           []string                     `json:"domains"`
	ID                int64                        `json:"id"`
	Location          *string                      `json:"location"`
	LogoURL           *string                      `json:"logoUrl"`
	Name              string                       `json:"name"`
	Note              *string                      `json:"note"`
	Phones            []string                     `json:"phones"`
	Properties        *[]organizationPropertyValue `json:"properties,omitempty"`
	UpdatedAt         string                       `json:"updatedAt"`
	Website           *string                      `json:"website"`
}

type organizationLinks struct {
	Conversations halLink `json:"conversations"`
	Customers     halLink `json:"customers"`
	Self          halLink `json:"self"`
}

// organizationResource renders an organization; empty scalars are null.
func (s *Server) organizationResource(c *gin.Context, o *parley.Organization) *organizationView {
	null := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	self := s.url(c, "v2", "organizations", o.ID)
	return &organizationView{
		ID: o.ID, Name: o.Name, Website: null(o.Website), Description: null(o.Description),
		Location: null(o.Location), LogoURL: null(o.LogoURL), Note: null(o.Note), BrandColor: o.BrandColor,
		Domains: nonNil(o.Domains), Phones: nonNil(o.Phones),
		CreatedAt: parley.FormatTime(o.CreatedAt), UpdatedAt: parley.FormatTime(o.UpdatedAt),
		Links: organizationLinks{Self: link(self), Customers: link(self + "/customers"), Conversations: link(self + "/conversations")},
	}
}
