package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// testCopyCredentials: every company's OAuth records are listed, and
// OfCompany keeps a company's, with the refresh tokens and V1 exchanges of
// its grants.
func testCopyCredentials(t *testing.T, b Backend) {
	var want [3]parley.Credentials // by company; [0] is everything
	for company, suffix := range map[int64]string{1: "a", 2: "b"} {
		c := parley.Credentials{
			Apps:          []parley.App{{ClientID: "client-" + suffix, CompanyID: company, UserID: 2, Name: "App", SecretHash: "bcrypt", CreatedAt: clock}},
			Grants:        []parley.Grant{{ID: "grant-" + suffix, ClientID: "client-" + suffix, CompanyID: company, UserID: 2, CreatedAt: clock}},
			AuthCodes:     []parley.AuthCode{{Hash: "code-" + suffix, ClientID: "client-" + suffix, CompanyID: company, UserID: 2, ExpiresAt: at(1)}},
			Tokens:        []parley.Token{{Hash: "token-" + suffix, ClientID: "client-" + suffix, CompanyID: company, UserID: 2, ExpiresAt: at(60)}},
			RefreshTokens: []parley.RefreshToken{{Hash: "refresh-" + suffix, GrantID: "grant-" + suffix, ClientID: "client-" + suffix, ExpiresAt: at(600)}},
			V1Exchanges:   []parley.V1Exchange{{KeyHash: "key-" + suffix, ClientID: "client-" + suffix, Salt: "salt", GrantID: "grant-" + suffix, ExpiresAt: at(60)}},
			Sessions:      []parley.Session{{Hash: "session-" + suffix, CompanyID: company, UserID: 2, ExpiresAt: at(30)}},
		}
		want[company] = c
		put(t, b, func(tx parley.Tx) error { return putCredentials(tx, c) })
	}
	got := get(t, b, func(tx parley.Tx) (*parley.Credentials, error) { return tx.Credentials() })
	all := parley.Credentials{}
	for _, c := range want[1:] {
		all.Apps, all.Grants, all.AuthCodes = append(all.Apps, c.Apps...), append(all.Grants, c.Grants...), append(all.AuthCodes, c.AuthCodes...)
		all.Tokens, all.RefreshTokens = append(all.Tokens, c.Tokens...), append(all.RefreshTokens, c.RefreshTokens...)
		all.V1Exchanges, all.Sessions = append(all.V1Exchanges, c.V1Exchanges...), append(all.Sessions, c.Sessions...)
	}
	assert.Equal(t, all, *got, "every company's, each kind in key order")
	for company := int64(1); company <= 2; company++ {
		assert.Equal(t, want[company], got.OfCompany(company), "company %d", company)
	}
	assert.Equal(t, parley.Credentials{}, got.OfCompany(3))
}

// putCredentials stores every record of c.
func putCredentials(tx parley.Tx, c parley.Credentials) error {
	for _, put := range []func() error{
		func() error { return each(c.Apps, tx.PutApp) },
		func() error { return each(c.Grants, tx.PutGrant) },
		func() error { return each(c.AuthCodes, tx.PutAuthCode) },
		func() error { return each(c.Tokens, tx.PutToken) },
		func() error { return each(c.RefreshTokens, tx.PutRefreshToken) },
		func() error { return each(c.V1Exchanges, tx.PutV1Exchange) },
		func() error { return each(c.Sessions, tx.PutSession) },
	} {
		if err := put(); err != nil {
			return err
		}
	}
	return nil
}

