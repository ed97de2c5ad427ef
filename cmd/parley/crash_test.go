package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/query"
	"github.com/parley/parley/storage"
)

var (
	crashCycles = flag.Int("crash-cycles", 10, "kill-and-restart cycles of TestCrashLoop (50 or more for a long run)")
	crashSeed   = flag.Uint64("crash-seed", 0, "seed of TestCrashLoop's choices (kill moments, writers); 0 picks one from the clock and prints it")
)

// acked is a write the server acknowledged with a 2xx.
type acked struct {
	conversation int64
	subject      string
	threads      int // threads acknowledged on it, the first included
}

// TestCrashLoop builds the parley binary, runs it on a temporary data
// directory under concurrent writers, kills it with SIGKILL at a random
// moment, restarts it, and checks after every restart that every
// acknowledged write is there, searchable, with its acknowledged content.
// At the end storage and index are compared record by record: the Bleve
// index and the scan oracle rebuilt from storage find the same ids.
func TestCrashLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "parley")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	data := filepath.Join(dir, "data")
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	// Printed first, so a failing run can be replayed with -crash-seed.
	t.Logf("crash loop seed %d (replay: go test ./cmd/parley -run TestCrashLoop -crash-seed %d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	hooks := newReceiver()
	defer hooks.server.Close()
	var mu sync.Mutex
	var writes []*acked
	total := 0
	// Each writer owns a customer (its last acknowledged first name must
	// survive) and keeps chatting (every acknowledged message must).
	names := map[int]string{}       // last acknowledged first name, per writer
	patches := 0                    // customer patches acknowledged
	attempted := map[int][]string{} // attempts since the last acknowledged one: any may have committed unanswered
	customers := map[int]int64{}
	chats := map[int]*visitorChat{} // started once: 4 writers chat (the widget allows 5 chats a minute per address)
	var messages []chatMessage
	for cycle := 0; cycle < *crashCycles; cycle++ {
		base, proc := startServer(t, bin, data)
		token := demoToken(t, base)
		if cycle == 0 {
			subscribe(t, base, token, hooks.server.URL)
		}
		verify(t, base, token, writes)
		verifyCustomersAndChats(t, base, token, customers, names, attempted, messages)

		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for writer := 0; writer < 6; writer++ {
			if _, ok := customers[writer]; !ok {
				customers[writer] = createCustomer(t, base, token, writer)
			}
			if _, ok := chats[writer]; !ok && writer < 4 {
				chats[writer] = startChat(t, base, writer)
			}
			chat := chats[writer]
			if chat != nil {
				chat.base = base // the server moved to another port
			}
			customerID := customers[writer] // read here: the loop keeps adding to the map
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ctx.Err() == nil; n++ {
					name := fmt.Sprintf("Crash%dx%d", cycle, n)
					mu.Lock()
					attempted[writer] = append(attempted[writer], name)
					mu.Unlock()
					if patchCustomer(ctx, base, token, customerID, name) {
						mu.Lock()
						names[writer], attempted[writer] = name, nil
						patches++
						mu.Unlock()
					}
					if chat == nil {
						// only four writers chat
					} else if m, ok := chat.send(ctx, fmt.Sprintf("message c%d w%d n%d", cycle, writer, n)); ok {
						mu.Lock()
						messages = append(messages, m)
						mu.Unlock()
					}
					subject := fmt.Sprintf("crash c%d w%d n%d", cycle, writer, n)
					id, ok := createConversation(ctx, base, token, subject)
					if !ok {
						continue
					}
					a := &acked{conversation: id, subject: subject, threads: 1}
					mu.Lock()
					writes = append(writes, a)
					total++
					mu.Unlock()
					if addNote(ctx, base, token, id) {
						mu.Lock()
						a.threads++
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(200+r.IntN(1300)) * time.Millisecond)
		require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
		_ = proc.Wait()
		stop()
		wg.Wait()
	}
	base, proc := startServer(t, bin, data)
	finalToken := demoToken(t, base)
	verify(t, base, finalToken, writes)
	verifyCustomersAndChats(t, base, finalToken, customers, names, attempted, messages)
	// Every acknowledged conversation's convo.created event arrives, at
	// least once, deduplicable by delivery id.
	require.Eventually(t, func() bool { return hooks.missing(writes) == 0 }, 60*time.Second, 100*time.Millisecond,
		"convo.created deliveries missing for %d acknowledged conversations", hooks.missing(writes))
	// One more write, so this last server has a delivery to count.
	last, ok := createConversation(context.Background(), base, finalToken, "crash final")
	require.True(t, ok)
	writes = append(writes, &acked{conversation: last, subject: "crash final", threads: 1})
	require.Eventually(t, func() bool { return hooks.missing(writes) == 0 }, 60*time.Second, 100*time.Millisecond)
	// The receiver has the last delivery before the dispatcher records its
	// outcome, so the counter is read until it shows (or the wait ends).
	delivered := regexp.MustCompile(`parley_webhook_deliveries_total\{outcome="delivered"\} [1-9]`)
	var exposition []byte
	counted := func() bool {
		metricsReq, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		metricsReq.Header.Set("Authorization", "Bearer "+crashAdminToken)
		metrics, err := http.DefaultClient.Do(metricsReq)
		if err != nil {
			return false
		}
		defer metrics.Body.Close()
		exposition, _ = io.ReadAll(metrics.Body)
		return delivered.Match(exposition)
	}
	assert.Eventually(t, counted, 30*time.Second, 100*time.Millisecond, "deliveries of the last run are counted: %s", exposition)
	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	require.NoError(t, proc.Wait(), "a clean shutdown after the crashes")
	patchStatuses.Range(func(k, v any) bool {
		t.Logf("customer patches refused with %s: %d", k, v.(*atomic.Int64).Load())
		return true
	})
	t.Logf("%d cycles: %d conversations (with their notes), %d customer patches and %d chat messages acknowledged, none lost; %d webhook deliveries received (%d distinct ids)",
		*crashCycles, total, patches, len(messages), hooks.received(), hooks.distinct())
	compareIndexWithStorage(t, data)
}

// receiver is a local webhook endpoint recording deliveries.
type receiver struct {
	server *httptest.Server
	mu     sync.Mutex
	ids    map[string]bool // X-Parley-Delivery ids seen
	convs  map[int64]bool  // conversations a convo.created arrived for
	count  int
}

func newReceiver() *receiver {
	r := &receiver{ids: map[string]bool{}, convs: map[int64]bool{}}
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body struct {
			ID int64 `json:"id"`
		}
		json.NewDecoder(req.Body).Decode(&body)
		r.mu.Lock()
		r.count++
		r.ids[req.Header.Get("X-Parley-Delivery")] = true
		if req.Header.Get("X-HelpScout-Event") == "convo.created" {
			r.convs[body.ID] = true
		}
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	return r
}

func (r *receiver) missing(writes []*acked) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range writes {
		if !r.convs[a.conversation] {
			n++
		}
	}
	return n
}

func (r *receiver) received() int { r.mu.Lock(); defer r.mu.Unlock(); return r.count }
func (r *receiver) distinct() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.ids) }

