package parley

import (
	"fmt"
	"strings"
	"time"
)

// Conversation limits of a customer (Help Scout's docs, "Limits").
const (
	// MaxDeletableConversations: a customer is deleted permanently only
	// with at most this many conversations.
	MaxDeletableConversations = 100
	// MaxModifiableConversations: above this many conversations a customer
	// refuses modifying operations with 423.
	MaxModifiableConversations = 5000
)

// CustomerFields are the scalar fields of Create and Overwrite Customer.
// Nil means absent. ConversationCount is accepted and ignored: the count is
// derived from the customer's conversations.
type CustomerFields struct {
	FirstName         *string `json:"firstName"`
	LastName          *string `json:"lastName"`
	Phone             *string `json:"phone"`
	PhotoURL          *string `json:"photoUrl"`
	PhotoType         *string `json:"photoType"`
	JobTitle          *string `json:"jobTitle"`
	Background        *string `json:"background"`
	Location          *string `json:"location"`
	Organization      *string `json:"organization"`
	OrganizationID    *int64  `json:"organizationId"`
	Gender            *string `json:"gender"`
	Age               *string `json:"age"`
	ConversationCount *int64  `json:"conversationCount"`
}

// NewCustomerRequest is the body of Create Customer.
type NewCustomerRequest struct {
	CustomerFields
	// Keep is set by an import only (never read from a request): the id
	// and creation time the customer had, the id kept when free.
	Keep           *KeptCustomer  `json:"-"`
	Emails         []EntryInput   `json:"emails"`
	Phones         []EntryInput   `json:"phones"`
	Chats          []EntryInput   `json:"chats"`
	SocialProfiles []EntryInput   `json:"socialProfiles"`
	Websites       []EntryInput   `json:"websites"`
	Address        *AddressInput  `json:"address"`
	Properties     PropertyValues `json:"properties"`
}

func (f *CustomerFields) input() *CustomerInput {
	return &CustomerInput{FirstName: f.FirstName, LastName: f.LastName, Phone: f.Phone, PhotoURL: f.PhotoURL,
		PhotoType: f.PhotoType, JobTitle: f.JobTitle, Background: f.Background, Location: f.Location,
		Organization: f.Organization, OrganizationID: f.OrganizationID, Gender: f.Gender, Age: f.Age}
}

// Validate checks the limits of Help Scout's docs on every given field.
func (f *CustomerFields) Validate(p *Problems) {
	f.input().Validate(p, "")
	if f.Age != nil && len([]rune(*f.Age)) > MaxShortTextLength {
		p.Add("age", CodeSize, sizeMessage(0, MaxShortTextLength), *f.Age)
	}
}

func (r *NewCustomerRequest) lists() []struct {
	kind EntryKind
	in   []EntryInput
} {
	return []struct {
		kind EntryKind
		in   []EntryInput
	}{{EmailEntries, r.Emails}, {PhoneEntries, r.Phones}, {ChatEntries, r.Chats}, {SocialEntries, r.SocialProfiles}, {WebsiteEntries, r.Websites}}
}

// Validate checks everything that needs no stored record.
func (r *NewCustomerRequest) Validate() error {
	p := &Problems{}
	r.CustomerFields.Validate(p)
	for _, l := range r.lists() {
		seen := map[string]bool{}
		for i, e := range l.in {
			path := fmt.Sprintf("%s[%d]", l.kind.Field, i)
			e.validate(p, l.kind, path+".")
			if e.Value != nil {
				v := e.normalized(l.kind)
				if seen[v] {
					p.Add(path+".value", CodeConflict, "is listed twice", *e.Value)
				}
				seen[v] = true
			}
		}
	}
	if r.Address != nil {
		r.Address.validate(p, "address.")
	}
	return p.Err()
}

// CreateCustomer applies Create Customer within tx: entries, address,
// properties (which must be defined) and the organization (`organizationId`,
// or else `organization` matched or created by name). r must have passed
// Validate.
func CreateCustomer(tx Tx, companyID int64, r *NewCustomerRequest, now time.Time) (*Customer, error) {
	c := r.input().NewCustomer(companyID, now)
	for _, l := range r.lists() {
		list := c.Entries(l.kind)
		for _, e := range l.in {
			*list = append(*list, e.entry(l.kind))
		}
	}
	if r.Address != nil {
		c.Address = r.Address.address()
	}
	if len(r.Properties) > 0 {
		defs, err := tx.PropertyDefs(companyID)
		if err != nil {
			return nil, err
		}
		if err := ApplyProperties(c, defs, r.Properties); err != nil {
			return nil, err
		}
	}
	if err := LinkOrganization(tx, c, r.OrganizationID, r.Organization, "organizationId", now); err != nil {
		return nil, err
	}
	if k := r.Keep; k != nil {
		if k.ID > 0 && !tx.CustomerIDTaken(k.ID) {
			c.ID = k.ID
		}
		if !k.CreatedAt.IsZero() {
			c.CreatedAt = k.CreatedAt
		}
	}
	if err := tx.PutCustomer(c); err != nil {
		return nil, err
	}
	return c, emit(tx, EventCustomerCreated, companyID, c.ID, now)
}