func each[T any](list []T, put func(*T) error) error {
	for i := range list {
		if err := put(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

// familyPuts stores a record of each id family and returns its id: the
// one given, or a new one when id is 0.
func familyPuts() map[parley.IDFamily]func(tx parley.Tx, id int64) (int64, error) {
	return map[parley.IDFamily]func(tx parley.Tx, id int64) (int64, error){
		parley.FamilyCompanies: func(tx parley.Tx, id int64) (int64, error) {
			c := &parley.Company{ID: id, Name: "Acme", CreatedAt: clock}
			return c.ID, tx.PutCompany(c)
		},
		parley.FamilyUsers: func(tx parley.Tx, id int64) (int64, error) {
			u := newUser(1, "Ann", "")
			u.ID, u.Email = id, "u"+itoa(id)+"@example.com"
			u.AlternateEmails = nil
			return u.ID, tx.PutUser(u)
		},
		parley.FamilyMailboxes: func(tx parley.Tx, id int64) (int64, error) {
			m := &parley.Mailbox{ID: id, CompanyID: 1, Name: "Box", Email: "box" + itoa(id) + "@example.com", CreatedAt: clock}
			return m.ID, tx.PutMailbox(m)
		},
		parley.FamilyItems: func(tx parley.Tx, id int64) (int64, error) {
			m := &parley.Mailbox{CompanyID: 1, Name: "Box", CreatedAt: clock, Folders: []parley.Folder{{ID: id, Name: "Mine"}}}
			err := tx.PutMailbox(m)
			return m.Folders[0].ID, err
		},
		parley.FamilySavedReplies: func(tx parley.Tx, id int64) (int64, error) {
			r := &parley.SavedReply{ID: id, CompanyID: 1, MailboxID: 2, Name: "Hi " + itoa(id), Text: "Hello", CreatedAt: clock}
			return r.ID, tx.PutSavedReply(r)
		},
		parley.FamilyCustomers: func(tx parley.Tx, id int64) (int64, error) {
			c := &parley.Customer{ID: id, CompanyID: 1, FirstName: "Cy", CreatedAt: clock}
			return c.ID, tx.PutCustomer(c)
		},
		parley.FamilyCustomerProperties: func(tx parley.Tx, id int64) (int64, error) {
			d := &parley.PropertyDef{ID: id, CompanyID: 1, Slug: "p" + itoa(id), Name: "P", Type: "text", CreatedAt: clock}
			return d.ID, tx.PutPropertyDef(d)
		},
		parley.FamilyOrganizations: func(tx parley.Tx, id int64) (int64, error) {
			o := &parley.Organization{ID: id, CompanyID: 1, Name: "Org " + itoa(id), CreatedAt: clock}
			return o.ID, tx.PutOrganization(o)
		},
		parley.FamilyOrganizationProperties: func(tx parley.Tx, id int64) (int64, error) {
			d := &parley.PropertyDef{ID: id, CompanyID: 1, Slug: "o" + itoa(id), Name: "O", Type: "text", CreatedAt: clock}
			return d.ID, tx.PutOrganizationPropertyDef(d, true)
		},
		parley.FamilyTags: func(tx parley.Tx, id int64) (int64, error) {
			x := &parley.Tag{ID: id, CompanyID: 1, Name: "tag" + itoa(id), Slug: "tag" + itoa(id), CreatedAt: clock}
			return x.ID, tx.PutTag(x)
		},
		parley.FamilyConversations: func(tx parley.Tx, id int64) (int64, error) {
			c := newConversation(1, 7, 2)
			c.ID = id
			return c.ID, tx.PutConversation(c)
		},
		parley.FamilyThreads: func(tx parley.Tx, id int64) (int64, error) {
			th := &parley.Thread{ID: id, ConversationID: 1, CompanyID: 1, Type: parley.ThreadMessage, CreatedAt: clock}
			return th.ID, tx.PutThread(th)
		},
		parley.FamilyRatings: func(tx parley.Tx, id int64) (int64, error) {
			th := &parley.Thread{ConversationID: 1, CompanyID: 1, Type: parley.ThreadMessage, CreatedAt: clock,
				Rating: &parley.Rating{ID: id, Rating: "great"}}
			err := tx.PutThread(th)
			return th.Rating.ID, err
		},
		parley.FamilyAttachments: func(tx parley.Tx, id int64) (int64, error) {
			a := &parley.Attachment{ID: id, CompanyID: 1, ConversationID: 1, ThreadID: 1, FileName: "a.txt", State: parley.AttachmentOK, CreatedAt: clock}
			return a.ID, tx.PutAttachment(a, []byte("a"))
		},
		parley.FamilyWebhooks: func(tx parley.Tx, id int64) (int64, error) {
			w := newWebhook(1, "hook")
			w.ID = id
			return w.ID, tx.PutWebhook(w)
		},
		parley.FamilyDeliveries: func(tx parley.Tx, id int64) (int64, error) {
			d := parley.NewDelivery(&parley.Webhook{ID: 1, CompanyID: 1}, parley.Event{Kind: "convo.created", CompanyID: 1, ResourceID: "9"}, nil, at(1))
			d.ID = id
			return d.ID, tx.PutDelivery(d)
		},
		parley.FamilyMail: func(tx parley.Tx, id int64) (int64, error) {
			m := &parley.Mail{ID: id, CompanyID: 1, MailboxID: 2, ConversationID: 1, Kind: parley.MailKind("reply"), MessageID: itoa(id) + "@example.com",
				Status: parley.MailStatus("sent"), CreatedAt: clock}
			return m.ID, tx.PutMail(m)
		},
		parley.FamilyWorkflows: func(tx parley.Tx, id int64) (int64, error) {
			w := &parley.Workflow{ID: id, CompanyID: 1, MailboxID: 2, Name: "wf", Type: "manual", Status: "active", CreatedAt: clock}
			return w.ID, tx.PutWorkflow(w)
		},
		parley.FamilyWorkflowRuns: func(tx parley.Tx, id int64) (int64, error) {
			r := &parley.WorkflowRun{ID: id, CompanyID: 1, WorkflowID: 1, ConversationID: 1, At: clock}
			return r.ID, tx.PutWorkflowRun(r)
		},
	}
}

// testKeepIDsPast: for every id family, a record put with a given id
// keeps it, and once KeepIDsPast moved the family's sequence, the next new
// record's id lies beyond. An unknown family is an error.
func testKeepIDsPast(t *testing.T, b Backend) {
	puts := familyPuts()
	require.Len(t, puts, len(parley.IDFamilies), "a case for every family")
	for i, family := range parley.IDFamilies {
		given := int64(5000 + 1000*i)
		var kept, next int64
		put(t, b, func(tx parley.Tx) error {
			var err error
			kept, err = puts[family](tx, given)
			return err
		})
		assert.Equal(t, given, kept, "%s: a given id is kept", family)
		past := given + 500
		put(t, b, func(tx parley.Tx) error { return tx.KeepIDsPast(family, past) })
		put(t, b, func(tx parley.Tx) error {
			var err error
			next, err = puts[family](tx, 0)
			return err
		})
		assert.Greater(t, next, past, "%s: a new id lies past the kept one", family)
	}
	err := failure(t, b, func(tx parley.Tx) error { return tx.KeepIDsPast("no such family", 1) })
	assert.Contains(t, err.Error(), "no such family")
}

func itoa(n int64) string { return fmt.Sprint(n) }

// testGivenIDThenDraw: for each family whose ids a new record may be given
// outside a copy (imports, pulls, merges, copies of records), a record
// given the very id the family would draw next keeps it, and the next new
// record draws past it: a kept id never meets a drawn one, with no
// KeepIDsPast in between.
func testGivenIDThenDraw(t *testing.T, b Backend) {
	puts := familyPuts()
	for _, family := range []parley.IDFamily{parley.FamilyConversations, parley.FamilyCustomers, parley.FamilyMailboxes,
		parley.FamilyOrganizations, parley.FamilyThreads, parley.FamilyAttachments, parley.FamilyWebhooks} {
		var drawn, kept, next int64
		put(t, b, func(tx parley.Tx) error {
			var err error
			drawn, err = puts[family](tx, 0)
			return err
		})
		put(t, b, func(tx parley.Tx) error {
			var err error
			kept, err = puts[family](tx, drawn+1)
			return err
		})
		assert.Equal(t, drawn+1, kept, "%s: the given id is kept", family)
		put(t, b, func(tx parley.Tx) error {
			var err error
			next, err = puts[family](tx, 0)
			return err
		})
		assert.Greater(t, next, kept, "%s: the next id drawn lies past the kept one", family)
	}
}