// subscribe registers the receiver for convo.created.
func subscribe(t *testing.T, base, token, url string) {
	body := fmt.Sprintf(`{"url":%q,"events":["convo.created"],"secret":"crash-secret"}`, url+"/hook")
	res, err := call(context.Background(), http.MethodPost, base+"/v2/webhooks", token, body)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusCreated, res.StatusCode, string(b))
}

// chatMessage is a visitor message the server acknowledged.
type chatMessage struct {
	chat, body string
}

// visitorChat is a chat a writer keeps writing to, as its visitor.
type visitorChat struct {
	base, id, token string
}

func startChat(t *testing.T, base string, writer int) *visitorChat {
	body := fmt.Sprintf(`{"name":"Crash %d","email":"crash.chat%d@example.com"}`, writer, writer)
	res, err := http.Post(base+"/v2/widgets/"+fixtures.AcmeWidgetID+"/chats", "application/json", bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	defer res.Body.Close()
	var out struct{ ID, VisitorToken string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	require.Equal(t, http.StatusCreated, res.StatusCode)
	return &visitorChat{base: base, id: out.ID, token: out.VisitorToken}
}

func (v *visitorChat) send(ctx context.Context, text string) (chatMessage, bool) {
	url := v.base + "/v2/widgets/" + fixtures.AcmeWidgetID + "/chats/" + v.id + "/messages"
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(fmt.Sprintf(`{"body":%q}`, text))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Visitor-Token", v.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return chatMessage{}, false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return chatMessage{chat: v.id, body: text}, res.StatusCode == http.StatusCreated
}

func createCustomer(t *testing.T, base, token string, writer int) int64 {
	body := fmt.Sprintf(`{"firstName":"Crash","emails":[{"type":"work","value":"crash.customer%d@example.com"}]}`, writer)
	res, err := call(context.Background(), http.MethodPost, base+"/v2/customers", token, body)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)
	var id int64
	_, err = fmt.Sscan(res.Header.Get("Resource-ID"), &id)
	require.NoError(t, err)
	return id
}

// patchStatuses counts the answers to customer patches, by status.
var patchStatuses sync.Map

func patchCustomer(ctx context.Context, base, token string, id int64, name string) bool {
	res, err := call(ctx, http.MethodPatch, fmt.Sprintf("%s/v2/customers/%d", base, id), token,
		fmt.Sprintf(`[{"op":"replace","path":"/firstName","value":%q}]`, name))
	if err != nil {
		return false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		key := fmt.Sprint(res.StatusCode)
		n, _ := patchStatuses.LoadOrStore(key, new(atomic.Int64))
		n.(*atomic.Int64).Add(1) // writers patch concurrently
	}
	return res.StatusCode == http.StatusNoContent
}

// verifyCustomersAndChats checks every writer's customer holds its last
// acknowledged name, or one attempted after it (the write in flight when
// the server was killed may have committed without an answer: not
// acknowledged is not refused), and every acknowledged chat message.
func verifyCustomersAndChats(t *testing.T, base, token string, customers map[int]int64, names map[int]string, attempted map[int][]string, messages []chatMessage) {
	for writer, name := range names {
		res, err := call(context.Background(), http.MethodGet, fmt.Sprintf("%s/v2/customers/%d", base, customers[writer]), token, "")
		require.NoError(t, err)
		var c struct{ FirstName string }
		require.NoError(t, json.NewDecoder(res.Body).Decode(&c))
		res.Body.Close()
		assert.Contains(t, append([]string{name}, attempted[writer]...), c.FirstName, "writer %d's last acknowledged customer name", writer)
	}
	bodies := map[string]map[string]bool{}
	for _, m := range messages {
		if bodies[m.chat] == nil {
			res, err := call(context.Background(), http.MethodGet, base+"/v2/chats/"+m.chat, token, "")
			require.NoError(t, err)
			var chat struct {
				Embedded struct {
					Events []struct{ Body string } `json:"events"`
				} `json:"_embedded"`
			}
			require.NoError(t, json.NewDecoder(res.Body).Decode(&chat))
			res.Body.Close()
			bodies[m.chat] = map[string]bool{}
			for _, e := range chat.Embedded.Events {
				bodies[m.chat][e.Body] = true
			}
		}
		assert.True(t, bodies[m.chat][m.body], "acknowledged chat message %q lost", m.body)
	}
}

// crashAdminToken is the operator token of the crash loop's servers (for /metrics).
const crashAdminToken = "crash-operator-token"

var servingAt = regexp.MustCompile(`"parley serving","addr":"([^"]+)"`)

// startServer runs the binary and waits until it serves.
func startServer(t *testing.T, bin, data string) (string, *exec.Cmd) {
	return startProcess(t, bin, "serve", "--demo", "--addr", "127.0.0.1:0", "--data", data, "--admin-token", crashAdminToken, "--allow-private-webhooks")
}

// startProcess runs the built binary with args and returns the base URL
// it serves at once it says so.
func startProcess(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := servingAt.FindStringSubmatch(s.Text()); m != nil {
				found <- "http://" + m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base, cmd
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not start")
	}
	return "", nil
}

// demoToken signs in as the demo application of Acme.
func demoToken(t *testing.T, base string) string {
	t.Helper()
	res, err := http.PostForm(base+"/v2/oauth2/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {fixtures.AcmeClientID}, "client_secret": {fixtures.AcmeClientSecret}})
	require.NoError(t, err)
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&tok))
	return tok.AccessToken
}

