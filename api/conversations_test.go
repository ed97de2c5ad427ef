package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// convJSON builds a valid Create Conversation body with overrides; a nil
// override value deletes the key.
func convJSON(overrides map[string]any) string {
	body := map[string]any{
		"subject":   "Where is my order?",
		"type":      "email",
		"mailboxId": supportID,
		"status":    "active",
		"customer":  map[string]any{"email": "alice@example.com", "firstName": "Alice", "lastName": "Archer"},
		"threads":   []any{map[string]any{"type": "customer", "text": "Hello, my order has not arrived."}},
	}
	for k, v := range overrides {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	b, _ := json.Marshal(body)
	return string(b)
}

func customer(email string) map[string]any { return map[string]any{"email": email} }

func thread(typ, text string) map[string]any { return map[string]any{"type": typ, "text": text} }

// listWorld creates conversations with varied fields, one minute apart.
// The returned ids are in creation order.
type listWorld struct {
	*world
	refund, password, invoice, phone, chat, draft, globex int64
}

func newListWorld(t *testing.T) *listWorld { return newListWorldOn(t, suiteBackend()) }

func newListWorldOn(t *testing.T, on backend) *listWorld {
	w := &listWorld{world: newWorldOn(t, on)}
	step := func() { w.clock.advance(time.Minute) }
	w.refund = w.create(convJSON(map[string]any{"subject": "Refund for order 1001", "tags": []string{"Refund", "vip"}, "assignTo": agentID,
		"fields": []any{map[string]any{"id": w.fields["Priority"].ID, "value": fmt.Sprint(w.fields["Priority"].Options[1].ID)}}}))
	step()
	w.password = w.create(convJSON(map[string]any{"subject": "Password reset not arriving", "status": "pending", "assignTo": json.RawMessage("null"),
		"customer": map[string]any{"email": "bob@example.com", "firstName": "Bob", "lastName": "Baker"}, "tags": []string{"login"}}))
	step()
	w.invoice = w.create(convJSON(map[string]any{"subject": "Invoice question", "mailboxId": billingID,
		"customer": map[string]any{"email": "carol@example.com", "firstName": "Carol", "lastName": "Cole"}}))
	step()
	w.phone = w.create(convJSON(map[string]any{"subject": "Phone call about shipping", "type": "phone", "status": "closed",
		"customer": map[string]any{"id": 1}, "tags": []string{"shipping"}, "threads": []any{thread("phone", "Called about the shipping delay.")}}))
	step()
	w.chat = w.create(convJSON(map[string]any{"subject": "Damaged item", "type": "chat", "tags": []string{"refund"},
		"customer": map[string]any{"email": "dave@example.com", "firstName": "Dave", "lastName": "Dunn"},
		"threads":  []any{thread("chat", "The box arrived crushed."), thread("reply", "Sorry! A refund is on its way.")}}))
	step()
	w.draft = w.create(convJSON(map[string]any{"subject": "Zebra draft", "threads": []any{map[string]any{"type": "reply", "text": "Draft answer", "draft": true}}}))
	step()
	rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: globexToken,
		body: convJSON(map[string]any{"subject": "Globex refund", "mailboxId": globexMailboxID, "tags": []string{"refund"}})})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	fmt.Sscan(rec.Header().Get("Resource-ID"), &w.globex)
	return w
}

func TestListConversationsFilters(t *testing.T) { onEachBackend(t, testListConversationsFilters) }

func testListConversationsFilters(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	supportClosed := folderID(t, w.world, supportID, "closed")
	cases := []struct {
		name  string
		query string
		token string
		want  []int64
	}{
		{"default is active, newest first", "", ownerToken, []int64{w.draft, w.chat, w.invoice, w.refund}},
		{"status active", "status=active", ownerToken, []int64{w.draft, w.chat, w.invoice, w.refund}},
		{"status pending", "status=pending", ownerToken, []int64{w.password}},
		{"status closed", "status=closed", ownerToken, []int64{w.phone}},
		{"status open is active or pending", "status=open", ownerToken, []int64{w.draft, w.chat, w.invoice, w.password, w.refund}},
		{"status all", "status=all", ownerToken, []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"status spam", "status=spam", ownerToken, []int64{}},
		{"one mailbox", "mailbox=2", ownerToken, []int64{w.invoice}},
		{"several mailboxes", "status=all&mailbox=1,2", ownerToken, []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"repeated mailbox parameter", "status=all&mailbox=2&mailbox=1", ownerToken, []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"folder", fmt.Sprintf("status=all&folder=%d", supportClosed), ownerToken, []int64{w.phone}},
		{"tag, case-insensitive", "tag=REFUND", ownerToken, []int64{w.chat, w.refund}},
		{"several tags match any", "status=all&tag=login,shipping", ownerToken, []int64{w.phone, w.password}},
		{"tag with no conversation", "tag=nothing", ownerToken, []int64{}},
		{"assigned_to", "status=all&assigned_to=3", ownerToken, []int64{w.refund}},
		{"assigned_to the mailbox default", "assigned_to=2", ownerToken, []int64{w.invoice}},
		{"modifiedSince is inclusive", "status=all&modifiedSince=" + url.QueryEscape(epoch.Add(3*time.Minute).Format(time.RFC3339)), ownerToken, []int64{w.draft, w.chat, w.phone}},
		{"number", "status=all&number=2", ownerToken, []int64{w.password}},
		{"filters combine with AND", "status=all&mailbox=1&tag=refund", ownerToken, []int64{w.chat, w.refund}},
		{"a user sees only its mailboxes", "status=all", userToken, []int64{w.draft, w.chat, w.phone, w.password, w.refund}},
		{"another company sees only its own", "status=all", globexToken, []int64{w.globex}},
		{"another company's tag filter", "tag=refund", globexToken, []int64{w.globex}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: "/v2/conversations?" + tc.query, token: tc.token})
			assert.Equal(t, tc.want, ids(t, rec, "conversations"))
		})
	}
}

