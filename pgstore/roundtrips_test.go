package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestViewRoundTrips: a View sends its BEGIN with its first statement,
// reads what it names ahead (parley.ReadAhead) in one round trip, and a
// View that reads nothing sends nothing; the answers are those of the
// same reads made one at a time.
func TestViewRoundTrips(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	trips := &pgtest.Counter{}
	db, err := Open(ctx, url, Options{Tracer: trips})
	require.NoError(t, err)
	defer db.Close()

	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	company := &parley.Company{Name: "Acme", APIEnabled: true, PaymentOK: true}
	ann := &parley.User{FirstName: "Ann", Email: "ann@acme.test", Active: true}
	bob := &parley.User{FirstName: "Bob", Email: "bob@acme.test", Active: true}
	team := &parley.Team{Name: "Support"}
	help := &parley.Mailbox{Name: "Help"}
	sales := &parley.Mailbox{Name: "Sales"}
	vip := &parley.Tag{Name: "vip"}
	late := &parley.Tag{Name: "late"}
	cy := &parley.Customer{FirstName: "Cy", Emails: []parley.Entry{{Value: "cy@example.test", Type: "work"}}}
	di := &parley.Customer{FirstName: "Di", Emails: []parley.Entry{{Value: "di@example.test", Type: "work"}}}
	const missing = 999_999 // an id no record holds: a reference to a record deleted since
	var convIDs []int64
	plainToken := &parley.Token{Hash: parley.HashToken("plain"), ExpiresAt: at.Add(time.Hour)}
	grantToken := &parley.Token{Hash: parley.HashToken("granted"), ExpiresAt: at.Add(time.Hour), GrantID: "g1", ClientID: "app1"}
	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutCompany(company); err != nil {
			return err
		}
		for _, r := range []*int64{&ann.CompanyID, &bob.CompanyID, &team.CompanyID, &help.CompanyID, &sales.CompanyID,
			&vip.CompanyID, &late.CompanyID, &cy.CompanyID, &di.CompanyID} {
			*r = company.ID
		}
		if err := allOf(tx.PutUser(ann), tx.PutUser(bob), tx.PutTeam(team), tx.PutMailbox(help), tx.PutMailbox(sales),
			tx.PutTag(vip), tx.PutTag(late), tx.PutCustomer(cy), tx.PutCustomer(di)); err != nil {
			return err
		}
		plainToken.CompanyID, plainToken.UserID = company.ID, ann.ID
		grantToken.CompanyID, grantToken.UserID = company.ID, bob.ID
		if err := allOf(tx.PutToken(plainToken), tx.PutToken(grantToken),
			tx.PutGrant(&parley.Grant{ID: "g1", ClientID: "app1", CompanyID: company.ID, UserID: bob.ID, CreatedAt: at}),
			tx.PutApp(&parley.App{ClientID: "app1", CompanyID: company.ID, UserID: bob.ID, Name: "App", CreatedAt: at})); err != nil {
			return err
		}
		for _, c := range []*parley.Conversation{
			{MailboxID: help.ID, CustomerID: cy.ID, CreatedBy: parley.Party{Type: parley.PartyCustomer, ID: cy.ID},
				Assignee: &parley.Party{Type: parley.PartyUser, ID: ann.ID}, TagIDs: []int64{vip.ID, missing}},
			{MailboxID: sales.ID, CustomerID: di.ID, CreatedBy: parley.Party{Type: parley.PartyUser, ID: bob.ID},
				Assignee: &parley.Party{Type: parley.PartyTeam, ID: team.ID}, TagIDs: []int64{late.ID, vip.ID}, ClosedAt: &at, ClosedBy: missing},
			{MailboxID: missing, CustomerID: missing, CreatedBy: parley.Party{Type: parley.PartyUser, ID: ann.ID}},
		} {
			c.CompanyID, c.Subject, c.State, c.Status, c.CreatedAt = company.ID, "Order", parley.StatePublished, parley.StatusActive, at
			if err := tx.PutConversation(c); err != nil {
				return err
			}
			convIDs = append(convIDs, c.ID)
		}
		return nil
	})
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		read func(tx parley.Tx) (any, error)
		// trips are the round trips of the View: the BEGIN goes with the
		// first statement, what is read ahead goes in one, and the COMMIT
		// takes one.
		trips int
	}{
		{"nothing", func(parley.Tx) (any, error) { return nil, nil }, 0},
		{"a record", func(tx parley.Tx) (any, error) { return tx.Tag(company.ID, vip.ID) }, 2},
		{"a token", func(tx parley.Tx) (any, error) { return parley.Authenticate(tx, plainToken.Hash, at) }, 3},
		{"a token of a grant and an application", func(tx parley.Tx) (any, error) {
			return parley.Authenticate(tx, grantToken.Hash, at)
		}, 3},
		{"a page of conversations", func(tx parley.Tx) (any, error) { return readPage(tx, company.ID, convIDs) }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The same reads one at a time, on a Tx that does not read
			// ahead.
			var want any
			require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) (err error) {
				want, err = tc.read(oneAtATime{tx})
				return err
			}))
			trips.TakeRoundTrips()
			var got any
			require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) (err error) {
				got, err = tc.read(tx)
				return err
			}))
			assert.Equal(t, tc.trips, trips.TakeRoundTrips(), "round trips")
			assert.Equal(t, want, got)
		})
	}
}

// oneAtATime hides a Tx's read-ahead: each read is its own statement.
type oneAtATime struct{ parley.Tx }

// readPage reads a page of conversations and then, as a page renders,
// each record they name, a record not found as nil.
func readPage(tx parley.Tx, companyID int64, ids []int64) (any, error) {
	convs, err := tx.ConversationsByIDs(companyID, ids)
	if err != nil {
		return nil, err
	}
	refs := parley.ConversationRefs(companyID, convs)
	parley.ReadAhead(tx, refs)
	page := []any{convs}
	for _, family := range []struct {
		ids  []int64
		read func(companyID, id int64) (any, error)
	}{
		{refs.Users, func(c, id int64) (any, error) { return tx.User(c, id) }},
		{refs.Teams, func(c, id int64) (any, error) { return tx.Team(c, id) }},
		{refs.Customers, func(c, id int64) (any, error) { return tx.Customer(c, id) }},
		{refs.Tags, func(c, id int64) (any, error) { return tx.Tag(c, id) }},
		{refs.Mailboxes, func(c, id int64) (any, error) { return tx.Mailbox(c, id) }},
	} {
		for _, id := range family.ids {
			rec, err := family.read(companyID, id)
			if parley.IsNotFound(err) {
				rec, err = nil, nil
			}
			if err != nil {
				return nil, err
			}
			page = append(page, rec)
		}
	}
	return page, nil
}

// TestTxAfterItsView: a View's Tx used after the View returned answers
// pgx's error for a closed transaction, whether or not the View sent a
// statement, as a write's Tx does.
func TestTxAfterItsView(t *testing.T) {
	ctx := context.Background()
	db, _ := open(t)
	for _, tc := range []struct {
		name string
		read func(tx parley.Tx) error
	}{
		{"a View that read", func(tx parley.Tx) error { _, err := tx.Tags(1); return err }},
		{"a View that read nothing", func(parley.Tx) error { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kept parley.Tx
			require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) error {
				kept = tx
				return tc.read(tx)
			}))
			_, err := kept.Tags(1)
			assert.ErrorIs(t, err, pgx.ErrTxClosed)
		})
	}
}
