package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/headless"
	"github.com/parley/parley/storage"
)

// BrowserResult is one measure of the agents' inbox in headless Chromium,
// as the page itself took it with the Performance API (inbox/assets/marks.js).
type BrowserResult struct {
	Name string `json:"name"`
	// Query is what was typed in the search box; Hits the count the list
	// showed for it.
	Query string        `json:"query,omitempty"`
	Hits  int           `json:"hits,omitempty"`
	Runs  int           `json:"runs"`
	P50   time.Duration `json:"p50"`
	P95   time.Duration `json:"p95"`
}

// browserQueries are the reference queries' classes an agent types in the
// inbox's search box (the list adds its status, sort and facets), and a
// plain word.
var browserQueries = []struct{ name, query string }{
	{"search: one word", "refund"},
	{"search: body term (1)", "body:refund"},
	{"search: two body terms (2)", "body:refund AND body:order"},
	{"search: subject prefix (5)", "subject:refun*"},
	{"search: body phrase (6)", `body:"tracking number"`},
	{"search: status AND NOT tag AND subject OR (7)", "status:active AND NOT tag:spam AND subject:(invoice OR password)"},
	{"search: last 30 days (8)", "createdAt:[NOW-30DAYS TO NOW]"},
}

// Conversations of longThreads threads, tagged longTag, that the browser
// phase opens: the generator writes 1 to 6 threads a conversation.
const (
	longConversations = 5
	longThreads       = 20
	longTag           = "bench-long"
	// browserPassword is the password the browser phase gives the owner
	// it signs in as: the bench's users have none.
	browserPassword = "bench-browser-password"
)

// runBrowser measures the inbox in headless Chromium against the node:
// it signs in as the last company's owner through the inbox's OAuth
// sign-in, types each of browserQueries in the search box repeat times,
// and opens conversations of longThreads threads repeat times, reading
// the page's own measures. The last company is the one the writes use:
// the conversations it adds there change nothing the reference queries,
// the scan oracle or the PostgreSQL runs count (they read the first).
func runBrowser(ctx context.Context, n *node, w *world, repeat int, now time.Time, out io.Writer) ([]BrowserResult, error) {
	chromium := headless.Chromium()
	if chromium == "" {
		return nil, errors.New("-browser: Chromium is not installed (apt-get install -y chromium)")
	}
	company := w.companies[len(w.companies)-1]
	email, err := givePassword(n.db, company, w.owners[company])
	if err != nil {
		return nil, err
	}
	links, err := longConversationLinks(n.base, w, company, now)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "parley-bench-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	browser, stop, err := headless.Start(chromium, profile)
	if err != nil {
		return nil, err
	}
	defer stop()
	tab, cancelTab := chromedp.NewContext(browser)
	defer cancelTab()
	tab, cancel := context.WithTimeout(tab, 30*time.Minute)
	defer cancel()
	fmt.Fprintln(out, "signing in to the inbox in headless Chromium...")
	if _, err := headless.SignIn(tab, n.base+"/inbox", email, browserPassword); err != nil {
		return nil, err
	}
	var results []BrowserResult
	for _, q := range browserQueries {
		r, err := measureSearch(tab, q.name, q.query, repeat)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	r, err := measureOpen(tab, links, repeat)
	if err != nil {
		return nil, err
	}
	return append(results, r), nil
}

// givePassword sets browserPassword on the user (at bcrypt's lowest cost:
// the sign-in is not what is measured) and answers their e-mail.
func givePassword(db *storage.DB, company, userID int64) (string, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(browserPassword), bcrypt.MinCost)
	if err != nil {
		return "", err
	}
	var email string
	_, err = db.Update(func(tx *storage.Tx) error {
		u, err := tx.User(company, userID)
		if err != nil {
			return err
		}
		u.PasswordHash, email = string(hash), u.Email
		return tx.PutUser(u)
	})
	return email, err
}

