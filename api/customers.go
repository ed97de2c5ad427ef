package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
)

var (
	customerListParams = []string{"page", "mailbox", "firstName", "lastName", "modifiedSince", "sortField", "sortOrder", "query", "facets"}
	customerSortFields = []string{"createdAt", "firstName", "lastName", "modifiedAt"}
)

// listCustomers handles GET /v2/customers: 50 a page, served by the index
// (search.ListCustomers).
func (s *Server) listCustomers(c *gin.Context) error {
	who := caller(c)
	p := readParams(c, customerListParams...)
	r := search.Customers{Company: who.Company.ID, Filter: parley.CustomerFilter{MailboxID: p.id("mailbox")}.VisibleTo(who), Suggest: true}
	readCustomerFilter(p, &r.Filter, "modifiedSince")
	r.SortField = p.enum("sortField", "createdAt", customerSortFields)
	r.Desc = p.enum("sortOrder", "desc", parley.SortOrders) == "desc"
	pg := page{size: DefaultPageSize, number: p.page()}
	r.Offset, r.Limit = pg.offset(), pg.size
	r.Facets, r.Problems = p.list("facets"), p.problems
	var err error
	if r.Query, err = queryText(c); err != nil {
		return err
	}
	found, err := search.ListCustomers(c.Request.Context(), s.searchDeps(), r)
	if err != nil {
		return err
	}
	pg.total, pg.suggestions = found.Total, found.Suggestions
	items, err := s.customerItems(c, who.Company.ID, found.IDs)
	if err != nil {
		return err
	}
	body := pageBody(s, c, "customers", items, pg)
	body.Facets = found.Facets
	render(c, http.StatusOK, body)
	return nil
}

