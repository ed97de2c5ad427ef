package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListConversationsQuery(t *testing.T) { onEachBackend(t, testListConversationsQuery) }

func testListConversationsQuery(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	plus := w.create(convJSON(map[string]any{"subject": "Billing address change", "status": "pending",
		"customer": map[string]any{"email": "j.smith+billing@example.org", "firstName": "Jo", "lastName": "Smith"}}))
	w.clock.advance(time.Hour)
	q := func(s string) string { return "status=all&query=" + url.QueryEscape(s) }
	prio := w.fields["Priority"]
	cases := []struct {
		name, rawQuery string
		want           []int64
	}{
		{"subject word", q("subject:refund"), []int64{w.refund}},
		{"subject words in any order", q(`subject:"1001 order"`), []int64{w.refund}},
		{"body phrase", q(`body:"refund is on its way"`), []int64{w.chat}},
		{"body phrase, words out of order, finds nothing", q(`body:"on its way refund"`), []int64{}},
		{"bare word searches subject, body, names and e-mails", q("refund"), []int64{w.chat, w.refund}},
		{"bare name", q("Dunn"), []int64{w.chat}},
		{"agents' query", q(`(subject:"refund" OR body:"shipping delay") AND NOT tag:vip`), []int64{w.phone}},
		{"email of the customer profile", q("email:alice@example.com"), []int64{w.draft, w.phone, w.refund}},
		{"email OR in parentheses", q("email:(bob@example.com OR carol@example.com)"), []int64{w.invoice, w.password}},
		{"email with a plus, quoted", q(`email:"j.smith+billing@example.org"`), []int64{plus}},
		{"tag AND mailbox name", q("tag:refund AND mailbox:support"), []int64{w.chat, w.refund}},
		{"mailboxid", q("mailboxid:2"), []int64{w.invoice}},
		{"assigned by name", q(`assigned:"Uma Agent"`), []int64{w.refund}},
		{"assigned to nobody", q("assigned:Unassigned AND mailboxid:1"), []int64{plus, w.draft, w.chat, w.phone, w.password}},
		{"number", q("number:3"), []int64{w.invoice}},
		{"id", q(fmt.Sprintf("id:%d", w.password)), []int64{w.password}},
		{"customerIds", q("customerIds:1"), []int64{w.draft, w.phone, w.refund}},
		{"replyUserIds", q("replyUserIds:(1 OR 2)"), []int64{w.chat}},
		{"createdAt range, open end", q("createdAt:[2026-11-21T12:04:00Z TO *]"), []int64{plus, w.draft, w.chat}},
		{"createdAt exclusive range", q("createdAt:{2026-11-21T12:00:00Z TO 2026-11-21T12:03:00Z}"), []int64{w.invoice, w.password}},
		{"modifiedAt relative", q("modifiedAt:[NOW-61MINUTES TO NOW]"), []int64{plus, w.draft}},
		{"createdAt partial date", q("createdAt:2026-11"), []int64{plus, w.draft, w.chat, w.phone, w.invoice, w.password, w.refund}},
		{"createdAt in another year", q("createdAt:2025"), []int64{}},
		{"prefix", q("subject:refun*"), []int64{w.refund}},
		{"pure negative", q("-tag:refund"), []int64{plus, w.draft, w.phone, w.invoice, w.password}},
		{"status and type beyond Help Scout's docs", q("status:closed OR type:chat"), []int64{w.chat, w.phone}},
		{"status open, as the status parameter: active or pending", q("status:open"), []int64{plus, w.draft, w.chat, w.invoice, w.password, w.refund}},
		{"status all", q("status:all AND mailboxid:2"), []int64{w.invoice}},
		{"state of a draft", q("state:draft"), []int64{w.draft}},
		{"custom dropdown field", q(fmt.Sprintf("cf%d:%d", prio.ID, prio.Options[1].ID)), []int64{w.refund}},
		{"attachments", q("attachments:false AND tag:vip"), []int64{w.refund}},
		{"whole query in parentheses, + for spaces, unescaped colon and quotes", `status=all&query=(subject:"Password+reset")`, []int64{w.password}},
		{"%20 for spaces keeps a raw + in an e-mail", `status=all&query=email:j.smith+billing@example.org%20OR%20number:1`, []int64{plus, w.refund}},
		{"%2B for a plus with + for spaces", `status=all&query=email:j.smith%2Bbilling@example.org+OR+number:1`, []int64{plus, w.refund}},
		{"query ANDed with list parameters", "mailbox=1&" + q("refund"), []int64{w.chat, w.refund}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ids(t, w.get("/v2/conversations?"+tc.rawQuery), "conversations"))
		})
	}
}

func TestListConversationsQueryErrors(t *testing.T) {
	onEachBackend(t, testListConversationsQueryErrors)
}

