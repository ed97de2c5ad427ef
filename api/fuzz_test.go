package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/query"
)

// fuzzRoutes are the writes whose bodies FuzzRequests throws arbitrary
// bytes at, on the demo data (conversation 1, customer 1, chat endpoints).
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/v2/oauth2/token"},
	{"POST", "/transition"},
	{"POST", "/v2/conversations"},
	{"PATCH", "/v2/conversations/1"},
	{"POST", "/v2/conversations/1/reply"},
	{"PUT", "/v2/conversations/1/tags"},
	{"PUT", "/v2/conversations/1/fields"},
	{"PUT", "/v2/conversations/1/snooze"},
	{"POST", "/v2/conversations/1/merge"},
	{"PATCH", "/v2/conversations/1/threads/1"},
	{"POST", "/v2/customers"},
	{"PUT", "/v2/customers/1"},
	{"PATCH", "/v2/customers/1"},
	{"POST", "/v2/organizations"},
	{"POST", "/v2/webhooks"},
	{"POST", "/v2/users"},
	{"POST", "/v2/widgets/" + fixtures.AcmeWidgetID + "/chats"},
}

// FuzzRequests: no body, content type or query string makes the API
// answer a 5xx or panic. Run longer with:
// go test ./api -run XXX -fuzz FuzzRequests -fuzztime 5m
func FuzzRequests(f *testing.F) {
	seeds := []string{`{}`, `[]`, `null`, `{"subject":"x"}`, `[{"op":"replace","path":"/subject","value":"y"}]`,
		`grant_type=client_credentials&client_id=acme-demo-client&client_secret=x`, `{"tags":["a"]}`, "\x00\xff", `{"emails":[{"value":"a@b.com"}]}`}
	for i, s := range seeds {
		for r := range fuzzRoutes {
			f.Add(uint8(r), uint8(i%3), []byte(s), "page=1")
		}
	}
	server := demoServer(f, "fuzz-token")
	contentTypes := []string{"application/json", "application/x-www-form-urlencoded", ""}
	f.Fuzz(func(t *testing.T, route, contentType uint8, body []byte, rawQuery string) {
		r := fuzzRoutes[int(route)%len(fuzzRoutes)]
		req := httptest.NewRequest(r.method, "https://api.parley.test"+r.path, bytes.NewReader(body))
		req.URL.RawQuery = rawQuery
		req.Header.Set("Authorization", "Bearer fuzz-token")
		if ct := contentTypes[int(contentType)%len(contentTypes)]; ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec := httptest.NewRecorder()
		server.ServeHTTP(rec, req)
		if rec.Code >= http.StatusInternalServerError {
			t.Fatalf("%s %s answered %d: %s", r.method, r.path, rec.Code, rec.Body.String())
		}
	})
}

// queryForms are the places a word takes in a query: alone, quoted, under
// a text or keyword field, as a prefix, in a group, negated.
var queryForms = []string{"%s", `"%s"`, "subject:%s", "firstName:%s", "%s*", "email:%s*", "body:(%s OR refund)", "NOT %s"}

// FuzzQueryWords: a query word of any length (word repeated, up to just
// past the longest query), in any form, never makes the conversation or
// customer list, or a saved view's query check, answer a 5xx. Run longer
// with: go test ./api -run XXX -fuzz FuzzQueryWords -fuzztime 5m
func FuzzQueryWords(f *testing.F) {
	for _, seed := range []struct {
		word   string
		repeat uint16
	}{{"refund", 1}, {"refnud", 1}, {"q", 2498}, {"q", 4095}, {"ab", 1300}, {"é", 2000}, {"x\\*", 900}} {
		for form := range queryForms {
			f.Add(seed.word, seed.repeat, uint8(form))
		}
	}
	server := demoServer(f, "fuzz-token")
	f.Fuzz(func(t *testing.T, word string, repeat uint16, form uint8) {
		times := min(1+int(repeat), (query.MaxLength+2)/max(len(word), 1))
		q := fmt.Sprintf(queryForms[int(form)%len(queryForms)], strings.Repeat(word, times))
		view, err := json.Marshal(map[string]string{"name": "fuzz", "query": q})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/v2/conversations?query=" + url.QueryEscape(q), ""},
			{"GET", "/v2/customers?query=" + url.QueryEscape(q), ""},
			{"POST", "/v2/views", string(view)},
		} {
			req := httptest.NewRequest(r.method, "https://api.parley.test"+r.path, strings.NewReader(r.body))
			req.Header.Set("Authorization", "Bearer fuzz-token")
			if r.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			rec := httptest.NewRecorder()
			server.ServeHTTP(rec, req)
			if rec.Code >= http.StatusInternalServerError {
				t.Fatalf("%s %.80s answered %d: %.300s", r.method, r.path, rec.Code, rec.Body.String())
			}
		}
	})
}
