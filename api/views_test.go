package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// createView posts a view with a token and returns its id.
func (w *world) createView(token, body string) int64 {
	w.t.Helper()
	return resourceID(w.t, w.do(request{method: http.MethodPost, path: "/v2/views", token: token, body: body}))
}

// folderCounts lists a mailbox's folders as the caller sees them, as
// "type name total/active".
func folderCounts(t *testing.T, w *world, token string, mailbox int) []string {
	t.Helper()
	rec := w.do(request{method: http.MethodGet, path: fmt.Sprintf("/v2/mailboxes/%d/folders", mailbox), token: token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out []string
	for _, it := range decode(t, rec)["_embedded"].(map[string]any)["folders"].([]any) {
		f := it.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s %v/%v", f["type"], f["name"], f["totalCount"], f["activeCount"]))
	}
	return out
}

func TestSavedViews(t *testing.T) {
	w := newListWorld(t)
	refunds := w.createView(ownerToken, fmt.Sprintf(`{"name":"Refunds","visibility":"shared","mailboxId":%d,"query":"tag:refund",
		"filters":{"status":"all"},"sortField":"subject","sortOrder":"asc"}`, supportID))
	billing := w.createView(ownerToken, fmt.Sprintf(`{"name":"My invoices","query":"subject:invoice","filters":{"mailbox":[%d]}}`, billingID))
	umas := w.createView(userToken, fmt.Sprintf(`{"name":"Uma's open work","filters":{"status":"open","mailbox":[%d],"assigned_to":%d}}`, supportID, agentID))

	rec := w.get("/v2/views")
	require.Equal(t, http.StatusOK, rec.Code)
	goldenJSON(t, "views/list", rec.Body.Bytes())
	goldenJSON(t, "views/get", w.get(fmt.Sprintf("/v2/views/%d", refunds)).Body.Bytes())
	assert.Equal(t, []int64{refunds, umas}, ids(t, w.do(request{method: "GET", path: "/v2/views", token: userToken}), "views"),
		"Uma sees the shared view of her mailbox and her own, not the owner's private one")
	assert.Equal(t, []int64{billing}, ids(t, w.get(fmt.Sprintf("/v2/views?mailboxId=%d", billingID)), "views"))
	assert.Equal(t, []int64{}, ids(t, w.do(request{method: "GET", path: "/v2/views", token: globexToken}), "views"))

	t.Run("another user's private view and another company's view are not found", func(t *testing.T) {
		rec := w.get(fmt.Sprintf("/v2/views/%d", umas))
		require.Equal(t, http.StatusNotFound, rec.Code)
		goldenError(t, "views/private_not_found", rec)
		rec = w.do(request{method: "GET", path: fmt.Sprintf("/v2/views/%d", refunds), token: globexToken})
		assert.Equal(t, "404 Not found: view not found", apiError(t, rec))
		rec = w.do(request{method: "PUT", path: fmt.Sprintf("/v2/views/%d", umas), token: ownerToken, body: `{"name":"mine now"}`})
		assert.Equal(t, "404 Not found: view not found", apiError(t, rec))
	})

	t.Run("folders list the views with live counts", func(t *testing.T) {
		rec := w.get(fmt.Sprintf("/v2/mailboxes/%d/folders", supportID))
		require.Equal(t, http.StatusOK, rec.Code)
		goldenJSON(t, "views/folders", rec.Body.Bytes())
		assert.Equal(t, []string{"unassigned Unassigned 2/1", "assigned Assigned 1/1", "drafts Drafts 1/1", "closed Closed 1/0", "spam Spam 0/0",
			"view Refunds 2/2", "view Uma's open work 1/1"}, folderCounts(t, w.world, userToken, supportID))
		assert.Equal(t, []string{"view My invoices 1/1"}, folderCounts(t, w.world, ownerToken, billingID)[5:])
		// A write moves the counts: the counts are live.
		w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", w.chat), `{"op":"replace","path":"/status","value":"closed"}`, http.StatusNoContent)
		assert.Equal(t, []string{"view Refunds 2/1"}, folderCounts(t, w.world, ownerToken, supportID)[5:])
	})

	t.Run("folder= lists the view, ANDed with the request, in the view's sort", func(t *testing.T) {
		path := fmt.Sprintf("/v2/conversations?folder=%d", refunds)
		rec := w.get(path)
		require.Equal(t, http.StatusOK, rec.Code)
		goldenJSON(t, "views/conversations", rec.Body.Bytes())
		assert.Equal(t, []int64{w.chat, w.refund}, ids(t, rec, "conversations"), "by subject, ascending; every status")
		assert.Equal(t, []int64{w.refund, w.chat}, ids(t, w.get(path+"&sortOrder=desc"), "conversations"), "the request's order wins")
		assert.Equal(t, []int64{w.refund}, ids(t, w.get(path+"&tag=vip"), "conversations"))
		assert.Equal(t, []int64{w.refund}, ids(t, w.get(path+"&status=active"), "conversations"))
		assert.Equal(t, []int64{w.chat}, ids(t, w.get(path+"&query="+urlQuery("subject:damaged")), "conversations"))
		assert.Equal(t, []int64{w.refund}, ids(t, w.do(request{method: "GET", path: fmt.Sprintf("/v2/conversations?folder=%d", umas), token: userToken}), "conversations"),
			"open (active or pending) and assigned to Uma")
		assert.Equal(t, []int64{}, ids(t, w.get(fmt.Sprintf("/v2/conversations?folder=%d", umas)), "conversations"),
			"another user's private view names no folder")
		assert.Equal(t, []int64{w.chat, w.phone}, ids(t, w.get(fmt.Sprintf("/v2/conversations?status=closed&folder=%d", folderID(t, w.world, supportID, "closed"))), "conversations"),
			"a folder id is still a folder")
	})

	t.Run("a report with view= counts the view's conversations", func(t *testing.T) {
		report := "/v2/reports/conversations?start=2026-11-01T00:00:00Z&end=2026-12-01T00:00:00Z"
		all := decode(t, w.get(report))["current"].(map[string]any)
		rec := w.get(report + fmt.Sprintf("&view=%d", refunds))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		goldenJSON(t, "views/report", rec.Body.Bytes())
		inView := decode(t, rec)["current"].(map[string]any)
		assert.Equal(t, float64(2), inView["totalConversations"])
		assert.Greater(t, all["totalConversations"], inView["totalConversations"])
		drill := fmt.Sprintf("/v2/reports/conversations/new-drilldown?start=2026-11-01T00:00:00Z&end=2026-12-01T00:00:00Z&view=%d", refunds)
		rows := decode(t, w.get(drill))["conversations"].(map[string]any)["results"].([]any)
		assert.Len(t, rows, 2)
		assert.Equal(t, "400 Invalid identifier: Bad request (no view with this id)", apiError(t, w.get(report+fmt.Sprintf("&view=%d", umas))))
	})

	t.Run("replace and delete", func(t *testing.T) {
		w.send("PUT", fmt.Sprintf("/v2/views/%d", billing), `{"name":"Invoices, newest change first","query":"subject:invoice","sortField":"modifiedAt"}`, http.StatusNoContent)
		got := decode(t, w.get(fmt.Sprintf("/v2/views/%d", billing)))
		assert.Equal(t, "Invoices, newest change first", got["name"])
		assert.Equal(t, map[string]any{}, got["filters"], "a replace without filters drops them")
		assert.Equal(t, "desc", got["sortOrder"])
		rec := w.do(request{method: "DELETE", path: fmt.Sprintf("/v2/views/%d", refunds), token: userToken})
		assert.Equal(t, "403 Access denied: only the view's owner or an administrator may change it", apiError(t, rec),
			"Uma sees the shared view but did not make it")
		w.send("DELETE", fmt.Sprintf("/v2/views/%d", billing), "", http.StatusNoContent)
		w.send("GET", fmt.Sprintf("/v2/views/%d", billing), "", http.StatusNotFound)
	})
}

func TestSavedViewErrors(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: "POST", path: "/v2/views", token: ownerToken, body: `{"name":"x","query":"status:active AND sbject:refund"}`})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	goldenError(t, "views/invalid_query", rec)
	for _, tc := range []struct {
		name, token, body string
		want              []string
	}{
		{"no name", ownerToken, `{"query":"tag:vip"}`, []string{"name: Null value"}},
		{"unknown mailbox", ownerToken, `{"name":"x","visibility":"shared","mailboxId":99}`, []string{"mailboxId: Invalid identifier"}},
		{"a mailbox the caller may not use", userToken, fmt.Sprintf(`{"name":"x","visibility":"shared","mailboxId":%d}`, billingID), []string{"mailboxId: Invalid identifier"}},
		{"another company's mailbox in the filters", ownerToken, fmt.Sprintf(`{"name":"x","filters":{"mailbox":[%d]}}`, globexMailboxID), []string{"filters.mailbox[0]: Invalid identifier"}},
		{"shared without a mailbox", ownerToken, `{"name":"x","visibility":"shared"}`, []string{"mailboxId: Null value"}},
		{"bad visibility", ownerToken, `{"name":"x","visibility":"public"}`, []string{"visibility: Enum Value"}},
		{"bad sort", ownerToken, `{"name":"x","sortField":"colour","sortOrder":"up"}`, []string{"sortField: Enum Value", "sortOrder: Enum Value"}},
		{"bad filters", ownerToken, `{"name":"x","filters":{"status":"done","assigned_to":99,"modifiedSince":"yesterday"}}`,
			[]string{"filters.status: Enum Value", "filters.assigned_to: Invalid identifier", "filters.modifiedSince: Malformed date"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: "POST", path: "/v2/views", token: tc.token, body: tc.body})
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, tc.want, errorSummary(t, rec))
		})
	}
	rec = w.get("/v2/views/0")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"viewId: Invalid identifier"}, errorSummary(t, rec))
}

