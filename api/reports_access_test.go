package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// lightToken is the token of Lena, a light user of Support, that
// addLightUser stores.
const lightToken = "acme-light-token"

// addLightUser stores Lena, an active light user with access to Support
// only, and her token.
func (w *world) addLightUser() {
	w.t.Helper()
	now := w.clock.Now()
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		u := &parley.User{CompanyID: acmeID, FirstName: "Lena", LastName: "Light", Email: "lena@acme.test", Role: parley.RoleLightUser,
			Timezone: "UTC", Active: true, MailboxIDs: []int64{supportID}, CreatedAt: now, UpdatedAt: now}
		if err := tx.PutUser(u); err != nil {
			return err
		}
		return tx.PutToken(&parley.Token{Hash: parley.HashToken(lightToken), CompanyID: acmeID, UserID: u.ID, ExpiresAt: now.Add(365 * 24 * time.Hour)})
	})
	require.NoError(w.t, err)
}

// addBillingField gives Billing a dropdown field of its own, so that the
// fields drill-down has a Billing figure, and returns it.
func (w *world) addBillingField() parley.FieldDef {
	w.t.Helper()
	var field parley.FieldDef
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		m, err := tx.Mailbox(acmeID, billingID)
		if err != nil {
			return err
		}
		m.Fields = append(m.Fields, parley.FieldDef{Name: "Plan", Type: parley.FieldDropdown, Order: 1,
			Options: []parley.FieldOption{{Order: 1, Label: "Pro"}}})
		if err := tx.PutMailbox(m); err != nil {
			return err
		}
		field = m.Fields[len(m.Fields)-1]
		return nil
	})
	require.NoError(w.t, err)
	return field
}

// twoMailboxDay plays the same day in Support and in Billing, so that
// every report has figures of both: per mailbox, a customer of its own
// writes, Adam answers (twenty minutes later in Support, forty in Billing)
// and closes, the customer rates the answer (great in Support, not good in Billing, with a
// comment); Pat calls both mailboxes; a chat waits 90 seconds for
// Olivia's answer. Billing's conversation has Billing's field, Support's
// Support's. It returns Billing's field.
func twoMailboxDay(w *world) parley.FieldDef {
	w.t.Helper()
	plan := w.addBillingField()
	priority := w.fields["Priority"]
	for _, m := range []struct {
		id             int64
		customer       string
		rating, widget string
		field          map[string]any
		answerAfter    time.Duration
	}{
		{supportID, "sue@example.com", "great", supportWidget, map[string]any{"id": priority.ID, "value": fmt.Sprint(priority.Options[1].ID)}, 20 * time.Minute},
		{billingID, "bill@example.com", "not-good", billingWidget, map[string]any{"id": plan.ID, "value": fmt.Sprint(plan.Options[0].ID)}, 40 * time.Minute},
	} {
		id := w.create(convJSON(map[string]any{"mailboxId": m.id, "customer": customer(m.customer), "tags": []string{"vip"}, "fields": []any{m.field}}))
		w.create(convJSON(map[string]any{"mailboxId": m.id, "type": "phone", "customer": customer("pat@example.com"),
			"threads": []any{thread("phone", "Called about the invoice.")}}))
		w.clock.advance(m.answerAfter)
		w.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", id), fmt.Sprintf(`{"text":"Answer","user":%d,"status":"closed"}`, adminID), http.StatusCreated)
		reply := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any) // newest first
		w.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", id, reply["id"]),
			fmt.Sprintf(`{"rating":%q,"comments":"about %s"}`, m.rating, m.customer), http.StatusNoContent)
		v := w.startChat(m.widget, fmt.Sprintf(`{"name":"Vic","email":"vic.%d@example.com","message":"hi"}`, m.id))
		w.clock.advance(90 * time.Second)
		w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/messages/"+uuidN(int(m.id)), `{"body":"hello"}`)
		w.clock.advance(5 * time.Minute)
		w.agent(ownerToken, "PUT", "/v2/chats/"+v.chat+"/end", `{"status":"closed"}`)
		w.clock.advance(time.Hour)
	}
	return plan
}

// newTwoMailboxWorld starts a world with Lena and twoMailboxDay played;
// it returns Billing's field.
func newTwoMailboxWorld(t *testing.T, on backend) (*world, parley.FieldDef) {
	t.Helper()
	w := newWorldOn(t, on)
	w.addLightUser()
	return w, twoMailboxDay(w)
}