func testListConversationsQueryErrors(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	cases := []struct{ name, query, message string }{
		{"unknown field", "subjct:refund", `unknown field "subjct" at column 1; did you mean "subject"?`},
		{"unbalanced", "(subject:refund", `unexpected end of query at column 16, expected ")"`},
		{"range on text", "subject:[a TO b]", `range not allowed on text field "subject" at column 1`},
		{"bad date", "createdAt:2024-13", `invalid date "2024-13" for field "createdAt" at column 1`},
		{"unknown custom field", "cf999:1", `unknown field "cf999" at column 1`},
		{"a status typo", "status:opne", `invalid value "opne" for field "status" at column 1; did you mean "open"?`},
		{"a type typo, later in the query", "tag:vip AND type:emial", `invalid value "emial" for field "type" at column 13; did you mean "email"?`},
		{"a state outside the set", "state:deleted", `invalid value "deleted" for field "state" at column 1, expected one of: draft, published`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.get("/v2/conversations?query=" + url.QueryEscape(tc.query))
			require.Equal(t, http.StatusBadRequest, rec.Code)
			items := field(t, decode(t, rec), "_embedded", "errors").([]any)
			require.Len(t, items, 1)
			item := items[0].(map[string]any)
			assert.Equal(t, "query", item["path"])
			assert.Equal(t, tc.query, item["rejectedValue"])
			assert.Equal(t, "Invalid query", item["code"])
			assert.Contains(t, item["message"], tc.message)
		})
	}
}

func TestListConversationsCustomFields(t *testing.T) {
	onEachBackend(t, testListConversationsCustomFields)
}

func testListConversationsCustomFields(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	f := w.fields
	withFields := func(subject string, values map[string]string) int64 {
		var list []any
		for name, v := range values {
			list = append(list, map[string]any{"id": f[name].ID, "value": v})
		}
		return w.create(convJSON(map[string]any{"subject": subject, "fields": list}))
	}
	high := fmt.Sprint(f["Priority"].Options[1].ID)
	low := fmt.Sprint(f["Priority"].Options[0].ID)
	a := withFields("A", map[string]string{"Priority": high, "Order number": "ORD-77 express", "Account value": "100", "Renewal date": "2027-01-31", "Notes": "call back"})
	b := withFields("B", map[string]string{"Priority": low, "Order number": "ORD-78", "Account value": "250.5", "Renewal date": "2027-02-01"})
	cfq := func(pairs ...string) string {
		v := url.Values{"mailbox": {"1"}}
		for _, p := range pairs {
			v.Add("customFieldsByIds", p)
		}
		return "/v2/conversations?" + v.Encode()
	}
	id := func(name string) int64 { return f[name].ID }
	cases := []struct {
		name, path string
		want       []int64
	}{
		{"dropdown by option id", cfq(fmt.Sprintf("%d:%s", id("Priority"), high)), []int64{a}},
		{"number exact", cfq(fmt.Sprintf("%d:250.5", id("Account value"))), []int64{b}},
		{"date exact", cfq(fmt.Sprintf("%d:2027-01-31", id("Renewal date"))), []int64{a}},
		{"single-line text is full text", cfq(fmt.Sprintf("%d:express", id("Order number"))), []int64{a}},
		{"repeated pairs are ANDed", cfq(fmt.Sprintf("%d:%s", id("Priority"), low), fmt.Sprintf("%d:100", id("Account value"))), []int64{}},
		{"comma-joined pairs are ANDed", cfq(fmt.Sprintf("%d:%s,%d:250.5", id("Priority"), low, id("Account value"))), []int64{b}},
		{"number range in the query language", fmt.Sprintf("/v2/conversations?query=%s", url.QueryEscape(fmt.Sprintf("cf%d:[200 TO *]", id("Account value")))), []int64{b}},
		{"date range in the query language", fmt.Sprintf("/v2/conversations?query=%s", url.QueryEscape(fmt.Sprintf("cf%d:[* TO 2027-01]", id("Renewal date")))), []int64{a}},
		{"multi-line text in the query language", fmt.Sprintf("/v2/conversations?query=%s", url.QueryEscape(fmt.Sprintf(`cf%d:"call back"`, id("Notes")))), []int64{a}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ids(t, w.get(tc.path), "conversations"))
		})
	}
	errs := []struct {
		name, path, code, param string
	}{
		{"mailbox missing", fmt.Sprintf("/v2/conversations?customFieldsByIds=%d:1", id("Account value")), "Missing parameter", "mailbox"},
		{"multi-line not supported", cfq(fmt.Sprintf("%d:x", id("Notes"))), "Value not supported", "customFieldsByIds"},
		{"unknown field", cfq("999:1"), "Invalid identifier", "customFieldsByIds"},
		{"not a pair", cfq("oops"), "Value not supported", "customFieldsByIds"},
		{"bad option", cfq(fmt.Sprintf("%d:12345", id("Priority"))), "Value not supported", "customFieldsByIds"},
		{"bad number", cfq(fmt.Sprintf("%d:lots", id("Account value"))), "Invalid number", "customFieldsByIds"},
		{"bad date", cfq(fmt.Sprintf("%d:31/01/2027", id("Renewal date"))), "Malformed date", "customFieldsByIds"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.get(tc.path)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			item := field(t, decode(t, rec), "_embedded", "errors").([]any)[0].(map[string]any)
			assert.Equal(t, tc.code, item["code"])
			assert.Equal(t, tc.param, item["path"])
			assert.Equal(t, "query", item["source"], "read from the query string")
		})
	}
}