// readCustomerFilter reads into f the filters both customer lists share:
// the names, and the given times of createdSince and modifiedSince.
func readCustomerFilter(p *params, f *parley.CustomerFilter, since ...string) {
	if v, ok := p.raw("firstName"); ok {
		f.FirstName = &v
	}
	if v, ok := p.raw("lastName"); ok {
		f.LastName = &v
	}
	for _, name := range since {
		switch name {
		case "createdSince":
			f.CreatedSince = p.time(name)
		case "modifiedSince":
			f.ModifiedSince = p.time(name)
		}
	}
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
	var body *customerResource
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
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
func (s *Server) customerItems(c *gin.Context, companyID int64, ids []int64) ([]*customerResource, error) {
	var items []*customerResource
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		// One read for the page, one for its conversation counts.
		customers, err := tx.CustomersByIDs(companyID, ids)
		if err != nil {
			return err
		}
		found := make([]int64, len(customers))
		for i := range customers {
			found[i] = customers[i].ID
		}
		v := s.newCustomerView(c, tx, companyID)
		if v.counts, err = tx.ConversationCounts(companyID, found); err != nil {
			return err
		}
		for i := range customers {
			item, err := v.resource(&customers[i], false)
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
	// counts, when set, holds the conversation counts of a page of
	// customers read at once; otherwise each customer's is read.
	counts map[int64]int
}

// newCustomerView prepares the rendering of a company's customers.
func (s *Server) newCustomerView(c *gin.Context, tx parley.Tx, companyID int64) *customerView {
	defs, err := tx.PropertyDefs(companyID)
	return &customerView{s: s, c: c, tx: tx, defs: defs, err: err}
}

// customerResource is Help Scout's Customer.
type customerResource struct {
	Embedded          customerEmbedded `json:"_embedded"`
	Links             customerLinks    `json:"_links"`
	Age               string           `json:"age"`
	Background        string           `json:"background"`
	ConversationCount int              `json:"conversationCount"`
	CreatedAt         string           `json:"createdAt"`
	Draft             bool             `json:"draft"`
	FirstName         string           `json:"firstName"`
	Gender            string           `json:"gender"`
	ID                int64            `json:"id"`
	JobTitle          string           `json:"jobTitle"`
	LastName          string           `json:"lastName"`
	Location          string           `json:"location"`
	Organization      string           `json:"organization"`
	OrganizationID    int64            `json:"organizationId,omitempty"`
	PhotoType         string           `json:"photoType"`
	PhotoURL          string           `json:"photoUrl"`
	UpdatedAt         string           `json:"updatedAt"`
}

type customerEmbedded struct {
	Address        *addressView    `json:"address,omitempty"`
	Chats          []entryView     `json:"chats"`
	Emails         []entryView     `json:"emails"`
	Phones         []entryView     `json:"phones"`
	Properties     []propertyValue `json:"properties"`
	SocialProfiles []entryView     `json:"social_profiles"`
	Websites       []entryView     `json:"websites"`
}

type customerLinks struct {
	Address        halLink  `json:"address"`
	Chats          halLink  `json:"chats"`
	Emails         halLink  `json:"emails"`
	Organization   *halLink `json:"organization,omitempty"`
	Phones         halLink  `json:"phones"`
	Self           halLink  `json:"self"`
	SocialProfiles halLink  `json:"social-profiles"`
	Websites       halLink  `json:"websites"`
}

// entryView is one of a customer's e-mails, phones, chat handles, social
// profiles or websites (which have no type).
type entryView struct {
	ID    int64  `json:"id"`
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

// resource renders Help Scout's Customer; the address is embedded on the
// single-customer read only. `organization` is the linked organization's
// current name (or the legacy string when none is linked, or it is gone).
func (v *customerView) resource(cu *parley.Customer, withAddress bool) (*customerResource, error) {
	if v.err != nil {
		return nil, v.err
	}
	s, c, tx := v.s, v.c, v.tx
	entries := func(list []parley.Entry, typed bool) []entryView {
		out := make([]entryView, 0, len(list))
		for _, e := range list {
			item := entryView{ID: e.ID, Value: e.Value}
			if typed {
				item.Type = e.Type
			}
			out = append(out, item)
		}
		return out
	}
	self := s.url(c, "v2", "customers", cu.ID)
	out := &customerResource{
		ID: cu.ID, FirstName: cu.FirstName, LastName: cu.LastName, PhotoURL: cu.PhotoURL,
		PhotoType: cu.PhotoType, JobTitle: cu.JobTitle, Background: cu.Background, Location: cu.Location,
		Organization: cu.Organization, Gender: cu.Gender, Age: cu.Age, Draft: cu.Draft,
		ConversationCount: v.conversationCount(cu),
		CreatedAt:         parley.FormatTime(cu.CreatedAt), UpdatedAt: parley.FormatTime(cu.UpdatedAt),
		Embedded: customerEmbedded{
			Emails:         entries(cu.Emails, true),
			Phones:         entries(cu.Phones, true),
			Chats:          entries(cu.Chats, true),
			SocialProfiles: entries(cu.SocialProfiles, true),
			Websites:       entries(cu.Websites, false),
			Properties:     v.properties(cu),
		},
		Links: customerLinks{
			Self: link(self), Address: link(self + "/address"), Chats: link(self + "/chats"),
			Emails: link(self + "/emails"), Phones: link(self + "/phones"),
			SocialProfiles: link(self + "/social-profiles"), Websites: link(self + "/websites"),
		},
	}
	if withAddress {
		a := addressResource(cu.Address)
		out.Embedded.Address = &a
	}
	if cu.OrganizationID != 0 {
		out.OrganizationID = cu.OrganizationID
		o, err := tx.Organization(cu.CompanyID, cu.OrganizationID)
		if err != nil && !parley.IsNotFound(err) {
			return nil, err
		}
		if o != nil {
			out.Organization = o.Name
		}
		out.Links.Organization = linkTo(s.url(c, "v2", "organizations", cu.OrganizationID))
	}
	return out, nil
}

// conversationCount is a customer's conversation count, from the page's
// counts when they were read at once.
func (v *customerView) conversationCount(cu *parley.Customer) int {
	if v.counts != nil {
		return v.counts[cu.ID]
	}
	return v.tx.ConversationCount(cu.CompanyID, cu.ID)
}

// propertyValue is a customer property: every property defined in the
// company, with `value` and `text` only when the customer has a value.
type propertyValue struct {
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Source struct {
		Name string `json:"name"`
	} `json:"source"`
	Text  *string             `json:"text,omitempty"`
	Type  parley.PropertyType `json:"type"`
	Value *string             `json:"value,omitempty"`
}

// properties renders every property defined in the company, with `value`
// and `text` only when the customer has a value.
func (v *customerView) properties(cu *parley.Customer) []propertyValue {
	out := make([]propertyValue, 0, len(v.defs))
	for i := range v.defs {
		d := &v.defs[i]
		item := propertyValue{Type: d.Type, Slug: d.Slug, Name: d.Name}
		item.Source.Name = "API"
		if val, ok := cu.Properties[d.Slug]; ok {
			text := d.Text(val)
			item.Value, item.Text = &val, &text
		}
		out = append(out, item)
	}
	return out
}

// addressView is a customer's address; read on its own, it links to the
// customer.
type addressView struct {
	Links      *addressLinks `json:"_links,omitempty"`
	City       string        `json:"city"`
	Country    string        `json:"country"`
	Lines      []string      `json:"lines"`
	PostalCode string        `json:"postalCode"`
	State      string        `json:"state"`
}

type addressLinks struct {
	Customer halLink `json:"customer"`
	Self     halLink `json:"self"`
}

// addressResource renders an address; none renders empty fields.
func addressResource(a *parley.Address) addressView {
	if a == nil {
		return addressView{Lines: []string{}}
	}
	return addressView{City: a.City, State: a.State, PostalCode: a.PostalCode, Country: a.Country, Lines: nonNil(a.Lines)}
}