// answer is a caller's whole answer, decoded, without the top-level
// `_links` (they repeat the request's own parameters).
func (w *world) answer(token, path string) any {
	w.t.Helper()
	rec := w.do(request{method: http.MethodGet, path: path, token: token})
	require.Equal(w.t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body.String())
	var body any
	require.NoError(w.t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	if m, ok := body.(map[string]any); ok {
		delete(m, "_links")
	}
	return body
}

// TestReportsKeepToCallersMailboxes: a user, and a light user, with access
// to Support see in every report, drill-down and ratings list what the
// owner sees of Support alone: never a conversation, chat, rating or count
// of Billing. Naming Billing in `mailboxes` answers as naming a mailbox
// with nothing in it, as a conversation list of Billing is empty for them.
func TestReportsKeepToCallersMailboxes(t *testing.T) {
	onEachBackend(t, testReportsKeepToCallersMailboxes)
}

func testReportsKeepToCallersMailboxes(t *testing.T, on backend) {
	w, _ := newTwoMailboxWorld(t, on)
	// Both days' conversations carry the tag vip: the fields drill-down by
	// that tag lists the caller's share of them.
	var vip *parley.Tag
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) (err error) {
		vip, err = tx.TagByName(acmeID, "vip")
		return err
	}))
	// A view shared with Support whose filter names both mailboxes.
	view := w.createView(ownerToken, fmt.Sprintf(`{"name":"Everything","visibility":"shared","mailboxId":%d,"filters":{"status":"all","mailbox":[%d,%d]}}`,
		supportID, supportID, billingID))

	day := reportQuery("start", epoch.Format(time.RFC3339), "end", epoch.Add(24*time.Hour).Format(time.RFC3339))
	both := day + "&" + reportQuery("previousStart", epoch.Add(-24*time.Hour).Format(time.RFC3339), "previousEnd", epoch.Format(time.RFC3339))
	// Customers helped ever (the user report's totalCustomersHelped)
	// heeds no filter but the caller's mailboxes: Adam's one Support
	// customer, where the owner counts Billing's too.
	supportEver := func(body any) {
		body.(map[string]any)["user"].(map[string]any)["totalCustomersHelped"] = float64(1)
	}
	for _, tc := range []struct {
		path string
		// adjust sets in the owner's answer the figures that no
		// `mailboxes` narrows.
		adjust func(any)
	}{
		{path: "/v2/reports/chat?" + both},
		{path: "/v2/reports/chat/drilldown?" + day + "&range=waitTime&rangeId=2"},
		{path: "/v2/reports/phone?" + both},
		{path: "/v2/reports/email?" + both},
		{path: "/v2/reports/company?" + both},
		{path: "/v2/reports/company/customers-helped?" + both},
		{path: "/v2/reports/company/drilldown?" + day + "&range=replies&rangeId=1"},
		{path: "/v2/reports/conversations?" + both},
		{path: fmt.Sprintf("/v2/reports/conversations?%s&view=%d", both, view)},
		{path: "/v2/reports/conversations/busy-times?" + day},
		{path: "/v2/reports/conversations/new?" + both},
		{path: "/v2/reports/conversations/received-messages?" + both},
		{path: "/v2/reports/conversations/volume-by-channel?" + both},
		{path: "/v2/reports/conversations/drilldown?" + day},
		{path: fmt.Sprintf("/v2/reports/conversations/drilldown?%s&view=%d", day, view)},
		{path: "/v2/reports/conversations/new-drilldown?" + day},
		{path: fmt.Sprintf("/v2/reports/conversations/fields-drilldown?%s&field=tagid&fieldid=%d", day, vip.ID)},
		{path: "/v2/reports/happiness?" + both},
		{path: "/v2/reports/happiness/ratings?" + day},
		{path: "/v2/reports/productivity?" + both},
		{path: "/v2/reports/productivity/first-response-time?" + both},
		{path: "/v2/reports/productivity/replies-sent?" + both},
		{path: "/v2/reports/productivity/resolution-time?" + both},
		{path: "/v2/reports/productivity/resolved?" + both},
		{path: "/v2/reports/productivity/response-time?" + both},
		{path: fmt.Sprintf("/v2/reports/user?%s&user=%d", both, adminID), adjust: supportEver},
		{path: fmt.Sprintf("/v2/reports/user/customers-helped?%s&user=%d", both, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/replies?%s&user=%d", both, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/resolutions?%s&user=%d", both, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/conversation-history?%s&user=%d", day, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/drilldown?%s&user=%d", day, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/happiness?%s&user=%d", both, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/ratings?%s&user=%d", day, adminID)},
		{path: fmt.Sprintf("/v2/reports/user/chat?%s&user=%d", both, ownerID)},
	} {
		t.Run(tc.path, func(t *testing.T) {
			all := w.answer(ownerToken, tc.path)
			support := w.answer(ownerToken, tc.path+fmt.Sprintf("&mailboxes=%d", supportID))
			require.NotEqual(t, all, support, "the owner's answer has Billing's figures")
			// Globex's mailbox holds nothing of Acme's.
			nothing := w.answer(ownerToken, tc.path+fmt.Sprintf("&mailboxes=%d", globexMailboxID))
			if tc.adjust != nil {
				tc.adjust(support)
				tc.adjust(nothing)
			}
			for _, token := range []string{userToken, lightToken} {
				assert.Equal(t, support, w.answer(token, tc.path), "%s sees Support's", token)
				assert.Equal(t, support, w.answer(token, tc.path+fmt.Sprintf("&mailboxes=%d,%d", supportID, billingID)), "%s sees Support's", token)
				assert.Equal(t, nothing, w.answer(token, tc.path+fmt.Sprintf("&mailboxes=%d", billingID)), "%s sees nothing of Billing", token)
			}
		})
	}
}