func TestWebhookViewFilter(t *testing.T) {
	h := newHooks(t)
	vip := h.createView(ownerToken, fmt.Sprintf(`{"name":"VIP","visibility":"shared","mailboxId":%d,"query":"tag:vip"}`, supportID))
	filtered := h.hook(map[string]any{"viewId": vip, "events": []string{"convo.created", "convo.tags", "customer.created", "message.survey.response.received"}})
	h.deliver()
	h.recv.take() // the test event
	got := decode(t, h.get(fmt.Sprintf("/v2/webhooks/%d", filtered)))
	assert.Equal(t, float64(vip), got["viewId"])

	plain := h.create(convJSON(map[string]any{"subject": "Where is my parcel?", "customer": customer("plain@example.com")}))
	h.deliver()
	assert.Empty(t, events(h.recv.take()), "not in the view, and a customer is no conversation: nothing fires")

	tagged := h.create(convJSON(map[string]any{"subject": "Order missing", "tags": []string{"vip"}}))
	h.deliver()
	matchEvents(t, []string{fmt.Sprintf("convo.created %d", tagged)}, h.recv.take())

	// The view is evaluated when the event is expanded: tagging the plain
	// conversation brings it into the view.
	h.send("PUT", fmt.Sprintf("/v2/conversations/%d/tags", plain), `{"tags":["vip"]}`, http.StatusNoContent)
	h.deliver()
	matchEvents(t, []string{fmt.Sprintf("convo.tags %d", plain)}, h.recv.take())

	// A rating's survey response concerns the rated conversation.
	withReply := func(tags []string) int64 {
		return h.create(convJSON(map[string]any{"tags": tags, "threads": []any{thread("customer", "Hi"), thread("reply", "Hello")}}))
	}
	for _, conv := range []int64{withReply(nil), withReply([]string{"vip"})} {
		h.send("PUT", fmt.Sprintf("/v2/conversations/%d/threads/%v/rating", conv, replyID(t, h.world, conv)), `{"rating":"okay"}`, http.StatusNoContent)
	}
	h.deliver()
	hits := h.recv.take()
	matchEvents(t, []string{"convo.created *", "message.survey.response.received "}, hits)
	for _, hit := range hits {
		if hit.Event == "message.survey.response.received" {
			assert.Equal(t, "https://api.parley.test/v2/ratings/2", hit.Body["_links"].(map[string]any)["self"].(map[string]any)["href"], "the tagged conversation's rating")
		}
	}

	rec := h.do(request{method: "DELETE", path: fmt.Sprintf("/v2/views/%d", vip), token: ownerToken})
	assert.Equal(t, fmt.Sprintf("409 Conflict: Conflict (webhook %d filters on this view)", filtered), apiError(t, rec))
	rec = h.call(ownerToken, http.MethodPost, "/v2/webhooks", map[string]any{"url": h.recv.srv.URL + "/hook", "secret": hookSecret,
		"events": allEvents, "viewId": 999999})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"viewId: Invalid identifier"}, errorSummary(t, rec))
}

