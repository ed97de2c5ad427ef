package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestListPageStatements: on PostgreSQL a full list page loads its records
// one statement per record family, not one per row: the statements a page
// of conversations or customers costs stay a small constant however many
// customers and users its rows name.
func TestListPageStatements(t *testing.T) {
	counter := &pgtest.Counter{}
	w := startWorld(t, postgres, counter)
	const rows = 30 // more than a page of either list
	now := w.clock.Now()
	seq, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		assignees := []int64{ownerID, adminID, agentID}
		for i := 0; i < rows; i++ {
			cu := &parley.Customer{CompanyID: acmeID, FirstName: fmt.Sprintf("Customer %d", i), CreatedAt: now, UpdatedAt: now,
				Emails: []parley.Entry{{Value: fmt.Sprintf("c%d@example.com", i), Type: "work"}}}
			if err := tx.PutCustomer(cu); err != nil {
				return err
			}
			conv := &parley.Conversation{CompanyID: acmeID, Type: parley.TypeEmail, MailboxID: supportID, Status: parley.StatusClosed,
				State: parley.StatePublished, Subject: fmt.Sprintf("Row %d", i), CreatedAt: now, ModifiedAt: now, CustomerID: cu.ID, Source: parley.Source{Type: "email", Via: parley.PartyUser},
				CreatedBy: parley.Party{ID: assignees[(i+1)%3], Type: parley.PartyUser},
				Assignee:  &parley.Party{ID: assignees[i%3], Type: parley.PartyUser},
				ClosedAt:  &now, ClosedBy: assignees[(i+2)%3]}
			if err := tx.PutConversation(conv); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	w.indexed(seq)

	for _, tc := range []struct {
		name, path, list string
		items, most      int
	}{
		{"conversations", "/v2/conversations?status=all", "conversations", 25, 12},
		{"customers", "/v2/customers", "customers", rows, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The indexer shares the store and may run a statement while
			// the page is read: the fewest of a few reads is the page's.
			statements := 0
			for try := 0; try < 3; try++ {
				counter.Take()
				rec := w.get(tc.path)
				n := counter.Take()
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				items := decode(t, rec)["_embedded"].(map[string]any)[tc.list].([]any)
				require.Len(t, items, tc.items)
				if try == 0 || n < statements {
					statements = n
				}
			}
			t.Logf("a page of %d %s: %d statements", tc.items, tc.list, statements)
			assert.LessOrEqual(t, statements, tc.most, "statements of one page (sign-in and two transactions included)")
		})
	}
}

// TestSearchRequestRoundTrips: on PostgreSQL a search request that finds
// one conversation costs few round trips to the store: sign-in reads the
// token, then its user and company together; the page reads the
// conversations, then together every record they name (users, a team,
// customers, tags, mailboxes); each transaction's BEGIN goes with its
// first statement. The search statement runs on the search engine's own
// connections, and the rate limits here are counted in memory.
func TestSearchRequestRoundTrips(t *testing.T) {
	counter := &pgtest.Counter{}
	w := startWorld(t, postgres, counter)
	now := w.clock.Now()
	seq, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		tags := []int64{}
		for _, name := range []string{"vip", "late"} {
			tag := &parley.Tag{CompanyID: acmeID, Name: name, Color: "#ff0000", CreatedAt: now, UpdatedAt: now}
			if err := tx.PutTag(tag); err != nil {
				return err
			}
			tags = append(tags, tag.ID)
		}
		cu := &parley.Customer{CompanyID: acmeID, FirstName: "Rita", CreatedAt: now, UpdatedAt: now,
			Emails: []parley.Entry{{Value: "rita@example.com", Type: "work"}}}
		if err := tx.PutCustomer(cu); err != nil {
			return err
		}
		return tx.PutConversation(&parley.Conversation{CompanyID: acmeID, Type: parley.TypeEmail, MailboxID: supportID,
			Status: parley.StatusClosed, State: parley.StatePublished, Subject: "Refund", CreatedAt: now, ModifiedAt: now,
			CustomerID: cu.ID, Source: parley.Source{Type: "email", Via: parley.PartyCustomer},
			CreatedBy: parley.Party{ID: cu.ID, Type: parley.PartyCustomer}, Assignee: &parley.Party{ID: teamID, Type: parley.PartyTeam},
			ClosedAt: &now, ClosedBy: agentID, TagIDs: tags})
	})
	require.NoError(t, err)
	w.indexed(seq)

	// Workers share the store and may run a statement meanwhile: the
	// fewest of a few requests is the request's.
	trips := 0
	for try := 0; try < 3; try++ {
		counter.TakeRoundTrips()
		rec := w.get(`/v2/conversations?status=all&query=(email:"rita@example.com")`)
		n := counter.TakeRoundTrips()
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		items := decode(t, rec)["_embedded"].(map[string]any)["conversations"].([]any)
		require.Len(t, items, 1)
		if try == 0 || n < trips {
			trips = n
		}
	}
	t.Logf("a search request finding one conversation: %d round trips", trips)
	assert.Equal(t, 6, trips, "sign-in 3 (token, user and company, commit), page 3 (conversations, what they name, commit)")
}

// TestFanOutReadsACompanysWebhooksOnce: expanding a batch of one
// company's events into deliveries reads its webhooks once, not once per
// event (after a load, one read per record written).
func TestFanOutReadsACompanysWebhooksOnce(t *testing.T) {
	rec := &pgtest.Recorder{}
	w := startWorld(t, postgres, rec, insecureWebhooks)
	h := &hooks{world: w, d: newDispatcher(t, w), recv: newReceiver(t)}
	h.hook(map[string]any{"events": []string{"convo.created"}})
	const events = 5
	for i := 0; i < events; i++ {
		w.create(convJSON(nil))
	}
	before := len(rec.Calls())
	n, err := h.d.FanOut(context.Background(), w.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, events, n, "deliveries")
	reads := 0
	for _, c := range rec.Calls()[before:] {
		if strings.Contains(c.SQL, "FROM webhooks w WHERE w.company_id = $1 ORDER BY") {
			reads++
		}
	}
	assert.Equal(t, 1, reads, "reads of the company's webhooks")
	t.Logf("fan-out of %d events: %d statements", events, len(rec.Calls())-before)
}
