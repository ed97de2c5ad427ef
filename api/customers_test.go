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

func TestListCustomers(t *testing.T) { onEachBackend(t, testListCustomers) }

func testListCustomers(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	w.clock.advance(time.Minute)
	plus := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "j.smith+billing@example.org", "firstName": "Jo", "lastName": "Smith"}}))
	_ = plus
	// Customers of the list world, in creation order: Alice 1, Bob 2, Carol 3,
	// Dave 4, Globex's Alice 5, Jo Smith 6.
	q := func(s string) string { return "query=" + url.QueryEscape(s) }
	cases := []struct {
		name, query, token string
		want               []int64
	}{
		{"newest first by default", "", ownerToken, []int64{6, 4, 3, 2, 1}},
		{"another company's customers", "", globexToken, []int64{5}},
		{"firstName", "firstName=alice", ownerToken, []int64{1}},
		{"lastName", "lastName=Baker", ownerToken, []int64{2}},
		{"mailbox: customers with conversations there", "mailbox=2", ownerToken, []int64{3}},
		{"modifiedSince", "modifiedSince=" + url.QueryEscape("2026-11-21T12:02:00Z"), ownerToken, []int64{6, 4, 3}},
		{"sort by first name", "sortField=firstName&sortOrder=asc", ownerToken, []int64{1, 2, 3, 4, 6}},
		{"sort by last name desc", "sortField=lastName", ownerToken, []int64{6, 4, 3, 2, 1}},
		{"email contains", q("email:bob"), ownerToken, []int64{2}},
		{"email contains a fragment with a plus", q(`email:"smith+bill"`), ownerToken, []int64{6}},
		{"email domain", q("emailDomain:example.org"), ownerToken, []int64{6}},
		{"names with OR", q("firstName:Carol OR lastName:Dunn"), ownerToken, []int64{4, 3}},
		{"AND with a range", q("email:example AND modifiedAt:[* TO 2026-11-21T12:01:00Z]"), ownerToken, []int64{2, 1}},
		{"bare words search names and e-mails", q("dave"), ownerToken, []int64{4}},
		{"query and parameters combine", "firstName=alice&" + q("email:example"), ownerToken, []int64{1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: "/v2/customers?" + tc.query, token: tc.token})
			assert.Equal(t, tc.want, ids(t, rec, "customers"))
		})
	}
	t.Run("bad query", func(t *testing.T) {
		rec := w.get("/v2/customers?" + q("subject:refund"))
		require.Equal(t, http.StatusBadRequest, rec.Code)
		item := field(t, decode(t, rec), "_embedded", "errors").([]any)[0].(map[string]any)
		assert.Equal(t, "query", item["path"])
		assert.Contains(t, item["message"], `unknown field "subject" at column 1`)
	})
}

func TestGetCustomer(t *testing.T) { onEachBackend(t, testGetCustomer) }

func testGetCustomer(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	rec := w.get("/v2/customers/1")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "customer_alice", rec.Body.Bytes())
	list := decode(t, w.get("/v2/customers?firstName=alice"))
	item := field(t, list, "_embedded", "customers").([]any)[0].(map[string]any)
	assert.NotContains(t, item["_embedded"], "address", "the address is embedded on the single read only")
	assert.Equal(t, float64(3), item["conversationCount"])

	for _, path := range []string{"/v2/customers/5", "/v2/customers/999"} {
		rec := w.get(path)
		assert.Equal(t, http.StatusNotFound, rec.Code, path)
	}
	assert.Equal(t, http.StatusBadRequest, w.get(fmt.Sprintf("/v2/customers/%d", -1)).Code)
}
