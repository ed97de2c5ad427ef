package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/puller"
)

// TestPullFromParley pulls Acme from a server holding the demo data (and a
// note with an attachment) into a new company of a data directory, and of
// a PostgreSQL database, holding another company. Pulls run as the built
// binary are killed (SIGKILL) at random moments, each going further than
// the last; a run to the end then leaves the target answering the same
// lists and searches (ids, numbers, dates, subjects, statuses, customers),
// threads, attachments and ratings, with nothing missing or twice. After
// a new thread, a tag, a changed and a new customer on the source, an
// incremental run copies just those and says so.
func TestPullFromParley(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the parley binary and kills its pulls")
	}
	bin := filepath.Join(t.TempDir(), "parley")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
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
	for i, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testPull(t, bin, tc.target(t), rand.New(rand.NewPCG(uint64(i), 54)))
		})
	}
}

// movableClock is a source's clock the test moves on.
type movableClock struct{ at atomic.Pointer[time.Time] }

func (c *movableClock) Now() time.Time { return *c.at.Load() }

func (c *movableClock) set(at time.Time) { c.at.Store(&at) }

// killSwitch kills a pull's process when the source has answered the
// conversation list page it waits for, a random moment of the work that
// page brings.
type killSwitch struct {
	mu    sync.Mutex
	page  int // the page (1, 2, ...) of the conversations list to kill after, 0 for none
	delay time.Duration
	proc  *os.Process
}

func (k *killSwitch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.page == 0 || k.proc == nil || r.URL.Path != "/v2/conversations" || r.URL.Query().Get("page") != strconv.Itoa(k.page) {
			return
		}
		proc := k.proc
		k.page, k.proc = 0, nil
		time.AfterFunc(k.delay, func() { proc.Kill() }) // SIGKILL
	})
}

// arm sets the next kill: after the answer of the page, and delay more.
func (k *killSwitch) arm(page int, delay time.Duration, proc *os.Process) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.page, k.delay, k.proc = page, delay, proc
}

