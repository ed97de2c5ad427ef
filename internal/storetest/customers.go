package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func newCustomer(company int64, first string, emails ...string) *parley.Customer {
	c := &parley.Customer{CompanyID: company, FirstName: first, LastName: "Customer", PhotoURL: "https://x.example/p.png",
		JobTitle: "CTO", Background: "bg", Location: "Paris", Gender: "unknown", Age: "40",
		Phones: []parley.Entry{{Value: "+33 1", Type: "work"}}, Websites: []parley.Entry{{Value: "https://x.example"}},
		Chats: []parley.Entry{{Value: "aim", Type: "aim"}}, SocialProfiles: []parley.Entry{{Value: "@x", Type: "twitter"}},
		Address:    &parley.Address{City: "Paris", Country: "FR", Lines: []string{"1 rue"}},
		Properties: map[string]string{"plan": "gold"}, CreatedAt: clock, UpdatedAt: at(1)}
	for _, e := range emails {
		c.Emails = append(c.Emails, parley.Entry{Value: e, Type: "work"})
	}
	return c
}

// testCustomers: Put assigns ids to the customer and its entries; e-mails
// are unique in a company (compared normalized), follow changes and
// deletes; an imported id moves the id sequence past it; every write
// queues the customer's document.
func testCustomers(t *testing.T, b Backend) {
	ann := newCustomer(1, "Ann", "ann@example.com", "ann@work.example")
	bob := newCustomer(1, "Bob", "bob@example.com")
	twin := newCustomer(2, "Ann", "ann@example.com")
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) }, func(tx parley.Tx) error { return tx.PutCustomer(bob) },
		func(tx parley.Tx) error { return tx.PutCustomer(twin) })
	require.NotZero(t, ann.ID)
	assert.Greater(t, bob.ID, ann.ID)
	for _, e := range [][]parley.Entry{ann.Emails, ann.Phones, ann.Chats, ann.SocialProfiles, ann.Websites} {
		assert.NotZero(t, e[0].ID, "entries get ids")
	}
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, ann.ID), entry(parley.OutboxCustomer, 1, bob.ID),
		entry(parley.OutboxCustomer, 2, twin.ID)}, drain(t, b))

	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.Customer(1, ann.ID) }))
	notFound(t, b, "another company's customer", func(tx parley.Tx) error { _, err := tx.Customer(2, ann.ID); return err })
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.CustomerByID(ann.ID) }))
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.CustomerByEmail(1, " ANN@work.example") }))
	assert.Equal(t, twin, get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.CustomerByEmail(2, "ann@example.com") }),
		"the same e-mail in another company is another customer")
	notFound(t, b, "an unknown e-mail", func(tx parley.Tx) error { _, err := tx.CustomerByEmail(1, "cy@example.com"); return err })
	assert.True(t, get(t, b, func(tx parley.Tx) (bool, error) { return tx.CustomerIDTaken(bob.ID), nil }))
	assert.False(t, get(t, b, func(tx parley.Tx) (bool, error) { return tx.CustomerIDTaken(twin.ID + 1), nil }))

	err := failure(t, b, func(tx parley.Tx) error {
		return tx.PutCustomer(newCustomer(1, "Dup", "x@example.com", "Bob@Example.com"))
	})
	assert.Equal(t, parley.CustomerEmailTaken("Bob@Example.com"), err)

	ann.Emails = ann.Emails[1:]
	ann.UpdatedAt = at(2)
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) })
	notFound(t, b, "a removed e-mail", func(tx parley.Tx) error { _, err := tx.CustomerByEmail(1, "ann@example.com"); return err })
	assert.Equal(t, ann, get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.CustomerByEmail(1, "ann@work.example") }))
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(newCustomer(1, "Cy", "ann@example.com")) })
	drain(t, b)

	put(t, b, func(tx parley.Tx) error { return tx.DeleteCustomer(bob) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, bob.ID)}, drain(t, b), "a delete queues the document's removal")
	notFound(t, b, "a deleted customer", func(tx parley.Tx) error { _, err := tx.Customer(1, bob.ID); return err })
	notFound(t, b, "a deleted customer by id", func(tx parley.Tx) error { _, err := tx.CustomerByID(bob.ID); return err })
	notFound(t, b, "a deleted customer's e-mail", func(tx parley.Tx) error { _, err := tx.CustomerByEmail(1, "bob@example.com"); return err })
	assert.False(t, get(t, b, func(tx parley.Tx) (bool, error) { return tx.CustomerIDTaken(bob.ID), nil }))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteCustomer(bob) })
	assert.Empty(t, drain(t, b), "deleting a missing customer does nothing")

	imported := newCustomer(1, "Imported")
	imported.ID = 1000
	fresh := newCustomer(1, "Fresh")
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(imported) }, func(tx parley.Tx) error { return tx.PutCustomer(fresh) })
	assert.Equal(t, int64(1000), imported.ID, "an imported id is kept")
	assert.Greater(t, fresh.ID, int64(1000), "later ids do not reach an imported one")
}

