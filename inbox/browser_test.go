package inbox_test

import (
	"context"
	"flag"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/internal/browsertest"
)

var update = flag.Bool("update", false, "rewrite docs/inbox-*.png, the screenshots of the inbox's pages")

// screenshot writes, under -update, the page (or, not full, the window)
// as docs/inbox-name.png.
func screenshot(t *testing.T, ctx context.Context, name string, full bool) {
	t.Helper()
	if !*update {
		return
	}
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(ctx, shot)
	require.NoError(t, err)
	path := filepath.Join("..", "docs", "inbox-"+name+".png")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, png, 0o644))
}

type conversation struct {
	ID      int64  `json:"id"`
	Number  int64  `json:"number"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
	Threads int    `json:"threads"`
	Links   struct {
		Web struct {
			Href string `json:"href"`
		} `json:"web"`
	} `json:"_links"`
}

type conversationList struct {
	Embedded struct {
		Conversations []conversation `json:"conversations"`
	} `json:"_embedded"`
	Page struct {
		TotalElements int `json:"totalElements"`
	} `json:"page"`
}

type thread struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Body      string `json:"body"`
	CreatedAt string `json:"createdAt"`
}

func threadsOf(t *testing.T, p *browsertest.Parley, id int64) []thread {
	t.Helper()
	var body struct {
		Embedded struct {
			Threads []thread `json:"threads"`
		} `json:"_embedded"`
	}
	p.Get(t, "/v2/conversations/"+strconv.FormatInt(id, 10)+"/threads", nil, &body)
	return body.Embedded.Threads
}

// count is the number of conversations the list answers to a query.
// savedView is what the test reads of a view from GET /v2/views.
type savedView struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Visibility string `json:"visibility"`
	MailboxID  int64  `json:"mailboxId"`
	Filters    struct {
		Mailbox []int64 `json:"mailbox"`
	} `json:"filters"`
}

func count(t *testing.T, p *browsertest.Parley, params url.Values) int {
	t.Helper()
	var list conversationList
	p.Get(t, "/v2/conversations", params, &list)
	return list.Page.TotalElements
}

// signIn signs in from the inbox's page at path.
func signIn(t *testing.T, ctx context.Context, p *browsertest.Parley, path string) {
	t.Helper()
	browsertest.SignIn(t, ctx, p, path, "Parley inbox")
}

// search types a query in the box, as the agent does, and waits for the
// list's answer.
func search(t *testing.T, ctx context.Context, query string) {
	t.Helper()
	run(t, ctx, `document.getElementById('list').dataset.state = 'typing', document.getElementById('query').value = ''`)
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("query"), query+kb.Enter)))
	require.NoError(t, browsertest.WaitFor(ctx, `['ready', 'error'].includes(document.getElementById('list').dataset.state)`))
}

// press presses keys as a person does, and as Puppeteer sends them: each
// key's keydown carries its text, so a page that prevents the keydown (a
// shortcut) types nothing. chromedp.KeyEvent sends the text in an event of
// its own, which types even then.
func press(keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		for _, r := range keys {
			var down, up *input.DispatchKeyEventParams
			text := ""
			for _, e := range kb.Encode(r) {
				switch e.Type {
				case kb.KeyDown:
					down = e
				case kb.KeyUp:
					up = e
				default:
					text = e.Text
				}
			}
			down.Text, down.UnmodifiedText = text, text
			for _, e := range []*input.DispatchKeyEventParams{down, up} {
				if _, err := cdp.Call(ctx, target, input.DispatchKeyEvent, *e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// run runs a statement in the page.
func run(t *testing.T, ctx context.Context, statement string) {
	t.Helper()
	browsertest.Evaluate[bool](t, ctx, "("+statement+", true)")
}

func shownCount(t *testing.T, ctx context.Context) int {
	t.Helper()
	return browsertest.Evaluate[int](t, ctx, `Number(document.getElementById('list').dataset.count)`)
}

// start starts Chromium and Parley over the demo data, and opens a tab
// whose errors are watched.
func start(t *testing.T) (browser, tab context.Context, p *browsertest.Parley, errs *browsertest.PageErrors) {
	t.Helper()
	browser = browsertest.StartBrowser(t)
	p = browsertest.StartParley(t)
	tab, cancelTab := chromedp.NewContext(browser)
	tab, cancel := context.WithTimeout(tab, 4*time.Minute)
	t.Cleanup(func() { cancel(); cancelTab() })
	return browser, tab, p, browsertest.WatchErrors(tab)
}

// TestInbox drives the inbox in headless Chromium over the demo data, as
// an agent would: sign in, open a conversation's web link, search, refine,
// save a view, reply, and watch another agent's change arrive. What the
// page shows must be what the API answers to a direct call. One browser
// and one sign-in serve the steps, so they run in order.
func TestInbox(t *testing.T) {
	browser, ctx, p, errs := start(t)

	if !t.Run("signs in through the authorization page", func(t *testing.T) { signIn(t, ctx, p, "/inbox") }) {
		return
	}

	// An active conversation of several threads, so their order shows.
	var list conversationList
	p.Get(t, "/v2/conversations", url.Values{"status": {"all"}, "query": {"status:active"}}, &list)
	i := slices.IndexFunc(list.Embedded.Conversations, func(c conversation) bool { return c.Threads >= 3 })
	require.GreaterOrEqual(t, i, 0, "the demo has an active conversation of 3 threads or more")
	conv := list.Embedded.Conversations[i]

	t.Run("the web link shows the conversation and its threads in order", func(t *testing.T) {
		require.True(t, strings.HasPrefix(conv.Links.Web.Href, p.URL+"/conversation/"), conv.Links.Web.Href)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(conv.Links.Web.Href)))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready' && document.body.dataset.state === 'ready'`))
		assert.Equal(t, conv.Subject, browsertest.Evaluate[string](t, ctx, `document.getElementById('subject').textContent`))
		threads := threadsOf(t, p, conv.ID)
		require.NotEmpty(t, threads)
		var want []int64
		for i := len(threads) - 1; i >= 0; i-- { // the API lists the newest first
			want = append(want, threads[i].ID)
		}
		shown := browsertest.Evaluate[[]int64](t, ctx, `[...document.querySelectorAll('#threads [data-thread]')].map((li) => Number(li.dataset.thread))`)
		assert.Equal(t, want, shown, "every thread, oldest first")
		bodies := browsertest.Evaluate[string](t, ctx, `document.getElementById('threads').textContent`)
		assert.Contains(t, bodies, strings.Fields(threads[0].Body)[0])
		require.NoError(t, browsertest.WaitFor(ctx, `document.querySelector('#customer .others') !== null`))
		screenshot(t, ctx, "conversation", true)
	})

	t.Run("a conversation the agent cannot see says so", func(t *testing.T) {
		globex := browsertest.ClientToken(t, p.URL, fixtures.GlobexClientID, fixtures.GlobexClientSecret)
		req, err := http.NewRequest(http.MethodGet, p.URL+"/v2/conversations?status=all", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+globex)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		// Another company's conversation and one that does not exist show
		// the same words.
		texts := map[string]string{}
		for _, path := range []string{"/conversation/" + otherCompanyConversation(t, p, globex), "/conversation/999999/999999"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.URL+path)))
			require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'missing'`))
			texts[path] = browsertest.Evaluate[string](t, ctx, `document.querySelector('main#conversation').innerText`)
			assert.Contains(t, texts[path], "not there, or you cannot see it")
		}
		var all []string
		for _, text := range texts {
			all = append(all, text)
		}
		assert.Equal(t, all[0], all[1])
	})

	t.Run("a malformed query shows the error with its column", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.URL+"/inbox")))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.state === 'ready'`))
		search(t, ctx, "refund AND (")
		assert.Equal(t, 13, browsertest.Evaluate[int](t, ctx, `Number(document.getElementById('query-error').dataset.column)`))
		assert.Equal(t, "refund AND (\n            ^", browsertest.Evaluate[string](t, ctx, `document.querySelector('#query-error .marked').textContent`))
		assert.Contains(t, browsertest.Evaluate[string](t, ctx, `document.querySelector('#query-error .message').textContent`), "at column 13")
	})

	t.Run("typos show the did-you-mean", func(t *testing.T) {
		search(t, ctx, "stauts:active")
		assert.True(t, browsertest.Evaluate[bool](t, ctx, `!document.getElementById('query-error').hidden`))
		assert.Contains(t, browsertest.Evaluate[string](t, ctx, `document.querySelector('#query-error .message').textContent`), `did you mean "status"?`)

		search(t, ctx, "refnd")
		require.NoError(t, browsertest.WaitFor(ctx, `!document.getElementById('suggestions').hidden`))
		assert.Equal(t, []string{"refund"}, browsertest.Evaluate[[]string](t, ctx, `[...document.querySelectorAll('#suggestions [data-suggestion]')].map((b) => b.dataset.suggestion)`))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#suggestions [data-suggestion="refund"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === 'refund' && document.getElementById('list').dataset.state === 'ready'`))
		assert.Equal(t, count(t, p, url.Values{"status": {"all"}, "query": {"refund"}}), shownCount(t, ctx))
	})

	t.Run("a facet refines the query in the box", func(t *testing.T) {
		search(t, ctx, "refund")
		before := shownCount(t, ctx)
		require.Equal(t, count(t, p, url.Values{"status": {"all"}, "query": {"refund"}}), before)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#facets [data-facet="status"] button[data-value="closed"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === 'refund AND status:closed' && document.getElementById('list').dataset.state === 'ready'`))
		after := shownCount(t, ctx)
		assert.Equal(t, count(t, p, url.Values{"status": {"all"}, "query": {"refund AND status:closed"}}), after)
		assert.NotEqual(t, before, after)
		assert.Equal(t, min(after, 25), browsertest.Evaluate[int](t, ctx, `document.querySelectorAll('#results .result').length`), "the first page of them")
		assert.Equal(t, "true", browsertest.Evaluate[string](t, ctx, `document.querySelector('#facets [data-facet="status"] button[data-value="closed"]').getAttribute('aria-pressed')`))
		screenshot(t, ctx, "search", false)
	})

	t.Run("a facet clicked again takes its condition out", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#facets [data-facet="status"] button[data-value="closed"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === 'refund' && document.getElementById('list').dataset.state === 'ready'`))
		assert.Equal(t, count(t, p, url.Values{"status": {"all"}, "query": {"refund"}}), shownCount(t, ctx))
		assert.Equal(t, "false", browsertest.Evaluate[string](t, ctx, `document.querySelector('#facets [data-facet="status"] button[data-value="closed"]').getAttribute('aria-pressed')`))
		// Around an OR, refine's parentheses go too.
		search(t, ctx, "refund OR shipping")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#facets [data-facet="status"] button[data-value="closed"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === '(refund OR shipping) AND status:closed' && document.getElementById('list').dataset.state === 'ready'`))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#facets [data-facet="status"] button[data-value="closed"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === 'refund OR shipping' && document.getElementById('list').dataset.state === 'ready'`))
		// The save-as-view step below saves the refined query.
		search(t, ctx, "refund")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#facets [data-facet="status"] button[data-value="closed"]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.getElementById('query').value === 'refund AND status:closed' && document.getElementById('list').dataset.state === 'ready'`))
	})

	t.Run("a saved view shows in the navigation with its count", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-view"))))
		run(t, ctx, `document.querySelector('#save-view-form input[name=name]').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#save-view-form input[name=name]`), "Closed refunds"+kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, `[...document.querySelectorAll('#navigation [data-view] .name')].some((n) => n.textContent === 'Closed refunds')`))
		type navView struct {
			ID    int64
			Count int
		}
		shown := browsertest.Evaluate[navView](t, ctx, `(() => { const li = [...document.querySelectorAll('#navigation [data-view]')]
			.find((li) => li.querySelector('.name').textContent === 'Closed refunds');
			return { ID: Number(li.dataset.view), Count: Number(li.querySelector('.count').textContent) }; })()`)
		assert.Equal(t, count(t, p, url.Values{"folder": {strconv.FormatInt(shown.ID, 10)}}), shown.Count)
		assert.Equal(t, count(t, p, url.Values{"status": {"all"}, "query": {"refund AND status:closed"}}), shown.Count)
	})

	t.Run("a view saved from a mailbox's folder can be shared with the mailbox", func(t *testing.T) {
		mailbox := browsertest.Evaluate[int64](t, ctx, `Number(document.querySelector('#navigation [data-mailbox]').dataset.mailbox)`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#navigation [data-mailbox="`+strconv.FormatInt(mailbox, 10)+`"] [data-folder] a`))))
		require.NoError(t, browsertest.WaitFor(ctx, `new URLSearchParams(location.search).get('mailbox') === '`+strconv.FormatInt(mailbox, 10)+`' && document.getElementById('list').dataset.state === 'ready'`))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("save-view"))))
		assert.False(t, browsertest.Evaluate[bool](t, ctx, `document.querySelector('#save-view-form input[value=shared]').closest('label').hidden`))
		run(t, ctx, `document.querySelector('#save-view-form input[name=name]').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#save-view-form input[value=shared]`))))
		assert.True(t, browsertest.Evaluate[bool](t, ctx, `document.querySelector('#save-view-form input[name=in-mailbox]').disabled`), "a shared view keeps to its mailbox")
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#save-view-form input[name=name]`), "Team queue"+kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, `[...document.querySelectorAll('#navigation [data-view] .name')].some((n) => n.textContent === 'Team queue')`))
		var views struct {
			Embedded struct {
				Views []savedView `json:"views"`
			} `json:"_embedded"`
		}
		p.Get(t, "/v2/views", nil, &views)
		i := slices.IndexFunc(views.Embedded.Views, func(v savedView) bool { return v.Name == "Team queue" })
		require.GreaterOrEqual(t, i, 0)
		saved := views.Embedded.Views[i]
		assert.Equal(t, "shared", saved.Visibility)
		assert.Equal(t, mailbox, saved.MailboxID)
		assert.Equal(t, []int64{mailbox}, saved.Filters.Mailbox)
		shown := browsertest.Evaluate[int](t, ctx, `Number(document.querySelector('#navigation [data-view="`+strconv.FormatInt(saved.ID, 10)+`"]').dataset.count)`)
		assert.Equal(t, count(t, p, url.Values{"folder": {strconv.FormatInt(saved.ID, 10)}, "mailbox": {strconv.FormatInt(mailbox, 10)}}), shown)
	})

	t.Run("j, k and Enter open a conversation from the list", func(t *testing.T) {
		search(t, ctx, "status:active")
		ids := browsertest.Evaluate[[]int64](t, ctx, `[...document.querySelectorAll('#results .result')].map((r) => Number(r.dataset.conversation))`)
		require.GreaterOrEqual(t, len(ids), 2)
		run(t, ctx, `document.activeElement.blur()`)
		require.NoError(t, chromedp.Do(ctx, press("j"), press("j"), press("k"), press("j")))
		assert.Equal(t, ids[1], browsertest.Evaluate[int64](t, ctx, `Number(document.activeElement.closest('.result').dataset.conversation)`))
		require.NoError(t, chromedp.Do(ctx, press(kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, `location.pathname.startsWith('/conversation/`+strconv.FormatInt(ids[1], 10)+`/') && document.body.dataset.conversation === 'ready' && document.body.dataset.state === 'ready'`))
		require.NoError(t, chromedp.Do(ctx, press("/")))
		assert.Equal(t, "query", browsertest.Evaluate[string](t, ctx, `document.activeElement.id`))
	})

	t.Run("j and k move between a conversation's threads", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(conv.Links.Web.Href)))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready' && document.body.dataset.state === 'ready'`))
		shown := browsertest.Evaluate[[]int64](t, ctx, `[...document.querySelectorAll('#threads [data-thread]')].map((li) => Number(li.dataset.thread))`)
		require.GreaterOrEqual(t, len(shown), 3)
		focused := func() int64 {
			return browsertest.Evaluate[int64](t, ctx, `Number(document.activeElement.closest('[data-thread]')?.dataset.thread ?? 0)`)
		}
		require.NoError(t, chromedp.Do(ctx, press("j")))
		assert.Equal(t, shown[0], focused(), "j starts at the first thread")
		require.NoError(t, chromedp.Do(ctx, press("j"), press("j"), press("k")))
		assert.Equal(t, shown[1], focused())
		require.NoError(t, chromedp.Do(ctx, press("k"), press("k")))
		assert.Equal(t, shown[0], focused(), "k stops at the first")
		run(t, ctx, `document.activeElement.blur()`)
		require.NoError(t, chromedp.Do(ctx, press("k")))
		assert.Equal(t, shown[len(shown)-1], focused(), "k starts at the last")
	})

	t.Run("a reply sent from the page reaches the API", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(conv.Links.Web.Href)))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready'`))
		const text = "Thanks, the refund is on its way."
		require.NoError(t, chromedp.Do(ctx, press("r")))
		assert.Equal(t, "composer-text", browsertest.Evaluate[string](t, ctx, `document.activeElement.id`), "r puts the cursor in the reply")
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("composer-text"), text),
			chromedp.Click(chromedp.CSS(`#composer button[type=submit]`))))
		err := browsertest.WaitFor(ctx, `[...document.querySelectorAll('#threads [data-type="message"] .body')].some((b) => b.textContent === '`+text+`')`)
		require.NoError(t, err, "the page says: %s; threads: %v", browsertest.Evaluate[string](t, ctx, `document.querySelector('#composer .error').textContent + document.getElementById('action-error').textContent`), threadsOf(t, p, conv.ID))
		threads := threadsOf(t, p, conv.ID)
		assert.Equal(t, "message", threads[0].Type, "the newest thread is the reply")
		assert.Equal(t, text, threads[0].Body)
	})

	t.Run("another agent's change shows without a reload", func(t *testing.T) {
		other, cancelOther := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
		defer cancelOther()
		otherCtx, cancel := context.WithTimeout(other, 2*time.Minute)
		defer cancel()
		signIn(t, otherCtx, p, "/conversation/"+strconv.FormatInt(conv.ID, 10)+"/"+strconv.FormatInt(conv.Number, 10))
		require.NoError(t, browsertest.WaitFor(otherCtx, `document.body.dataset.status === 'active'`))
		run(t, otherCtx, `window.sameDocument = true`)

		run(t, ctx, `(() => { const s = document.querySelector('#actions select[name=status]'); s.value = 'pending'; s.dispatchEvent(new Event('change')); })()`)
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.status === 'pending'`))
		var got conversation
		p.Get(t, "/v2/conversations/"+strconv.FormatInt(conv.ID, 10), nil, &got)
		assert.Equal(t, "pending", got.Status)

		require.NoError(t, browsertest.WaitFor(otherCtx, `document.body.dataset.status === 'pending'`))
		assert.True(t, browsertest.Evaluate[bool](t, otherCtx, `window.sameDocument === true`), "the page changed in place")
		assert.Equal(t, "pending", browsertest.Evaluate[string](t, otherCtx, `document.querySelector('#conversation-body .meta [data-status]').dataset.status`))
	})

	t.Run("a note, an assignee, tags and a snooze reach the API", func(t *testing.T) {
		path := "/v2/conversations/" + strconv.FormatInt(conv.ID, 10)
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready'`))
		run(t, ctx, `document.activeElement.blur()`)
		const note = "Checked with the courier: delivered."
		require.NoError(t, chromedp.Do(ctx, press("n")))
		assert.Equal(t, "composer-text", browsertest.Evaluate[string](t, ctx, `document.activeElement.id`), "n puts the cursor in a note")
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("composer-text"), note),
			chromedp.Click(chromedp.CSS(`#composer button[type=submit]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `[...document.querySelectorAll('#threads [data-type="note"] .body')].some((b) => b.textContent === '`+note+`')`))
		threads := threadsOf(t, p, conv.ID)
		assert.Equal(t, "note", threads[0].Type)
		assert.Equal(t, note, threads[0].Body)

		// The agent takes the conversation: assigns it to themself.
		var users struct {
			Embedded struct {
				Users []struct {
					ID    int64  `json:"id"`
					Email string `json:"email"`
				} `json:"users"`
			} `json:"_embedded"`
		}
		p.Get(t, "/v2/users", url.Values{"email": {fixtures.AcmeOwnerEmail}}, &users)
		require.Len(t, users.Embedded.Users, 1)
		assignee := users.Embedded.Users[0].ID
		run(t, ctx, `(() => { const s = document.querySelector('#actions select[name=assignee]');
			s.value = '`+strconv.FormatInt(assignee, 10)+`'; s.dispatchEvent(new Event('change')); })()`)
		require.NoError(t, browsertest.WaitFor(ctx, `document.querySelector('#conversation-body .meta').textContent.includes('assigned to')`),
			"the page says: %s", browsertest.Evaluate[string](t, ctx, `document.getElementById('action-error').textContent`))
		run(t, ctx, `document.querySelector('#actions input[name=tags]').value = 'vip, urgent'`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#actions [data-action=tags]`))))
		run(t, ctx, `document.querySelector('#actions input[name=snooze]').value = '2026-11-25T09:00'`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#actions [data-action=snooze]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.querySelector('#conversation-body .meta').textContent.includes('snoozed until')`),
			"the page says: %s", browsertest.Evaluate[string](t, ctx, `document.getElementById('action-error').textContent`))

		meta := browsertest.Evaluate[string](t, ctx, `document.querySelector('#conversation-body .meta').textContent`)
		assert.NotContains(t, meta, "[object", "the page writes times, not objects")
		assert.Equal(t, "Dana Whitfield", browsertest.Evaluate[string](t, ctx, `document.querySelector('#actions select[name=assignee]').selectedOptions[0].textContent`))
		assert.Contains(t, meta, "assigned to Dana Whitfield")

		var got struct {
			Assignee struct {
				ID int64 `json:"id"`
			} `json:"assignee"`
			Tags []struct {
				Tag string `json:"tag"`
			} `json:"tags"`
			Snooze struct {
				SnoozedUntil string `json:"snoozedUntil"`
			} `json:"snooze"`
		}
		p.Get(t, path, nil, &got)
		assert.Equal(t, assignee, got.Assignee.ID)
		var tags []string
		for _, tag := range got.Tags {
			tags = append(tags, tag.Tag)
		}
		assert.ElementsMatch(t, []string{"vip", "urgent"}, tags)
		until := browsertest.Evaluate[string](t, ctx, `new Date('2026-11-25T09:00').toISOString().replace(/\.\d+Z$/, 'Z')`)
		assert.Equal(t, until, got.Snooze.SnoozedUntil)
		screenshot(t, ctx, "actions", false)
	})

	t.Run("a narrow window shows one column", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(400, 800)))
		defer func() { _ = chromedp.Do(ctx, chromedp.EmulateReset()) }()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.URL+"/inbox?query=refund")))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.state === 'ready'`))
		widths := browsertest.Evaluate[[]float64](t, ctx, `['list', 'navigation', 'facets'].map((id) => document.getElementById(id).getBoundingClientRect().width)`)
		for _, w := range widths {
			assert.InDelta(t, widths[0], w, 1, "each part takes the window's width")
		}
		assert.LessOrEqual(t, browsertest.Evaluate[float64](t, ctx, `document.documentElement.scrollWidth`), 400.0, "nothing scrolls sideways: %v",
			browsertest.Evaluate[[]string](t, ctx, `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 400).map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 10)`))
		screenshot(t, ctx, "narrow", false)
	})

	assert.Empty(t, errs.All(), "the page logged errors")
}

// otherCompanyConversation is the id/number path of a Globex conversation.
func otherCompanyConversation(t *testing.T, p *browsertest.Parley, globexToken string) string {
	t.Helper()
	other := &browsertest.Parley{Server: p.Server, Token: globexToken}
	var list conversationList
	other.Get(t, "/v2/conversations", url.Values{"status": {"all"}}, &list)
	require.NotEmpty(t, list.Embedded.Conversations)
	c := list.Embedded.Conversations[0]
	return strconv.FormatInt(c.ID, 10) + "/" + strconv.FormatInt(c.Number, 10)
}

// fieldDef is what the test reads of a mailbox's custom field.
type fieldDef struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Options []struct {
		ID    int64  `json:"id"`
		Label string `json:"label"`
	} `json:"options"`
}

// fieldValue is a conversation's custom field as the API answers it.
type fieldValue struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Text  string `json:"text"`
	Value string `json:"value"`
}

// supportMailbox is Acme's mailbox with a custom field of every type, and
// its fields.
func supportMailbox(t *testing.T, p *browsertest.Parley) (int64, map[string]fieldDef) {
	t.Helper()
	var boxes struct {
		Embedded struct {
			Mailboxes []struct {
				ID int64 `json:"id"`
			} `json:"mailboxes"`
		} `json:"_embedded"`
	}
	p.Get(t, "/v2/mailboxes", nil, &boxes)
	for _, m := range boxes.Embedded.Mailboxes {
		var fields struct {
			Embedded struct {
				Fields []fieldDef `json:"fields"`
			} `json:"_embedded"`
		}
		p.Get(t, "/v2/mailboxes/"+strconv.FormatInt(m.ID, 10)+"/fields", nil, &fields)
		byType := map[string]fieldDef{}
		for _, f := range fields.Embedded.Fields {
			byType[f.Type] = f
		}
		if len(byType) == 5 {
			return m.ID, byType
		}
	}
	t.Fatal("the demo has no mailbox with a custom field of every type")
	return 0, nil
}

func fieldsOf(t *testing.T, p *browsertest.Parley, id int64) []fieldValue {
	t.Helper()
	var got struct {
		CustomFields []fieldValue `json:"customFields"`
	}
	p.Get(t, "/v2/conversations/"+strconv.FormatInt(id, 10), nil, &got)
	return got.CustomFields
}

func threadIDs(threads []thread) []int64 {
	var ids []int64
	for _, th := range threads {
		ids = append(ids, th.ID)
	}
	return ids
}

// TestInboxFieldsAndMerge edits a conversation's custom fields and merges
// it into another from its page, with the keyboard where an agent would
// use it, and checks what the page did through the API.
func TestInboxFieldsAndMerge(t *testing.T) {
	_, ctx, p, errs := start(t)

	mailbox, fields := supportMailbox(t, p)
	var list conversationList
	p.Get(t, "/v2/conversations", url.Values{"status": {"all"}, "mailbox": {strconv.FormatInt(mailbox, 10)}, "sortField": {"number"}, "sortOrder": {"asc"}}, &list)
	require.GreaterOrEqual(t, len(list.Embedded.Conversations), 2)
	conv, other := list.Embedded.Conversations[0], list.Embedded.Conversations[1]
	page := "/conversation/" + strconv.FormatInt(conv.ID, 10) + "/" + strconv.FormatInt(conv.Number, 10)
	if !t.Run("signs in on the conversation's page", func(t *testing.T) { signIn(t, ctx, p, page) }) {
		return
	}
	require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready' && !document.getElementById('fields').hidden`))

	t.Run("every field of the mailbox has a labelled input of its type", func(t *testing.T) {
		type shownField struct {
			Label, Tag, Type string
		}
		shown := browsertest.Evaluate[[]shownField](t, ctx, `[...document.querySelectorAll('#fields [data-field]')].map((i) =>
			({ Label: [...i.labels].map((l) => l.textContent).join(), Tag: i.tagName, Type: i.type }))`)
		assert.ElementsMatch(t, []shownField{
			{fields["dropdown"].Name, "SELECT", "select-one"}, {fields["singleline"].Name, "INPUT", "text"},
			{fields["multiline"].Name, "TEXTAREA", "textarea"}, {fields["number"].Name, "INPUT", "text"},
			{fields["date"].Name, "INPUT", "date"},
		}, shown)
	})

	dropdown, number := fields["dropdown"], fields["number"]
	option := dropdown.Options[len(dropdown.Options)-1]
	t.Run("a dropdown value set on the page reaches the API", func(t *testing.T) {
		before := fieldsOf(t, p, conv.ID)
		run(t, ctx, `(() => { const s = document.querySelector('#fields [data-field="`+strconv.FormatInt(dropdown.ID, 10)+`"]');
			s.value = '`+strconv.FormatInt(option.ID, 10)+`'; s.dispatchEvent(new Event('change', { bubbles: true })); })()`)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#fields button[type=submit]`))))
		require.NoError(t, browsertest.WaitFor(ctx, `document.querySelector('#fields .saved').textContent !== ''`),
			"the page says: %s", browsertest.Evaluate[string](t, ctx, `document.getElementById('fields').innerText`))
		want := []fieldValue{{ID: dropdown.ID, Name: dropdown.Name, Text: option.Label, Value: strconv.FormatInt(option.ID, 10)}}
		for _, f := range before { // the other fields keep their values
			if f.ID != dropdown.ID {
				want = append(want, f)
			}
		}
		assert.ElementsMatch(t, want, fieldsOf(t, p, conv.ID))
	})

	t.Run("a bad number shows the API's error next to its field", func(t *testing.T) {
		before := fieldsOf(t, p, conv.ID)
		input := `#fields [data-field="` + strconv.FormatInt(number.ID, 10) + `"]`
		run(t, ctx, `document.querySelector('`+input+`').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(input), "12 apples"+kb.Enter)))
		errorOf := `document.getElementById('field-` + strconv.FormatInt(number.ID, 10) + `-error')`
		require.NoError(t, browsertest.WaitFor(ctx, `!`+errorOf+`.hidden`))
		assert.Equal(t, "must be a number", browsertest.Evaluate[string](t, ctx, errorOf+`.textContent`), "the API's message")
		assert.Equal(t, "true", browsertest.Evaluate[string](t, ctx, `document.querySelector('`+input+`').getAttribute('aria-invalid')`))
		assert.Equal(t, "field-"+strconv.FormatInt(number.ID, 10), browsertest.Evaluate[string](t, ctx, `document.activeElement.id`), "the field is focused")
		assert.Equal(t, before, fieldsOf(t, p, conv.ID), "nothing was saved")

		run(t, ctx, `document.querySelector('`+input+`').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(input), "1250.5"+kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, errorOf+`.hidden && document.querySelector('#fields .saved').textContent !== ''`))
		assert.Contains(t, fieldsOf(t, p, conv.ID), fieldValue{ID: number.ID, Name: number.Name, Text: "1250.5", Value: "1250.5"})
	})

	t.Run("a number no conversation has says so", func(t *testing.T) {
		run(t, ctx, `document.getElementById('merge-target').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("merge-target"), "999999"+kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, `!document.getElementById('merge-error').hidden`))
		assert.Equal(t, "No conversation you can see has the number 999999.", browsertest.Evaluate[string](t, ctx, `document.getElementById('merge-error').textContent`))
		assert.True(t, browsertest.Evaluate[bool](t, ctx, `document.querySelector('#merge .confirm').hidden`))
	})

	t.Run("a merge confirmed shows the surviving conversation with the threads of both", func(t *testing.T) {
		moving, staying := threadIDs(threadsOf(t, p, conv.ID)), threadIDs(threadsOf(t, p, other.ID))
		require.NotEmpty(t, moving)
		require.NotEmpty(t, staying)
		run(t, ctx, `document.getElementById('merge-target').value = ''`)
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("merge-target"), strconv.FormatInt(other.Number, 10)+kb.Enter)))
		require.NoError(t, browsertest.WaitFor(ctx, `!document.querySelector('#merge .confirm').hidden`),
			"the page says: %s", browsertest.Evaluate[string](t, ctx, `document.getElementById('merge-error').textContent`))
		summary := browsertest.Evaluate[string](t, ctx, `document.querySelector('#merge .confirm .summary').textContent`)
		assert.Contains(t, summary, "into #"+strconv.FormatInt(other.Number, 10)+" “"+other.Subject+"”")
		assert.Equal(t, "merge", browsertest.Evaluate[string](t, ctx, `document.activeElement.dataset.action`), "the confirmation has the focus")
		status, _ := p.Fetch(t, "/v2/conversations/"+strconv.FormatInt(conv.ID, 10), nil)
		require.Equal(t, http.StatusOK, status, "nothing merged before the confirmation")

		require.NoError(t, chromedp.Do(ctx, press(kb.Enter)))
		err := browsertest.WaitFor(ctx, `location.pathname === '/conversation/`+strconv.FormatInt(other.ID, 10)+`/`+strconv.FormatInt(other.Number, 10)+`' && document.body?.dataset.conversation === 'ready'`)
		require.NoError(t, err)
		shown := browsertest.Evaluate[[]int64](t, ctx, `[...document.querySelectorAll('#threads [data-thread]')].map((li) => Number(li.dataset.thread))`)
		assert.Subset(t, shown, append(append([]int64{}, moving...), staying...), "the threads of both")
		assert.Contains(t, browsertest.Evaluate[string](t, ctx, `document.getElementById('threads').textContent`), "Merged with #"+strconv.FormatInt(conv.Number, 10))

		assert.Subset(t, threadIDs(threadsOf(t, p, other.ID)), moving, "the surviving conversation holds the merged one's threads")
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, err := http.NewRequest(http.MethodGet, p.URL+"/v2/conversations/"+strconv.FormatInt(conv.ID, 10), nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+p.Token)
		res, err := noRedirect.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusMovedPermanently, res.StatusCode, "the merged conversation moved")
		assert.Equal(t, p.URL+"/v2/conversations/"+strconv.FormatInt(other.ID, 10), res.Header.Get("Location"))
	})

	t.Run("the merged conversation's link opens the surviving one", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.URL+page)))
		require.NoError(t, browsertest.WaitFor(ctx, `document.body.dataset.conversation === 'ready'`))
		assert.Equal(t, "/conversation/"+strconv.FormatInt(other.ID, 10)+"/"+strconv.FormatInt(other.Number, 10),
			browsertest.Evaluate[string](t, ctx, `location.pathname`))
	})

	assert.Empty(t, errs.All(), "the page logged errors")
}