func TestListConversationsSort(t *testing.T) { onEachBackend(t, testListConversationsSort) }

func testListConversationsSort(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	all := "status=all&mailbox=1,2&"
	cases := []struct {
		sort string
		want []int64
	}{
		{"sortField=createdAt&sortOrder=asc", []int64{w.refund, w.password, w.invoice, w.phone, w.chat, w.draft}},
		{"sortField=createdAt", []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"sortField=number&sortOrder=asc", []int64{w.refund, w.password, w.invoice, w.phone, w.chat, w.draft}},
		{"sortField=subject&sortOrder=asc", []int64{w.chat, w.invoice, w.password, w.phone, w.refund, w.draft}},
		{"sortField=customerEmail&sortOrder=asc", []int64{w.refund, w.phone, w.draft, w.password, w.invoice, w.chat}},
		{"sortField=customerName&sortOrder=desc", []int64{w.chat, w.invoice, w.password, w.draft, w.phone, w.refund}},
		{"sortField=mailboxid&sortOrder=asc", []int64{w.refund, w.password, w.phone, w.chat, w.draft, w.invoice}},
		{"sortField=modifiedAt&sortOrder=desc", []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"sortField=status&sortOrder=asc", []int64{w.refund, w.invoice, w.chat, w.draft, w.phone, w.password}},
		// waitingSince: only conversations whose customer waits have one;
		// the others come last, by id.
		{"sortField=waitingSince&sortOrder=asc", []int64{w.refund, w.password, w.invoice, w.phone, w.chat, w.draft}},
		{"sortField=score", []int64{w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
	}
	for _, tc := range cases {
		t.Run(tc.sort, func(t *testing.T) {
			rec := w.get("/v2/conversations?" + all + tc.sort)
			assert.Equal(t, tc.want, ids(t, rec, "conversations"))
		})
	}
}

func folderID(t *testing.T, w *world, mailbox int, typ string) int64 {
	rec := w.get(fmt.Sprintf("/v2/mailboxes/%d/folders", mailbox))
	body := decode(t, rec)
	for _, f := range body["_embedded"].(map[string]any)["folders"].([]any) {
		f := f.(map[string]any)
		if f["type"] == typ {
			return int64(f["id"].(float64))
		}
	}
	t.Fatalf("no %s folder", typ)
	return 0
}

func TestListConversationsPaging(t *testing.T) { onEachBackend(t, testListConversationsPaging) }

func testListConversationsPaging(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	for i := 0; i < 60; i++ {
		w.create(convJSON(map[string]any{"subject": fmt.Sprintf("Question %02d", i), "tags": []string{"paging"}}))
		w.clock.advance(time.Second)
	}
	for _, tc := range []struct{ name, query string }{
		{"paging_first", "tag=paging"},
		{"paging_middle", "tag=paging&page=2"},
		{"paging_last", "tag=paging&page=3"},
		{"paging_beyond", "tag=paging&page=4"},
		{"paging_empty", "tag=none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.get("/v2/conversations?" + tc.query)
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
			body := decode(t, rec)
			// The conversations themselves are checked elsewhere; here the
			// links and page object, and how many items the page holds.
			items := body["_embedded"].(map[string]any)["conversations"].([]any)
			summary := map[string]any{"_links": body["_links"], "page": body["page"], "count": len(items)}
			b, _ := json.Marshal(summary)
			goldenJSON(t, tc.name, b)
		})
	}
	// Walking next links visits every conversation exactly once.
	seen := map[int64]bool{}
	next := "/v2/conversations?tag=paging"
	for next != "" {
		rec := w.get(next)
		for _, id := range ids(t, rec, "conversations") {
			require.False(t, seen[id])
			seen[id] = true
		}
		links := decode(t, rec)["_links"].(map[string]any)
		next = ""
		if n, ok := links["next"]; ok {
			next = strings.TrimPrefix(n.(map[string]any)["href"].(string), "https://api.parley.test")
		}
	}
	assert.Len(t, seen, 60)
}

func TestGetConversation(t *testing.T) { onEachBackend(t, testGetConversation) }

func testGetConversation(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	w.clock.advance(90 * time.Minute)
	for _, tc := range []struct {
		name, path string
	}{
		{"conversation_refund", fmt.Sprintf("/v2/conversations/%d", w.refund)},
		{"conversation_chat_threads", fmt.Sprintf("/v2/conversations/%d?embed=threads", w.chat)},
		{"conversation_phone_closed", fmt.Sprintf("/v2/conversations/%d?embed=threads", w.phone)},
		{"conversation_invoice_list", "/v2/conversations?mailbox=2&embed=threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.get(tc.path)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
			goldenJSON(t, tc.name, rec.Body.Bytes())
		})
	}
}
