package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/puller"
)

// TestPullFromParley pulls Acme from a server holding the demo data into a
// new company of a data directory, and of a PostgreSQL database, holding
// another company, cut off after two conversation pages
// and then run again to the end: the target answers the same lists and
// searches (ids, numbers, dates, subjects, statuses, customers), each
// conversation has as many threads, and a third run copies nothing.
func TestPullFromParley(t *testing.T) {
	t.Parallel()
	targets := []struct {
		name   string
		target func(t *testing.T) location
	}{
		{"data directory", func(t *testing.T) location { return location{dir: t.TempDir()} }},
		{"database", func(t *testing.T) location {
			database := pgtest.Database(t)
			var out bytes.Buffer
			require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &out, &out), out.String())
			return location{url: database}
		}},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testPull(t, tc.target(t))
		})
	}
}

func testPull(t *testing.T, at location) {
	a := serveDir(t, t.TempDir(), true, "")
	// The demo's organizations are names only: one with its details too.
	req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/v2/organizations", strings.NewReader(
		`{"name":"Wayfarer Maps","website":"https://wayfarer.example","domains":["wayfarer.example"],"description":"Atlases","phones":["+1 555 0100"]}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)
	want := map[string][]string{}
	lists := append([]string{"/v2/customers"}, searches...)
	for _, q := range lists {
		for _, body := range a.pages(t, q) {
			want[q] = append(want[q], conversationKeys(t, body)...)
		}
	}
	wantThreads := threadCounts(t, a)
	wantAccount := accountNames(t, a)
	for _, kind := range []string{"users", "organizations", "mailboxes", "fields", "saved replies"} {
		require.NotEmpty(t, wantAccount[kind], kind)
	}

	// The target already holds another company, so Acme's mailboxes and
	// users get other ids there than in the source.
	where := []string{"--data", at.dir}
	if at.postgres() {
		where = []string{"--database", at.url}
	}
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), append([]string{"init", "--company", "Initech", "--owner", "bill@initech.test"}, where...),
		&out, &errs), errs.String())
	pull := func(extra ...string) (string, int) {
		var out, errs bytes.Buffer
		args := append([]string{"pull", "--from", a.srv.URL, "--client-id", fixtures.AcmeClientID,
			"--client-secret", fixtures.AcmeClientSecret}, append(where, extra...)...)
		code := run(context.Background(), args, &out, &errs)
		return out.String() + errs.String(), code
	}
	// The first run stops after two pages of conversations, as a pull
	// killed halfway does: every record it wrote is committed whole.
	target, err := open(context.Background(), at, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	src := &puller.Client{Base: a.srv.URL, ClientID: fixtures.AcmeClientID, ClientSecret: fixtures.AcmeClientSecret}
	account, err := puller.NewCompany(context.Background(), src, target.db.Store(), "Acme", api.HashSecret, fixedClock{}.Now())
	require.NoError(t, err)
	first, err := puller.Pull(context.Background(), src, target.db.Store(), puller.Options{CompanyID: account.Company.ID, StopAfterPages: 2})
	require.ErrorIs(t, err, puller.ErrStopped)
	require.Positive(t, first.Copied["conversations"])
	require.NoError(t, target.close())

	company := fmt.Sprint(account.Company.ID)
	got, code := pull("--company", company)
	require.Equal(t, 0, code, got)
	assert.Contains(t, got, fmt.Sprintf("conversations: %d copied, 0 updated, %d already there\n",
		len(want[searches[0]])-first.Copied["conversations"], first.Copied["conversations"]), got)
	assert.Contains(t, got, "refused: 0\n")

	got, code = pull("--company", company)
	require.Equal(t, 0, code, got)
	assert.Regexp(t, `conversations: 0 copied, 0 updated, \d+ already there`, got)
	assert.Regexp(t, `customers: 0 copied, 0 updated, \d+ already there`, got)
	assert.Contains(t, got, "threads: 0 copied")
	assert.Contains(t, got, "refused: 0\n")

	a.stop()
	b := serveAt(t, at, false, "")
	b.token = appToken(t, b.srv.URL, account.App.ClientID, account.ClientSecret)
	for _, q := range lists {
		var got []string
		for _, body := range b.pages(t, q) {
			got = append(got, conversationKeys(t, body)...)
		}
		assert.Equal(t, want[q], got, q)
	}
	assert.Equal(t, wantThreads, threadCounts(t, b))
	assert.Equal(t, wantAccount, accountNames(t, b))
}

// threadCounts maps each conversation's id to its threads' types and
// creation times, status and assignment lines left out (an import derives
// them, as the importer's docs say).
func threadCounts(t *testing.T, r *running) map[int64][]string {
	t.Helper()
	out := map[int64][]string{}
	for _, body := range r.pages(t, "/v2/conversations?status=all&embed=threads") {
		var page struct {
			Embedded struct {
				Conversations []struct {
					ID       int64 `json:"id"`
					Embedded struct {
						Threads []struct {
							Type, CreatedAt, Body string
						} `json:"threads"`
					} `json:"_embedded"`
				} `json:"conversations"`
			} `json:"_embedded"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		for _, c := range page.Embedded.Conversations {
			threads := []string{}
			for _, th := range c.Embedded.Threads {
				if th.Type != "lineitem" {
					threads = append(threads, th.Type+" "+th.CreatedAt+" "+th.Body)
				}
			}
			sort.Strings(threads)
			out[c.ID] = threads
		}
	}
	return out
}

// appToken signs in with an OAuth application's credentials.
func appToken(t *testing.T, base, id, secret string) string {
	t.Helper()
	res, err := http.PostForm(base+"/v2/oauth2/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&tok))
	require.NotEmpty(t, tok.AccessToken)
	return tok.AccessToken
}

// accountNames lists, by kind, the names of the account's mailboxes (with
// their fields and saved replies), users and organizations, sorted.
func accountNames(t *testing.T, r *running) map[string][]string {
	t.Helper()
	type named struct {
		ID                                                         int64
		Name, Email, Preview, Website, Description, Location, Note string
		Domains, Phones                                            []string
	}
	list := func(path, key string) []named {
		var out []named
		for _, body := range r.pages(t, path) {
			var page struct {
				Embedded map[string][]named `json:"_embedded"`
			}
			require.NoError(t, json.Unmarshal(body, &page))
			out = append(out, page.Embedded[key]...)
		}
		return out
	}
	out := map[string][]string{}
	for _, u := range list("/v2/users", "users") {
		out["users"] = append(out["users"], u.Email)
	}
	for _, o := range list("/v2/organizations", "organizations") {
		out["organizations"] = append(out["organizations"], fmt.Sprint(o.Name, o.Website, o.Domains, o.Description, o.Location, o.Note, o.Phones))
	}
	for _, m := range list("/v2/mailboxes", "mailboxes") {
		out["mailboxes"] = append(out["mailboxes"], m.Name+" "+m.Email)
		for _, f := range list(fmt.Sprintf("/v2/mailboxes/%d/fields", m.ID), "fields") {
			out["fields"] = append(out["fields"], m.Name+": "+f.Name)
		}
		var replies []named
		require.NoError(t, json.Unmarshal(r.get(t, fmt.Sprintf("/v2/mailboxes/%d/saved-replies", m.ID)), &replies))
		for _, s := range replies {
			out["saved replies"] = append(out["saved replies"], m.Name+": "+s.Name+": "+s.Preview)
		}
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}