// testCustomerConversations: a customer's conversations (deleted ones
// left out) follow the conversations' customer, and a rename or an e-mail
// change queues their documents, which show the customer.
func testCustomerConversations(t *testing.T, b Backend) {
	ann, bob := newCustomer(1, "Ann", "ann@example.com"), newCustomer(1, "Bob")
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) }, func(tx parley.Tx) error { return tx.PutCustomer(bob) })
	convs := []*parley.Conversation{
		{CompanyID: 1, CustomerID: ann.ID, MailboxID: 8, State: parley.StatePublished},
		{CompanyID: 1, CustomerID: ann.ID, MailboxID: 7, State: parley.StatePublished},
		{CompanyID: 1, CustomerID: ann.ID, MailboxID: 8, State: parley.StatePublished},
		{CompanyID: 1, CustomerID: ann.ID, MailboxID: 9, State: parley.StateDeleted},
		{CompanyID: 1, CustomerID: bob.ID, MailboxID: 9, State: parley.StatePublished},
	}
	put(t, b, func(tx parley.Tx) error {
		for _, c := range convs {
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	})
	drain(t, b)
	view(t, b, func(tx parley.Tx) error {
		assert.Equal(t, []int64{convs[0].ID, convs[1].ID, convs[2].ID}, tx.CustomerConversationIDs(1, ann.ID))
		assert.Equal(t, 3, tx.ConversationCount(1, ann.ID))
		assert.Equal(t, []int64{8, 7}, tx.CustomerMailboxes(1, ann.ID), "in the order of their first conversation")
		assert.Empty(t, tx.CustomerConversationIDs(1, ann.ID+bob.ID+1))
		assert.Zero(t, tx.ConversationCount(1, ann.ID+bob.ID+1))
		return nil
	})

	convs[1].CustomerID = bob.ID
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(convs[1]) })
	drain(t, b)
	view(t, b, func(tx parley.Tx) error {
		assert.Equal(t, []int64{convs[0].ID, convs[2].ID}, tx.CustomerConversationIDs(1, ann.ID))
		assert.Equal(t, []int64{convs[1].ID, convs[4].ID}, tx.CustomerConversationIDs(1, bob.ID))
		assert.Equal(t, []int64{7, 9}, tx.CustomerMailboxes(1, bob.ID))
		return nil
	})

	ann.FirstName = "Anna"
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxConversation, 1, convs[0].ID), entry(parley.OutboxConversation, 1, convs[2].ID),
		entry(parley.OutboxCustomer, 1, ann.ID)}, drain(t, b), "a rename queues the customer's conversations, then the customer")
	ann.Emails = append(ann.Emails, parley.Entry{Value: "anna@example.com"})
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) })
	assert.Len(t, drain(t, b), 3, "so does a change of e-mails")
	ann.JobTitle = "CEO"
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, ann.ID)}, drain(t, b), "other changes queue the customer only")

	put(t, b, func(tx parley.Tx) error { return tx.DeleteCustomer(bob) })
	view(t, b, func(tx parley.Tx) error {
		assert.Empty(t, tx.CustomerConversationIDs(1, bob.ID), "a deleted customer has no conversations")
		assert.Zero(t, tx.ConversationCount(1, bob.ID))
		assert.Empty(t, tx.CustomerMailboxes(1, bob.ID))
		return nil
	})
}