// KeptCustomer is what an import keeps of a customer from another system.
type KeptCustomer struct {
	ID        int64
	CreatedAt time.Time
}

// OverwriteCustomer applies Overwrite Customer: every scalar field absent
// from f becomes null; entries, address and properties are untouched.
func OverwriteCustomer(tx Tx, companyID, id int64, f *CustomerFields, now time.Time) error {
	p := &Problems{}
	f.Validate(p)
	if err := p.Err(); err != nil {
		return err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	fresh := f.input().NewCustomer(companyID, now)
	c.FirstName, c.LastName, c.PhotoURL, c.PhotoType = fresh.FirstName, fresh.LastName, fresh.PhotoURL, fresh.PhotoType
	c.JobTitle, c.Background, c.Location, c.Gender, c.Age = fresh.JobTitle, fresh.Background, fresh.Location, fresh.Gender, fresh.Age
	c.Organization, c.OrganizationID = "", 0
	if err := LinkOrganization(tx, c, f.OrganizationID, f.Organization, "organizationId", now); err != nil {
		return err
	}
	c.UpdatedAt = now
	return saveCustomer(tx, c, now)
}

// modifiableCustomer loads a customer that modifying operations may change:
// one with more than 5,000 conversations answers 423.
func modifiableCustomer(tx Tx, companyID, id int64) (*Customer, error) {
	c, err := tx.Customer(companyID, id)
	if err != nil {
		return nil, err
	}
	if n := tx.ConversationCount(c.CompanyID, c.ID); n > MaxModifiableConversations {
		msg := fmt.Sprintf("the customer has %d conversations; customers with more than %d cannot be modified", n, MaxModifiableConversations)
		return nil, &Error{Kind: KindCustomerLocked, Message: CodeCustomerLocked,
			Errors: []FieldError{{Code: CodeCustomerLocked, Message: msg, Path: "customerId", Origin: OriginSubject, RejectedValue: id}}}
	}
	return c, nil
}

// DeleteCustomer deletes a customer permanently with its conversations; a
// customer with more than 100 conversations is refused.
func DeleteCustomer(tx Tx, companyID, id int64, now time.Time) error {
	c, err := tx.Customer(companyID, id)
	if err != nil {
		return err
	}
	convs := tx.CustomerConversationIDs(c.CompanyID, c.ID)
	if len(convs) > MaxDeletableConversations {
		return InvalidID("customerId", CodeRejectedRequest, fmt.Sprintf(
			"the customer has %d conversations; only customers with at most %d conversations can be deleted permanently",
			len(convs), MaxDeletableConversations), id)
	}
	for _, convID := range convs {
		conv, err := tx.Conversation(companyID, convID)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteLater(companyID, LaterWorkflow, conv.ID); err != nil {
			return err
		}
		conv.State, conv.ModifiedAt = StateDeleted, now
		if err := tx.PutConversation(conv); err != nil {
			return err
		}
		if err := emit(tx, EventConvoDeleted, companyID, conv.ID, now); err != nil {
			return err
		}
	}
	if err := tx.DeleteCustomer(c); err != nil {
		return err
	}
	return emit(tx, EventCustomerDeleted, companyID, c.ID, now)
}

// LinkOrganization sets the customer's organization: by id when given (it
// must exist; idPath names it in the error), else by name (matched or
// created; empty unlinks), else leaves it. Every way of writing a customer
// (the API's and the demo data's) goes through here, so Organization is
// always the linked organization's name.
func LinkOrganization(tx Tx, c *Customer, id *int64, name *string, idPath string, now time.Time) error {
	switch {
	case id != nil:
		o, err := tx.Organization(c.CompanyID, *id)
		if IsNotFound(err) {
			return InvalidField(idPath, CodeInvalidID, "no organization with this id", *id)
		}
		if err != nil {
			return err
		}
		c.OrganizationID, c.Organization = o.ID, o.Name
	case name != nil && strings.TrimSpace(*name) == "":
		c.OrganizationID, c.Organization = 0, ""
	case name != nil:
		o, err := organizationByName(tx, c.CompanyID, strings.TrimSpace(*name), now)
		if err != nil {
			return err
		}
		c.OrganizationID, c.Organization = o.ID, o.Name
	}
	return nil
}