func testPull(t *testing.T, bin string, at location, r *rand.Rand) {
	clock := &movableClock{}
	clock.set(fixedClock{}.Now())
	kill := &killSwitch{}
	// The source's clock stands still, so its per-minute budget never
	// refills: give it room for every run, however far the killed ones got.
	limits := map[parley.Plan]int{parley.PlanStandard: 100_000, parley.PlanPlus: 100_000, parley.PlanPro: 100_000}
	a := serveWith(t, location{dir: t.TempDir()}, true, "", clock, kill.wrap, limits)
	// The demo's organizations are names only: one with its details too;
	// and the demo has no attachment: a note gets one.
	a.send(t, http.MethodPost, "/v2/organizations",
		`{"name":"Wayfarer Maps","website":"https://wayfarer.example","domains":["wayfarer.example"],"description":"Atlases","phones":["+1 555 0100"]}`)
	a.send(t, http.MethodPost, "/v2/organizations/properties", `{"slug":"tier","name":"Tier","type":"text"}`)
	a.send(t, http.MethodPut, fmt.Sprintf("/v2/tags/%d", pagedIDs(t, a, "/v2/tags", "tags")[0]), `{"color":"#123456"}`)
	boxes := pagedIDs(t, a, "/v2/mailboxes", "mailboxes")
	a.send(t, http.MethodPost, "/v2/webhooks", fmt.Sprintf(
		`{"url":"https://example.com/hooks/parley","events":["convo.created","convo.tags"],"secret":"s3cret","mailboxIds":[%d]}`, boxes[0]))
	first := conversationIDs(t, a)
	a.send(t, http.MethodPost, fmt.Sprintf("/v2/conversations/%d/notes", first[len(first)/2]),
		`{"text":"The map we talked about","attachments":[{"fileName":"route.txt","mimeType":"text/plain","data":"bm9ydGggYnkgbm9ydGh3ZXN0"}]}`)
	want := sourceState(t, a)
	for _, kind := range []string{"users", "organizations", "mailboxes", "fields", "saved replies", "teams", "webhooks", "workflows", "tags", "organization properties"} {
		require.NotEmpty(t, want.account[kind], kind)
	}
	require.Contains(t, fmt.Sprint(want.threads), "route.txt text/plain north by northwest")
	require.Contains(t, fmt.Sprint(want.threads), "rated great")

	// The target already holds another company, so Acme's mailboxes and
	// users get other ids there than in the source.
	where := []string{"--data", at.dir}
	if at.postgres() {
		where = []string{"--database", at.url}
	}
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), append([]string{"init", "--company", "Initech", "--owner", "bill@initech.test"}, where...),
		&out, &errs), errs.String())
	target, err := open(context.Background(), at, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	src := &puller.Client{Base: a.srv.URL, ClientID: fixtures.AcmeClientID, ClientSecret: fixtures.AcmeClientSecret}
	account, err := puller.NewCompany(context.Background(), src, target.db.Store(), "Acme", api.HashSecret, fixedClock{}.Now())
	require.NoError(t, err)
	require.NoError(t, target.close())
	args := append([]string{"pull", "--from", a.srv.URL, "--client-id", fixtures.AcmeClientID, "--client-secret", fixtures.AcmeClientSecret,
		"--company", fmt.Sprint(account.Company.ID)}, where...)

	// Each killed run stops at a random moment after a random page of
	// conversations; a later one starts from the map the killed ones left.
	pages := len(a.pages(t, "/v2/conversations?status=all"))
	require.Greater(t, pages, 2)
	for _, page := range []int{1 + r.IntN(pages/2), pages/2 + r.IntN(pages-pages/2)} {
		cmd := exec.Command(bin, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		kill.arm(page, time.Duration(r.IntN(100))*time.Millisecond, cmd.Process)
		err := cmd.Wait()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, out.String())
		require.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), out.String())
	}

	// The demo's workflow that assigns to its team is refused, each run:
	// the team's members are invited users, none active yet.
	teamWorkflow := workflowAssigningTeam(t, a)
	refused := fmt.Sprintf("refused: 1\n  workflows %d: Bad request; actions[0].userId: is a team with no active member who may see the mailbox\n",
		teamWorkflow.id)
	pull := func() string {
		var out, errs bytes.Buffer
		code := run(context.Background(), args, &out, &errs)
		t.Logf("parley %s\n%s", strings.Join(args, " "), out.String())
		require.Equal(t, 1, code, out.String()+errs.String())
		require.Contains(t, out.String(), refused)
		require.Contains(t, errs.String(), "the target refused 1 of the source's records (listed above); the others are copied")
		return out.String()
	}
	got := pull()
	total := len(want.lists[searches[0]])
	copied, there := summaryLine(t, got, "conversations")
	assert.Equal(t, [3]int{total, 0}, [3]int{copied[0] + there, copied[1]}, got)
	assert.Positive(t, there, "the killed runs wrote some conversations: %s", got)
	assert.Contains(t, got, fmt.Sprintf("customers: 0 copied, 0 updated, %d already there\n", len(want.lists["/v2/customers"])))
	assertCopied(t, without(want, teamWorkflow.name), at, account)

	// Nothing changed since: the next run is incremental and finds nothing.
	got = pull()
	assert.Contains(t, got, "customers and conversations changed since the last pull")
	assert.Contains(t, got, "conversations: 0 copied, 0 updated, 0 already there\n")
	assert.Contains(t, got, "customers: 0 copied, 0 updated, 0 already there\n")

	// Changes on the source, after the last pull began.
	later := time.Now()
	if later.Before(fixedClock{}.Now()) {
		later = fixedClock{}.Now()
	}
	clock.set(later.Add(time.Hour).UTC().Truncate(time.Second))
	a.token = demoToken(t, a.srv.URL) // the one signed in before has expired
	a.send(t, http.MethodPost, fmt.Sprintf("/v2/conversations/%d/notes", first[0]), `{"text":"A late note"}`)
	a.send(t, http.MethodPut, fmt.Sprintf("/v2/conversations/%d/tags", first[1]), `{"tags":["vip"]}`)
	customers := customerIDs(t, a)
	a.send(t, http.MethodPatch, fmt.Sprintf("/v2/customers/%d", customers[0]), `[{"op":"replace","path":"/jobTitle","value":"Cartographer"}]`)
	a.send(t, http.MethodPut, fmt.Sprintf("/v2/customers/%d/address", customers[0]), `{"city":"Lisbon","country":"PT","lines":["Rua Augusta 1"]}`)
	a.send(t, http.MethodPost, "/v2/customers", `{"firstName":"Nora","lastName":"Late","emails":[{"type":"work","value":"nora@late.example"}]}`)
	want = sourceState(t, a)
	got = pull()
	assert.Contains(t, got, "conversations: 0 copied, 2 updated, 0 already there\n")
	assert.Contains(t, got, "threads: 1 copied, 0 updated, 0 already there\n")
	assert.Contains(t, got, "customers: 1 copied, 1 updated, 0 already there\n")
	assertCopied(t, without(want, teamWorkflow.name), at, account)
}