// TestCustomersKeepToCallersMailboxes: customers are the company's, but a
// user lists the customers of its own mailboxes only and counts customers
// per mailbox in its own mailboxes only. Pat wrote to both mailboxes.
func TestCustomersKeepToCallersMailboxes(t *testing.T) {
	onEachBackend(t, testCustomersKeepToCallersMailboxes)
}

func testCustomersKeepToCallersMailboxes(t *testing.T, on backend) {
	w, _ := newTwoMailboxWorld(t, on)
	billing := fmt.Sprint(billingID)
	// withoutBilling is an owner's answer without Billing's bucket, which
	// it must have.
	withoutBilling := func(body any) any {
		buckets := body.(map[string]any)["facets"].(map[string]any)["mailboxId"].(map[string]any)
		require.Contains(t, buckets, billing)
		delete(buckets, billing)
		return body
	}
	for _, token := range []string{userToken, lightToken} {
		for _, path := range []string{"/v2/customers?facets=mailboxId,emailDomain", fmt.Sprintf("/v2/customers?facets=mailboxId&mailbox=%d", supportID)} {
			assert.Equal(t, withoutBilling(w.answer(ownerToken, path)), w.answer(token, path), "%s %s", token, path)
		}
		assert.Equal(t, w.answer(ownerToken, fmt.Sprintf("/v2/customers?facets=mailboxId&mailbox=%d", globexMailboxID)),
			w.answer(token, fmt.Sprintf("/v2/customers?facets=mailboxId&mailbox=%d", billingID)), "%s lists no customer of Billing", token)
	}
	assert.NotEmpty(t, ids(t, w.get(fmt.Sprintf("/v2/customers?mailbox=%d", billingID)), "customers"), "the owner lists Billing's")
}

// TestDashboardListsKeepToCallersMailboxes: besides the reports, the
// dashboard reads the mailboxes and the tags; a Support user reads only
// Support, and a tag counts the conversations its list of the tag holds.
func TestDashboardListsKeepToCallersMailboxes(t *testing.T) {
	onEachBackend(t, testDashboardListsKeepToCallersMailboxes)
}

func testDashboardListsKeepToCallersMailboxes(t *testing.T, on backend) {
	w, _ := newTwoMailboxWorld(t, on)
	vipCount := func(token string) (tagged, listed any) {
		rec := w.do(request{method: http.MethodGet, path: "/v2/tags", token: token})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		for _, it := range field(t, decode(t, rec), "_embedded", "tags").([]any) {
			if tag := it.(map[string]any); tag["name"] == "vip" {
				tagged = tag["ticketCount"]
			}
		}
		rec = w.do(request{method: http.MethodGet, path: "/v2/conversations?status=all&tag=vip", token: token})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return tagged, field(t, decode(t, rec), "page", "totalElements")
	}
	tagged, listed := vipCount(ownerToken)
	assert.Equal(t, []any{float64(2), float64(2)}, []any{tagged, listed}, "the owner counts both mailboxes'")
	for _, token := range []string{userToken, lightToken} {
		tagged, listed := vipCount(token)
		assert.Equal(t, []any{float64(1), float64(1)}, []any{tagged, listed}, "%s counts Support's", token)
		assert.Equal(t, []int64{supportID}, ids(t, w.do(request{method: http.MethodGet, path: "/v2/mailboxes", token: token}), "mailboxes"), token)
	}
}