// TestViewFolderCountInMailbox: a view listed among a mailbox's folders
// counts what `folder=<view>&mailbox=<mailbox>` lists, not what the view
// selects in every mailbox it names.
func TestViewFolderCountInMailbox(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		w := newListWorldOn(t, on)
		both := w.createView(ownerToken, fmt.Sprintf(`{"name":"Both","filters":{"status":"all","mailbox":[%d,%d]}}`, supportID, billingID))
		listed := func(mailbox int, status string) int {
			path := fmt.Sprintf("/v2/conversations?folder=%d&mailbox=%d", both, mailbox)
			if status != "" {
				path += "&status=" + status
			}
			rec := w.get(path)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			return int(decode(t, rec)["page"].(map[string]any)["totalElements"].(float64))
		}
		for _, tc := range []struct {
			mailbox int
			want    string
		}{
			{supportID, "view Both 5/3"},
			{billingID, "view Both 1/1"},
		} {
			folders := folderCounts(t, w.world, ownerToken, tc.mailbox)
			assert.Equal(t, tc.want, folders[len(folders)-1], "mailbox %d", tc.mailbox)
			assert.Equal(t, fmt.Sprintf("view Both %d/%d", listed(tc.mailbox, ""), listed(tc.mailbox, "active")), folders[len(folders)-1],
				"mailbox %d: the count is what the list lists", tc.mailbox)
		}
	})
}