// longConversationLinks answers the web links of the company's
// conversations tagged longTag, creating them through the API first
// unless an earlier run on the same data (-reuse) did.
func longConversationLinks(base string, w *world, company int64, now time.Time) ([]string, error) {
	token := w.tokens[company]
	links, err := taggedLinks(base, token)
	if err != nil || len(links) >= longConversations {
		return links, err
	}
	c := newCorpus(corpusSeed+1, 2_000)
	box := w.mailboxes[company][0]
	customer := w.customers[company][0]
	for i := len(links); i < longConversations; i++ {
		created := now.Add(-time.Duration(i+1) * 24 * time.Hour)
		conv := parley.NewConversation{Subject: parley.Ptr("Long conversation " + c.sentence(3)), Type: parley.Ptr("email"),
			MailboxID: &box.ID, Status: parley.Ptr("active"), Customer: &parley.CustomerInput{Email: &customer},
			Imported: true, CreatedAt: parley.Ptr(parley.FormatTime(created)), Tags: []string{longTag}}
		for t := range longThreads {
			kind := "customer"
			if t%2 == 1 {
				kind = "reply"
			}
			conv.Threads = append(conv.Threads, parley.NewThread{Type: parley.Ptr(kind), Text: parley.Ptr(c.body()),
				CreatedAt: parley.Ptr(parley.FormatTime(created.Add(time.Duration(t) * time.Hour)))})
		}
		body, err := json.Marshal(conv)
		if err != nil {
			return nil, err
		}
		req, _ := http.NewRequest(http.MethodPost, base+"/v2/conversations", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return nil, fmt.Errorf("create a conversation of %d threads: status %d: %s", longThreads, res.StatusCode, answer)
		}
	}
	return taggedLinks(base, token)
}

// taggedLinks lists the web links of the conversations tagged longTag.
func taggedLinks(base, token string) ([]string, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/v2/conversations?status=all&tag="+url.QueryEscape(longTag), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var list struct {
		Embedded struct {
			Conversations []struct {
				Links struct {
					Web struct {
						Href string `json:"href"`
					} `json:"web"`
				} `json:"_links"`
			} `json:"conversations"`
		} `json:"_embedded"`
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list the conversations tagged %s: status %d", longTag, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		return nil, err
	}
	var links []string
	for _, c := range list.Embedded.Conversations {
		links = append(links, c.Links.Web.Href)
	}
	return links, nil
}

// measureSearch types the query in the search box of the inbox's list
// and presses Enter, repeat times after a warm-up, reading the page's
// measure of each search.
func measureSearch(tab context.Context, name, query string, repeat int) (BrowserResult, error) {
	r := BrowserResult{Name: name, Query: query}
	if err := chromedp.Do(tab, chromedp.WaitReady(chromedp.CSS(`#list[data-state="ready"] #results`))); err != nil {
		return r, fmt.Errorf("%s: the list is not shown: %w", name, err)
	}
	var times []time.Duration
	for i := 0; i <= repeat; i++ {
		if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`performance.clearMeasures('inbox:search'), document.getElementById('query').value = '', true`)); err != nil {
			return r, err
		}
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("query"), query+kb.Enter)); err != nil {
			return r, err
		}
		took, err := pageMeasure(tab, "inbox:search")
		if err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		if i == 0 {
			state, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[document.getElementById('list').dataset.state, document.getElementById('list').dataset.count ?? '', document.getElementById('query-error').innerText + document.getElementById('list-error').innerText]`))
			if err != nil {
				return r, err
			}
			if state[0] != "ready" {
				return r, fmt.Errorf("%s: the list answered %s: %s", name, state[0], state[2])
			}
			fmt.Sscan(state[1], &r.Hits)
			continue
		}
		times = append(times, took)
	}
	return summarize(r, times), nil
}

// measureOpen opens the conversations' web links in turn, repeat times
// after a warm-up, reading the page's measure of each opening, and checks
// that each shows its threads.
func measureOpen(tab context.Context, links []string, repeat int) (BrowserResult, error) {
	r := BrowserResult{Name: fmt.Sprintf("open a conversation of %d threads", longThreads)}
	var times []time.Duration
	for i := 0; i <= repeat; i++ {
		link := links[i%len(links)]
		if err := chromedp.Do(tab, chromedp.Navigate(link)); err != nil {
			return r, err
		}
		took, err := pageMeasure(tab, "inbox:open-conversation")
		if err != nil {
			return r, fmt.Errorf("open %s: %w", link, err)
		}
		shown, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#threads [data-thread]').length`))
		if err != nil {
			return r, err
		}
		if shown < longThreads {
			return r, fmt.Errorf("open %s: %d threads shown, want %d or more", link, shown, longThreads)
		}
		if i > 0 {
			times = append(times, took)
		}
	}
	return summarize(r, times), nil
}

// pageMeasure waits for the page's measure of that name and answers its
// duration.
func pageMeasure(tab context.Context, name string) (time.Duration, error) {
	ms, err := chromedp.Run(tab, chromedp.Poll[float64](
		fmt.Sprintf(`performance.getEntriesByName(%q, 'measure').at(-1)?.duration || null`, name),
		chromedp.WithPollingTimeout(2*time.Minute)))
	if err != nil {
		return 0, fmt.Errorf("wait for the page's measure %s: %w", name, err)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// summarize sets the runs' count and percentiles on r.
func summarize(r BrowserResult, times []time.Duration) BrowserResult {
	slices.Sort(times)
	r.Runs, r.P50, r.P95 = len(times), percentile(times, 50), percentile(times, 95)
	return r
}
