package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestViewRoundTrips: a View sends its BEGIN with its first statement,
// and a View that reads nothing sends nothing.
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