// testPropertyDefs: definitions are listed by slug, a new one's slug must
// be free in the company, ids go to new definitions and new options.
func testPropertyDefs(t *testing.T, b Backend) {
	def := func(company int64, slug string) *parley.PropertyDef {
		return &parley.PropertyDef{CompanyID: company, Slug: slug, Name: "Def " + slug, Type: "dropdown",
			Options: []parley.PropertyOption{{Label: "One"}, {Label: "Two"}}, CreatedAt: clock}
	}
	zeta, alpha, other := def(1, "zeta"), def(1, "alpha"), def(2, "zeta")
	put(t, b, func(tx parley.Tx) error { return tx.PutPropertyDef(zeta) }, func(tx parley.Tx) error { return tx.PutPropertyDef(alpha) },
		func(tx parley.Tx) error { return tx.PutPropertyDef(other) })
	require.NotZero(t, zeta.ID)
	assert.Greater(t, alpha.ID, zeta.ID)
	assert.NotZero(t, zeta.Options[1].ID)
	assert.Equal(t, []parley.PropertyDef{*alpha, *zeta}, get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.PropertyDefs(1) }),
		"in slug order")
	err := failure(t, b, func(tx parley.Tx) error { return tx.PutPropertyDef(def(1, "alpha")) })
	assert.Equal(t, parley.PropertySlugTaken(&parley.CustomerProperties, "alpha"), err)
	put(t, b, func(tx parley.Tx) error { return tx.DeletePropertyDef(1, "alpha") })
	assert.Equal(t, []parley.PropertyDef{*zeta}, get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.PropertyDefs(1) }))
	assert.Equal(t, []parley.PropertyDef{*other}, get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.PropertyDefs(2) }))

	size, region := def(1, "size"), def(1, "region")
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganizationPropertyDef(size, true) },
		func(tx parley.Tx) error { return tx.PutOrganizationPropertyDef(region, true) })
	require.NotZero(t, size.ID)
	assert.Equal(t, []parley.PropertyDef{*region, *size},
		get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.OrganizationPropertyDefs(1) }))
	assert.Equal(t, []parley.PropertyDef{*zeta}, get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.PropertyDefs(1) }),
		"customer and organization definitions are apart")
	err = failure(t, b, func(tx parley.Tx) error { return tx.PutOrganizationPropertyDef(def(1, "size"), true) })
	assert.Equal(t, parley.PropertySlugTaken(&parley.OrganizationProperties, "size"), err)

	id := size.ID
	size.Name = "Size"
	size.Options = append(size.Options, parley.PropertyOption{Label: "Three"})
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganizationPropertyDef(size, false) })
	assert.Equal(t, id, size.ID, "an update keeps the id")
	assert.NotZero(t, size.Options[2].ID)
	assert.Equal(t, []parley.PropertyDef{*region, *size},
		get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.OrganizationPropertyDefs(1) }))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteOrganizationPropertyDef(1, "region") })
	assert.Equal(t, []parley.PropertyDef{*size},
		get(t, b, func(tx parley.Tx) ([]parley.PropertyDef, error) { return tx.OrganizationPropertyDefs(1) }))
}

