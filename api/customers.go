package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

var (
	customerListParams = []string{"page", "mailbox", "firstName", "lastName", "modifiedSince", "sortField", "sortOrder", "query"}
	customerSortFields = []string{"createdAt", "firstName", "lastName", "modifiedAt"}
)

// listCustomers handles GET /v2/customers: 50 a page, served by the index.
func (s *Server) listCustomers(c *gin.Context) error {
	who := caller(c)
	p := readParams(c, customerListParams...)
	nodes := []query.Node{query.All{}}
	if id := p.id("mailbox"); id != nil {
		nodes = append(nodes, query.EqualID("mailboxId", *id))
	}
	nodes = append(nodes, customerFieldFilters(p, "modifiedSince")...)
	sortField := p.enum("sortField", "createdAt", customerSortFields)
	desc := p.enum("sortOrder", "desc", sortOrders) == "desc"
	pg := page{size: DefaultPageSize, number: p.page()}
	if err := p.err(); err != nil {
		return err
	}
	search, err := s.parseQuery(c, index.CustomerSchema)
	if err != nil {
		return err
	}
	r := index.Request{
		Kind: index.Customers, Company: who.Company.ID, Filter: query.And{Nodes: nodes}, Query: search,
		Sort:   []index.Sort{{Field: index.SortFields[index.Customers][sortField], Desc: desc}},
		Offset: pg.offset(), Limit: pg.size,
	}
	res, err := s.cfg.Engine.Search(c.Request.Context(), r)
	if err == nil {
		pg.suggestions, err = s.suggest(c, r, res.Total)
	}
	if err != nil {
		return err
	}
	pg.total = res.Total
	items, err := s.customerItems(c, who.Company.ID, index.ParseIDs(res.IDs))
	if err != nil {
		return err
	}
	s.renderPage(c, "customers", items, pg)
	return nil
}

// customerFieldFilters turns the filters both customer lists share, the
// names and the given "<field>Since" times, into index nodes.
func customerFieldFilters(p *params, since ...string) []query.Node {
	var nodes []query.Node
	for _, name := range []string{"firstName", "lastName"} {
		if v, ok := p.raw(name); ok {
			nodes = append(nodes, query.Match{Field: name, Text: v})
		}
	}
	for _, name := range since {
		if t := p.time(name); t != nil {
			field := strings.TrimSuffix(name, "Since") + "At"
			nodes = append(nodes, query.TimeRange{Field: field, From: t, FromInclusive: true})
		}
	}
	return nodes
}

// getCustomer handles GET /v2/customers/{customerId}.
func (s *Server) getCustomer(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "customerId")
	if err == nil {
		err = readParams(c).err()
	}
	if err != nil {
		return err
	}
	var body gin.H
	err = s.store.View(func(tx parley.Tx) error {
		cu, err := tx.Customer(who.Company.ID, id)
		if err != nil {
			return err
		}
		body, err = s.newCustomerView(c, tx, who.Company.ID).resource(cu, true)
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// customerItems loads and renders customers in the given order, skipping
// any deleted since the search.
func (s *Server) customerItems(c *gin.Context, companyID int64, ids []int64) ([]gin.H, error) {
	var items []gin.H
	err := s.store.View(func(tx parley.Tx) error {
		v := s.newCustomerView(c, tx, companyID)
		for _, id := range ids {
			cu, err := tx.Customer(companyID, id)
			if parley.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			item, err := v.resource(cu, false)
			if err != nil {
				return err
			}
			items = append(items, item)
		}
		return nil
	})
	return items, err
}

// customerView renders customers of one company within one read
// transaction, loading the property definitions once.
type customerView struct {
	s    *Server
	c    *gin.Context
	tx   parley.Tx
	defs []parley.PropertyDef
	err  error
}

// newCustomerView prepares the rendering of a company's customers.
func (s *Server) newCustomerView(c *gin.Context, tx parley.Tx, companyID int64) *customerView {
	defs, err := tx.PropertyDefs(companyID)
	return &customerView{s: s, c: c, tx: tx, defs: defs, err: err}
}

// resource renders SPEC's Customer; the address is embedded on the
// single-customer read only. `organization` is the linked organization's
// current name (or the legacy string when none is linked).
func (v *customerView) resource(cu *parley.Customer, withAddress bool) (gin.H, error) {
	if v.err != nil {
		return nil, v.err
	}
	s, c, tx := v.s, v.c, v.tx
	entries := func(list []parley.Entry, typed bool) []gin.H {
		out := make([]gin.H, 0, len(list))
		for _, e := range list {
			item := gin.H{"id": e.ID, "value": e.Value}
			if typed {
				item["type"] = e.Type
			}
			out = append(out, item)
		}
		return out
	}
	embedded := gin.H{
		"emails":          entries(cu.Emails, true),
		"phones":          entries(cu.Phones, true),
		"chats":           entries(cu.Chats, true),
		"social_profiles": entries(cu.SocialProfiles, true),
		"websites":        entries(cu.Websites, false),
		"properties":      v.properties(cu),
	}
	if withAddress {
		embedded["address"] = addressResource(cu.Address)
	}
	self := s.url(c, "v2", "customers", cu.ID)
	links := gin.H{
		"self": link(self), "address": link(self + "/address"), "chats": link(self + "/chats"),
		"emails": link(self + "/emails"), "phones": link(self + "/phones"),
		"social-profiles": link(self + "/social-profiles"), "websites": link(self + "/websites"),
	}
	out := gin.H{
		"id": cu.ID, "firstName": cu.FirstName, "lastName": cu.LastName, "photoUrl": cu.PhotoURL,
		"photoType": cu.PhotoType, "jobTitle": cu.JobTitle, "background": cu.Background, "location": cu.Location,
		"organization": cu.Organization, "gender": cu.Gender, "age": cu.Age, "draft": cu.Draft,
		"conversationCount": tx.ConversationCount(cu.ID),
		"createdAt":         parley.FormatTime(cu.CreatedAt), "updatedAt": parley.FormatTime(cu.UpdatedAt),
		"_embedded": embedded,
	}
	if cu.OrganizationID != 0 {
		out["organizationId"] = cu.OrganizationID
		if o, err := tx.Organization(cu.CompanyID, cu.OrganizationID); err == nil {
			out["organization"] = o.Name
		}
		links["organization"] = link(s.url(c, "v2", "organizations", cu.OrganizationID))
	}
	out["_links"] = links
	return out, nil
}

// properties renders every property defined in the company, with `value`
// and `text` only when the customer has a value.
func (v *customerView) properties(cu *parley.Customer) []gin.H {
	out := make([]gin.H, 0, len(v.defs))
	for i := range v.defs {
		d := &v.defs[i]
		item := gin.H{"type": d.Type, "slug": d.Slug, "name": d.Name, "source": gin.H{"name": "API"}}
		if val, ok := cu.Properties[d.Slug]; ok {
			item["value"], item["text"] = val, d.Text(val)
		}
		out = append(out, item)
	}
	return out
}

// addressResource renders an address; none renders empty fields.
func addressResource(a *parley.Address) gin.H {
	if a == nil {
		return gin.H{"city": "", "state": "", "postalCode": "", "country": "", "lines": []string{}}
	}
	return gin.H{"city": a.City, "state": a.State, "postalCode": a.PostalCode, "country": a.Country, "lines": nonNil(a.Lines)}
}