// listTotal reads page.totalElements of a list answer and closes its body.
func listTotal(t *testing.T, res *http.Response) int {
	t.Helper()
	defer res.Body.Close()
	var list struct {
		Page struct {
			TotalElements int `json:"totalElements"`
		} `json:"page"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
	return list.Page.TotalElements
}

func call(ctx context.Context, method, target, token, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return http.DefaultClient.Do(req)
}

func createConversation(ctx context.Context, base, token, subject string) (int64, bool) {
	return createConversationFrom(ctx, base, token, subject, "crash@example.com")
}

// createConversationFrom creates a conversation from the customer of this
// e-mail address, and says its id and whether it was acknowledged.
func createConversationFrom(ctx context.Context, base, token, subject, customer string) (int64, bool) {
	body := fmt.Sprintf(`{"subject":%q,"type":"email","mailboxId":1,"status":"active","customer":{"email":%q},"threads":[{"type":"customer","text":"crash test"}]}`, subject, customer)
	res, err := call(ctx, http.MethodPost, base+"/v2/conversations", token, body)
	if err != nil {
		return 0, false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	var id int64
	_, err = fmt.Sscan(res.Header.Get("Resource-ID"), &id)
	return id, res.StatusCode == http.StatusCreated && err == nil
}

func addNote(ctx context.Context, base, token string, id int64) bool {
	res, err := call(ctx, http.MethodPost, fmt.Sprintf("%s/v2/conversations/%d/notes", base, id), token, `{"text":"acknowledged note"}`)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode == http.StatusCreated
}

// verify checks every acknowledged write: readable with its content, its
// acknowledged threads there, and found through the index.
func verify(t *testing.T, base, token string, writes []*acked) {
	for _, a := range writes {
		res, err := call(context.Background(), http.MethodGet, fmt.Sprintf("%s/v2/conversations/%d?embed=threads", base, a.conversation), token, "")
		require.NoError(t, err)
		var c struct {
			Subject  string `json:"subject"`
			Embedded struct {
				Threads []json.RawMessage `json:"threads"`
			} `json:"_embedded"`
		}
		require.Equal(t, http.StatusOK, res.StatusCode, "acknowledged conversation %d lost", a.conversation)
		require.NoError(t, json.NewDecoder(res.Body).Decode(&c))
		res.Body.Close()
		assert.Equal(t, a.subject, c.Subject)
		assert.GreaterOrEqual(t, len(c.Embedded.Threads), a.threads, "acknowledged threads of %d", a.conversation)
	}
	if len(writes) == 0 {
		return
	}
	// Searchable: a sample through the index, by id and by subject.
	for _, a := range writes[max(0, len(writes)-20):] {
		q := url.QueryEscape(fmt.Sprintf(`id:%d AND subject:"%s"`, a.conversation, a.subject))
		res, err := call(context.Background(), http.MethodGet, base+"/v2/conversations?status=all&query="+q, token, "")
		require.NoError(t, err)
		assert.Equal(t, 1, listTotal(t, res), "conversation %d is searchable", a.conversation)
	}
}

// compareIndexWithStorage opens the stopped server's data: the Bleve index
// it left and the scan oracle rebuilt from storage must agree.
func compareIndexWithStorage(t *testing.T, data string) {
	in, err := open(context.Background(), location{dir: data}, false, fixedClock{}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	require.NoError(t, err)
	defer in.close()
	oracle := scan.New()
	require.NoError(t, indexer.NewSyncer(in.bolt, oracle, quietLog()).Rebuild(context.Background(), nil))
	for _, text := range []string{`subject:crash`, `subject:crash AND NOT body:acknowledged`, `type:email`} {
		syntax, err := query.Parse(text)
		require.NoError(t, err)
		checked, err := query.Check(syntax, index.ConversationSchema, time.Now())
		require.NoError(t, err)
		req := index.Request{Kind: index.Conversations, Company: 1, Query: checked, Sort: []index.Sort{{Field: "id"}}, Limit: 100000}
		want, err := oracle.Search(context.Background(), req)
		require.NoError(t, err)
		got, err := in.bleve.Search(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, want, got, text)
	}
	var stored int
	require.NoError(t, in.bolt.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if bytes.HasPrefix([]byte(c.Subject), []byte("crash ")) {
				stored++
			}
			return nil
		})
	}))
	res, err := in.bleve.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1,
		Query: query.Match{Field: "subject", Text: "crash", Exact: true}}) // not the demo's "crashes"
	require.NoError(t, err)
	assert.Equal(t, stored, res.Total, "every stored crash conversation is indexed")
}
