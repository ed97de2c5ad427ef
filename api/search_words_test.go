package api_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchWordForms: unquoted words match their inflections, quoted
// words only their exact form; case and accents are folded in words,
// phrases and prefixes.
func TestSearchWordForms(t *testing.T) { onEachBackend(t, testSearchWordForms) }

func testSearchWordForms(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	cafe := w.create(convJSON(map[string]any{"subject": "Café order: résumé attached",
		"threads": []any{thread("customer", "I was refunded twice for the Crème brûlée kit.")}}))
	q := func(s string) string { return "/v2/conversations?status=all&query=" + url.QueryEscape(s) }
	cases := []struct {
		query string
		want  []int64
	}{
		{"body:refunds", []int64{cafe, w.chat}},                   // "refund" and "refunded"
		{"body:refunding", []int64{cafe, w.chat}},                 // any form finds every form
		{`body:"refunds"`, []int64{}},                             // no thread says "refunds"
		{`body:"refund"`, []int64{w.chat}},                        // exact: not "refunded"
		{`body:"refunded twice"`, []int64{cafe}},                  // phrases are exact too
		{`body:"refund twice"`, []int64{}},                        // ... so a stem does not make a phrase
		{"subject:cafe", []int64{cafe}},                           // accents folded
		{"subject:CAFÉ", []int64{cafe}},                           // in the query too
		{"subject:resume", []int64{cafe}},                         // résumé
		{`subject:"resume"`, []int64{cafe}},                       // quoted: exact form, folded
		{`body:"creme brulee kit"`, []int64{cafe}},                // phrases
		{"subject:résu*", []int64{cafe}},                          // prefixes, folded
		{"subject:refun*", []int64{w.refund}},                     // prefixes match exact forms
		{`email:"bob@example.com"`, []int64{w.password}},          // e-mails keep their exact rule
		{"tag:Refund", []int64{w.chat, w.refund}},                 // so do tag names
		{"subject:refunds AND subject:orders", []int64{w.refund}}, // "Refund for order 1001"
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			assert.Equal(t, tc.want, ids(t, w.get(q(tc.query)), "conversations"))
		})
	}
}

// TestSearchSuggestions: a search that finds nothing offers corrected
// queries made of the company's own words, never another company's.
func TestSearchSuggestions(t *testing.T) { onEachBackend(t, testSearchSuggestions) }

func testSearchSuggestions(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	w.create(convJSON(map[string]any{"subject": "Order 48213977 never came",
		"threads": []any{thread("customer", "The part zqvolt66104405x is broken.")}}))
	rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: globexToken,
		body: convJSON(map[string]any{"subject": "Xylophone tuning", "mailboxId": globexMailboxID})})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	suggestions := func(token, path string) any {
		rec := w.do(request{method: http.MethodGet, path: path, token: token})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return decode(t, rec)["suggestions"]
	}
	q := func(s string) string { return "/v2/conversations?status=all&query=" + url.QueryEscape(s) }
	cases := []struct {
		name, token, path string
		want              any
	}{
		{"misspelled word", ownerToken, q("refnud"), []any{"refund"}},
		{"in a field, with another word kept", ownerToken, q("subject:(refnud order)"), []any{"subject:(refund order)"}},
		{"two misspelled words", ownerToken, q(`body:"arived crushd"`), []any{`body:"arrived crushed"`}},
		{"under the list's filters: a correction that finds nothing is not offered", ownerToken,
			"/v2/conversations?status=spam&query=refnud", nil},
		{"a search with hits has none", ownerToken, q("refund"), nil},
		{"existing words that find nothing together have none", ownerToken, q("zebra AND refund"), nil},
		{"another company's word is never offered", ownerToken, q("xylofone"), nil},
		{"the company's own word is", globexToken, q("xylofone"), []any{"xylophone"}},
		{"a product code with digits", ownerToken, q("body:zqvolt66104405x2"), []any{"body:zqvolt66104405x"}},
		{"an order number", ownerToken, q("subject:48213917"), []any{"subject:48213977"}},
		{"customers", ownerToken, "/v2/customers?query=" + url.QueryEscape("firstName:Craol"), []any{"firstName:carol"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, suggestions(tc.token, tc.path))
		})
	}
	// The whole answer: an empty page and the suggestions beside it.
	goldenJSON(t, "conversations_suggestions", w.get(q("subject:refnud")).Body.Bytes())
}