// testOrganizations: listed by name (case-insensitive) then id, found by
// name; domains are unique in a company; a delete unlinks the customers.
func testOrganizations(t *testing.T, b Backend) {
	org := func(company int64, name string, domains ...string) *parley.Organization {
		return &parley.Organization{CompanyID: company, Name: name, Website: "https://x.example", Description: "d", Location: "l",
			LogoURL: "https://x.example/l.png", Note: "n", BrandColor: ptr("#fff"), Domains: domains, Phones: []string{"+1"},
			Properties: map[string]string{"size": "1"}, CreatedAt: clock, UpdatedAt: at(1)}
	}
	zeta, acme, acme2 := org(1, "Zeta", "zeta.example"), org(1, "acme", "acme.example"), org(1, " ACME ")
	other := org(2, "Acme", "zeta.example")
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganization(zeta) }, func(tx parley.Tx) error { return tx.PutOrganization(acme) },
		func(tx parley.Tx) error { return tx.PutOrganization(acme2) }, func(tx parley.Tx) error { return tx.PutOrganization(other) })
	require.NotZero(t, zeta.ID)
	assert.Greater(t, acme.ID, zeta.ID)
	assert.Equal(t, zeta, get(t, b, func(tx parley.Tx) (*parley.Organization, error) { return tx.Organization(1, zeta.ID) }))
	notFound(t, b, "another company's organization", func(tx parley.Tx) error { _, err := tx.Organization(2, zeta.ID); return err })
	assert.Equal(t, []parley.Organization{*acme, *acme2, *zeta},
		get(t, b, func(tx parley.Tx) ([]parley.Organization, error) { return tx.Organizations(1) }), "by name, then id")
	assert.Equal(t, []parley.Organization{*acme, *acme2},
		get(t, b, func(tx parley.Tx) ([]parley.Organization, error) { return tx.OrganizationsByName(1, "Acme") }), "by name, in id order")
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.Organization, error) { return tx.OrganizationsByName(1, "Nope") }))

	err := failure(t, b, func(tx parley.Tx) error { return tx.PutOrganization(org(1, "Dup", "new.example", "acme.example")) })
	assert.Equal(t, parley.OrganizationDomainTaken(1, "acme.example"), err)

	acme.Name, acme.Domains = "Beta", []string{"beta.example"}
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganization(acme) })
	assert.Equal(t, []parley.Organization{*acme2}, get(t, b, func(tx parley.Tx) ([]parley.Organization, error) { return tx.OrganizationsByName(1, "acme") }))
	assert.Equal(t, []parley.Organization{*acme}, get(t, b, func(tx parley.Tx) ([]parley.Organization, error) { return tx.OrganizationsByName(1, "beta") }))
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganization(org(1, "Taker", "acme.example")) })

	ann, bob, cy := newCustomer(1, "Ann"), newCustomer(1, "Bob"), newCustomer(1, "Cy")
	ann.OrganizationID, ann.Organization = zeta.ID, zeta.Name
	bob.OrganizationID, bob.Organization = zeta.ID, zeta.Name
	cy.OrganizationID, cy.Organization = acme.ID, acme.Name
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(ann) }, func(tx parley.Tx) error { return tx.PutCustomer(bob) },
		func(tx parley.Tx) error { return tx.PutCustomer(cy) })
	assert.Equal(t, []int64{ann.ID, bob.ID}, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.OrganizationCustomerIDs(1, zeta.ID), nil }))
	bob.OrganizationID = acme.ID
	put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(bob) })
	assert.Equal(t, []int64{ann.ID}, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.OrganizationCustomerIDs(1, zeta.ID), nil }),
		"the link follows the customer")
	assert.Equal(t, []int64{bob.ID, cy.ID}, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.OrganizationCustomerIDs(1, acme.ID), nil }))
	drain(t, b)

	put(t, b, func(tx parley.Tx) error { return tx.DeleteOrganization(acme, at(9)) })
	assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, bob.ID), entry(parley.OutboxCustomer, 1, cy.ID)}, drain(t, b),
		"the unlinked customers are reindexed")
	notFound(t, b, "a deleted organization", func(tx parley.Tx) error { _, err := tx.Organization(1, acme.ID); return err })
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]int64, error) { return tx.OrganizationCustomerIDs(1, acme.ID), nil }))
	unlinked := get(t, b, func(tx parley.Tx) (*parley.Customer, error) { return tx.Customer(1, cy.ID) })
	assert.Zero(t, unlinked.OrganizationID)
	assert.Empty(t, unlinked.Organization)
	assert.Equal(t, at(9), unlinked.UpdatedAt)
	put(t, b, func(tx parley.Tx) error { return tx.PutOrganization(org(1, "Reuse", "beta.example")) })
}