// workflowAssigningTeam finds the source's workflow whose action assigns
// to a team.
func workflowAssigningTeam(t *testing.T, r *running) (w struct {
	id   int64
	name string
}) {
	t.Helper()
	teams := pagedIDs(t, r, "/v2/teams", "teams")
	for _, id := range pagedIDs(t, r, "/v2/workflows", "workflows") {
		var one struct {
			Name    string
			Actions []parley.WorkflowAction
		}
		require.NoError(t, json.Unmarshal(r.get(t, fmt.Sprintf("/v2/workflows/%d", id)), &one))
		for _, a := range one.Actions {
			if a.UserID != nil && slices.Contains(teams, *a.UserID) {
				w.id, w.name = id, one.Name
			}
		}
	}
	require.NotZero(t, w.id)
	return w
}

// without leaves a workflow out of a source's state, as the target
// refused it.
func without(s pulled, workflow string) pulled {
	out := pulled{lists: s.lists, threads: s.threads, customers: s.customers, account: map[string][]string{}}
	for kind, names := range s.account {
		out.account[kind] = names
	}
	out.account["workflows"] = slices.DeleteFunc(slices.Clone(s.account["workflows"]), func(w string) bool {
		return strings.HasPrefix(w, workflow)
	})
	i := slices.Index(s.account["switches"], "workflow active")
	out.account["switches"] = slices.Delete(slices.Clone(s.account["switches"]), i, i+1)
	return out
}

// assertCopied compares the target with the source's state: the same but
// for the webhooks, disabled, and the workflows, inactive, as a pull
// copies them.
func assertCopied(t *testing.T, want pulled, at location, account *parley.NewAccount) {
	t.Helper()
	got := targetState(t, at, account)
	assert.Len(t, got.account["switches"], len(want.account["switches"]))
	for _, s := range got.account["switches"] {
		assert.Contains(t, []string{"webhook disabled", "workflow inactive"}, s)
	}
	got.account["switches"] = want.account["switches"]
	assert.Equal(t, want, got)
}

// pulled is what the test compares of a source and its copy.
type pulled struct {
	lists     map[string][]string
	threads   map[int64][]string
	account   map[string][]string
	customers []string // job titles, and the first customers' addresses and property values
}

