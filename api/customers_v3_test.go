package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

func TestListCustomersV3Filters(t *testing.T) {
	w := newListWorld(t)
	// Customers of the list world: Alice 1, Bob 2, Carol 3, Dave 4 (one
	// minute apart), Globex's Alice 5.
	q := url.QueryEscape
	cases := []struct {
		name, query, token string
		want               []int64
	}{
		{"newest first", "", ownerToken, []int64{4, 3, 2, 1}},
		{"another company", "", globexToken, []int64{5}},
		{"email, exact and case-insensitive", "email=BOB@example.com", ownerToken, []int64{2}},
		{"email is not a contains filter", "email=bob", ownerToken, []int64{}},
		{"createdSince is inclusive", "createdSince=" + q("2026-11-21T12:02:00Z"), ownerToken, []int64{4, 3}},
		{"modifiedSince", "modifiedSince=" + q("2026-11-21T12:04:00Z"), ownerToken, []int64{4}},
		{"firstName", "firstName=carol", ownerToken, []int64{3}},
		{"lastName", "lastName=Dunn", ownerToken, []int64{4}},
		{"query", "query=" + q("email:example AND firstName:(alice OR bob)"), ownerToken, []int64{2, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: "/v3/customers?" + tc.query, token: tc.token})
			assert.Equal(t, tc.want, ids(t, rec, "customers"))
			assert.NotContains(t, decode(t, rec)["_links"], "next", "one page holds them all")
		})
	}
	rec := w.get("/v3/customers?lastName=Archer")
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "customers/v3_page", rec.Body.Bytes())
	for _, bad := range []string{"createdSince=yesterday", "query=" + q("subject:x")} {
		assert.Equal(t, http.StatusBadRequest, w.get("/v3/customers?"+bad).Code, bad)
	}
	for _, unread := range []string{"mailbox=1", "page=2"} { // not parameters of this endpoint: ignored, and said
		rec := w.get("/v3/customers?" + unread)
		assert.Equal(t, http.StatusOK, rec.Code, unread)
		assert.Equal(t, strings.SplitN(unread, "=", 2)[0], rec.Header().Get(api.IgnoredParametersHeader))
	}
	assert.Equal(t, http.StatusUnauthorized, w.do(request{method: http.MethodGet, path: "/v3/customers"}).Code)
}

// seedCustomers stores n customers of Acme directly, three per creation
// second (so the id breaks ties), and waits until they are searchable.
func seedCustomers(t *testing.T, w *world, n int) {
	seq, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		for i := 0; i < n; i++ {
			at := epoch.Add(-time.Duration(i/3) * time.Second)
			c := &parley.Customer{CompanyID: acmeID, FirstName: fmt.Sprintf("Seed%03d", i), CreatedAt: at, UpdatedAt: at,
				Emails: []parley.Entry{{Value: fmt.Sprintf("seed%03d@example.com", i), Type: "work"}}}
			if err := tx.PutCustomer(c); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	w.indexed(seq)
}

func TestListCustomersV3CursorWalk(t *testing.T) {
	w := newWorld(t)
	seedCustomers(t, w, 130)
	// The expected walk: every customer present at the start, newest first,
	// the id breaking ties (ids grow with the seed order, so within one
	// second the higher id comes first).
	var want []int64
	for sec := 0; sec*3 < 130; sec++ {
		for i := min(sec*3+2, 129); i >= sec*3; i-- {
			want = append(want, int64(i+1))
		}
	}
	var got []int64
	next := "https://api.parley.test/v3/customers?query=" + url.QueryEscape("email:example")
	for pages := 0; next != ""; pages++ {
		require.Less(t, pages, 10)
		rec := w.get(strings.TrimPrefix(next, "https://api.parley.test"))
		got = append(got, ids(t, rec, "customers")...)
		next = ""
		if n, ok := field(t, decode(t, rec), "_links", "next", "href").(string); ok {
			next = n
		}
		// Writes between pages: a newer customer, a renamed old one.
		w.clock.advance(time.Minute)
		w.newCustomer(map[string]any{"firstName": fmt.Sprintf("Late%d", pages), "emails": []any{map[string]any{"value": fmt.Sprintf("late%d@example.com", pages)}}})
		w.must(http.MethodPatch, "/v2/customers/100", []any{map[string]any{"op": "replace", "path": "/lastName", "value": fmt.Sprint("Touched", pages)}}, http.StatusNoContent)
	}
	assert.Equal(t, want, got, "every customer once, in order; customers created during the walk are newer and not in it")
	assert.Len(t, got, 130)
}

func TestListCustomersV3Cursor(t *testing.T) {
	w := newWorld(t)
	seedCustomers(t, w, 60)
	rec := w.get("/v3/customers")
	next, _ := field(t, decode(t, rec), "_links", "next", "href").(string)
	require.NotEmpty(t, next)
	u, err := url.Parse(next)
	require.NoError(t, err)
	cursor := u.Query().Get("cursor")
	assert.Len(t, ids(t, w.get("/v3/customers?cursor="+cursor), "customers"), 10)

	flipped := []byte(cursor)
	flipped[5] ^= 1
	cases := []struct {
		name, query, token string
	}{
		{"altered", "cursor=" + url.QueryEscape(string(flipped)), ownerToken},
		{"garbage", "cursor=abc", ownerToken},
		{"empty", "cursor=", ownerToken},
		{"other filters", "cursor=" + cursor + "&firstName=seed", ownerToken},
		{"another company", "cursor=" + cursor, globexToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.do(request{method: http.MethodGet, path: "/v3/customers?" + tc.query, token: tc.token})
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			item := firstError(t, rec)
			assert.Equal(t, "cursor", item["path"])
			assert.Equal(t, "Rejected request", item["code"])
		})
	}
}