func sourceState(t *testing.T, r *running) pulled {
	t.Helper()
	s := pulled{lists: map[string][]string{}, threads: threadCounts(t, r), account: accountNames(t, r)}
	for _, q := range append([]string{"/v2/customers"}, searches...) {
		for _, body := range r.pages(t, q) {
			s.lists[q] = append(s.lists[q], conversationKeys(t, body)...)
		}
	}
	for _, body := range r.pages(t, "/v2/customers") {
		var page struct {
			Embedded struct {
				Customers []struct {
					ID       int64
					JobTitle string
				} `json:"customers"`
			} `json:"_embedded"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		for _, c := range page.Embedded.Customers {
			if len(s.customers) >= 3 { // the source's rate limit counts each read
				s.customers = append(s.customers, c.JobTitle)
				continue
			}
			var one struct {
				Embedded struct {
					Address    any `json:"address"`
					Properties any `json:"properties"`
				} `json:"_embedded"`
			}
			require.NoError(t, json.Unmarshal(r.get(t, fmt.Sprintf("/v2/customers/%d", c.ID)), &one))
			s.customers = append(s.customers, fmt.Sprint(c.JobTitle, one.Embedded.Address, one.Embedded.Properties))
		}
	}
	return s
}

// targetState serves the target as the pulled company's application.
func targetState(t *testing.T, at location, account *parley.NewAccount) pulled {
	t.Helper()
	b := serveAt(t, at, false, "")
	defer b.stop()
	b.token = appToken(t, b.srv.URL, account.App.ClientID, account.ClientSecret)
	return sourceState(t, b)
}

// summaryLine reads a kind's line of a pull's summary: copied and
// updated, and already there.
func summaryLine(t *testing.T, out, kind string) ([2]int, int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + kind + `: (\d+) copied, (\d+) updated, (\d+) already there$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	n := func(s string) int { v, err := strconv.Atoi(s); require.NoError(t, err); return v }
	return [2]int{n(m[1]), n(m[2])}, n(m[3])
}

// send makes one API call as the Acme owner; it must succeed.
func (r *running) send(t *testing.T, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, r.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	require.Less(t, res.StatusCode, 300, "%s %s: %s", method, path, answer)
}

// conversationIDs lists the source's conversations, oldest first.
func conversationIDs(t *testing.T, r *running) []int64 {
	t.Helper()
	return pagedIDs(t, r, "/v2/conversations?status=all&sortField=createdAt&sortOrder=asc", "conversations")
}

// customerIDs lists the source's customers.
func customerIDs(t *testing.T, r *running) []int64 {
	t.Helper()
	return pagedIDs(t, r, "/v2/customers", "customers")
}

func pagedIDs(t *testing.T, r *running, path, key string) []int64 {
	t.Helper()
	var ids []int64
	for _, body := range r.pages(t, path) {
		var page struct {
			Embedded map[string][]struct{ ID int64 } `json:"_embedded"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		for _, c := range page.Embedded[key] {
			ids = append(ids, c.ID)
		}
	}
	return ids
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
							Rating                *struct{ Rating, Comments, CreatedAt string }
							Embedded              struct {
								Attachments []struct {
									ID                 int64
									Filename, MimeType string
								} `json:"attachments"`
							} `json:"_embedded"`
						} `json:"threads"`
					} `json:"_embedded"`
				} `json:"conversations"`
			} `json:"_embedded"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		for _, c := range page.Embedded.Conversations {
			threads := []string{}
			for _, th := range c.Embedded.Threads {
				if th.Type == "lineitem" {
					continue
				}
				line := th.Type + " " + th.CreatedAt + " " + th.Body
				for _, f := range th.Embedded.Attachments {
					var file struct{ Data string }
					require.NoError(t, json.Unmarshal(r.get(t, fmt.Sprintf("/v2/conversations/%d/attachments/%d/data", c.ID, f.ID)), &file))
					data, err := base64.StdEncoding.DecodeString(file.Data)
					require.NoError(t, err)
					line += fmt.Sprintf(" attached %s %s %s", f.Filename, f.MimeType, data)
				}
				if th.Rating != nil {
					line += fmt.Sprintf(" rated %s %q %s", th.Rating.Rating, th.Rating.Comments, th.Rating.CreatedAt)
				}
				threads = append(threads, line)
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
	var tags struct {
		Embedded struct {
			Tags []struct{ Name, Color string } `json:"tags"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.Unmarshal(r.get(t, "/v2/tags"), &tags))
	for _, tag := range tags.Embedded.Tags {
		out["tags"] = append(out["tags"], tag.Name+" "+tag.Color)
	}
	var props struct {
		Embedded struct {
			Properties []struct{ Slug, Name, Type string } `json:"organization-properties"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.Unmarshal(r.get(t, "/v2/organizations/properties"), &props))
	for _, p := range props.Embedded.Properties {
		out["organization properties"] = append(out["organization properties"], p.Slug+" "+p.Name+" "+p.Type)
	}
	mailboxes := map[int64]string{}
	for _, m := range list("/v2/mailboxes", "mailboxes") {
		mailboxes[m.ID] = m.Name
	}
	users := map[int64]string{}
	for _, u := range list("/v2/users", "users") {
		users[u.ID] = u.Email
	}
	for _, team := range list("/v2/teams", "teams") {
		var members []string
		for _, u := range list(fmt.Sprintf("/v2/teams/%d/members", team.ID), "users") {
			members = append(members, u.Email)
		}
		sort.Strings(members)
		out["teams"] = append(out["teams"], fmt.Sprint(team.Name, members))
	}
	var hooks struct {
		Embedded struct {
			Webhooks []struct {
				URL, Label, State string
				Events            []string
				MailboxIDs        []int64
			} `json:"webhooks"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.Unmarshal(r.get(t, "/v2/webhooks"), &hooks))
	for _, w := range hooks.Embedded.Webhooks {
		var boxes []string
		for _, id := range w.MailboxIDs {
			boxes = append(boxes, mailboxes[id])
		}
		out["webhooks"] = append(out["webhooks"], fmt.Sprint(w.URL, w.Label, w.Events, boxes))
		out["switches"] = append(out["switches"], "webhook "+w.State)
	}
	for _, item := range list("/v2/workflows", "workflows") {
		var w struct {
			Name, Type, Status string
			MailboxID          int64
			Order              int
			Conditions         []string
			Actions            []parley.WorkflowAction
		}
		require.NoError(t, json.Unmarshal(r.get(t, fmt.Sprintf("/v2/workflows/%d", item.ID)), &w))
		var actions []string
		for _, a := range w.Actions {
			line := a.Type
			if a.UserID != nil {
				line += " user " + users[*a.UserID]
			}
			actions = append(actions, line)
		}
		out["workflows"] = append(out["workflows"], fmt.Sprint(w.Name, w.Type, mailboxes[w.MailboxID], w.Order, w.Conditions, actions))
		out["switches"] = append(out["switches"], "workflow "+w.Status)
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}
