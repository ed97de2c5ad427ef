package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/internal/pgtest"
)

// twoNodes migrates a new database and serves it from two nodes, A with
// the demo data and B started once A has loaded it; each has its own
// process state (caches, workers) as separate processes do.
// It returns their base URLs and the demo's token.
func twoNodes(t *testing.T, extra ...string) (a, b, token string) {
	t.Helper()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &out, &out), out.String())
	args := func(demo bool) []string {
		list := []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--database", database, "--allow-private-webhooks"}
		if demo {
			list = append(list, "--demo")
		}
		return append(list, extra...)
	}
	nodeA := serveInProcess(t, servingAddr, args(true)...)
	a = "http://" + nodeA.addr
	token = demoToken(t, a)
	nodeB := serveInProcess(t, servingAddr, args(false)...)
	return a, "http://" + nodeB.addr, token
}

// TestTwoNodesReadEachOthersWrites: a conversation created on one node is
// found at once on the other, by a search and by a plain list (both the
// search tables), both ways, round after round; a change made on one is
// seen by the other's lists too.
func TestTwoNodesReadEachOthersWrites(t *testing.T) {
	a, b, token := twoNodes(t)
	ctx := context.Background()
	for round := range 10 {
		writer, reader := a, b
		if round%2 == 1 {
			writer, reader = b, a
		}
		subject := fmt.Sprintf("Wombat%d shipment", round)
		id, ok := createConversation(ctx, writer, token, subject)
		require.True(t, ok, "create on the writer")
		search := reader + "/v2/conversations?status=all&query=" + url.QueryEscape(fmt.Sprintf(`(subject:"wombat%d")`, round))
		assert.Equal(t, []int64{id}, listIDs(t, search, token), "round %d: found by a search on the other node", round)
		list := reader + "/v2/conversations?status=active&mailbox=1&sortField=createdAt&sortOrder=desc"
		ids := listIDs(t, list, token)
		require.NotEmpty(t, ids)
		assert.Equal(t, id, ids[0], "round %d: first of a plain list on the other node", round)

		res, err := call(ctx, "PATCH", fmt.Sprintf("%s/v2/conversations/%d", writer, id), token, `{"op":"replace","path":"/status","value":"closed"}`)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 204, res.StatusCode)
		assert.NotContains(t, listIDs(t, list, token), id, "round %d: closed on one node, gone from the other's active list", round)
	}
}

// TestTwoNodesDeliverAWebhookOnce: both nodes run the webhook dispatcher
// and both are woken by every commit; each delivery reaches the receiver
// once all the same, for conversations created on either node.
func TestTwoNodesDeliverAWebhookOnce(t *testing.T) {
	var mu sync.Mutex
	received := map[string]int{} // by delivery id, every event (the demo's too)
	numbats := map[string]bool{} // the deliveries of this test's conversations
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		id := r.Header.Get("X-Parley-Delivery")
		received[id]++
		if strings.Contains(string(body), "Numbat") {
			numbats[id] = true
		}
	}))
	defer receiver.Close()
	a, b, token := twoNodes(t)
	ctx := context.Background()
	res, err := call(ctx, http.MethodPost, a+"/v2/webhooks", token, fmt.Sprintf(`{"url":%q,"secret":"s3cret","events":["convo.created"]}`, receiver.URL))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)

	const conversations = 16
	var wg sync.WaitGroup
	for i := range conversations {
		wg.Add(1)
		go func() {
			defer wg.Done()
			node := []string{a, b}[i%2]
			_, ok := createConversation(ctx, node, token, fmt.Sprintf("Numbat %d", i))
			assert.True(t, ok)
		}()
	}
	wg.Wait()
	distinct := func() int { mu.Lock(); defer mu.Unlock(); return len(numbats) }
	require.Eventually(t, func() bool { return distinct() == conversations }, 30*time.Second, 50*time.Millisecond, "got %d", distinct())
	time.Sleep(2 * time.Second) // a second delivery would come now
	mu.Lock()
	defer mu.Unlock()
	for id, n := range received {
		assert.Equal(t, 1, n, "delivery %s reached the receiver once", id)
	}
	assert.Len(t, numbats, conversations)
}

// TestTwoNodesShareRateLimits: calls to either node spend from the
// company's one budget.
func TestTwoNodesShareRateLimits(t *testing.T) {
	const limit = 30
	a, b, token := twoNodes(t, "--rate-limit-pro", fmt.Sprint(limit)) // the demo's Acme is on the pro plan
	if s := time.Now().Second(); s >= 45 {
		time.Sleep(time.Duration(61-s) * time.Second) // the calls below fit in one minute's window
	}
	allowed := map[int]int{}
	for i := range 2 * limit {
		res, err := call(context.Background(), http.MethodGet, []string{a, b}[i%2]+"/v2/mailboxes", token, "")
		require.NoError(t, err)
		res.Body.Close()
		allowed[res.StatusCode]++
	}
	assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: limit}, allowed)
}

// TestTwoNodesWakeAChatLongPoll: a visitor long-polls node B; an agent's
// reply on node A wakes the poll at once, not at the end of its wait.
func TestTwoNodesWakeAChatLongPoll(t *testing.T) {
	a, b, token := twoNodes(t)
	ctx := context.Background()
	res, err := call(ctx, http.MethodPost, a+"/v2/widgets/"+fixtures.AcmeWidgetID+"/chats", "", `{"name":"Vera","email":"vera@example.com","message":"Hi, my order is late."}`)
	require.NoError(t, err)
	var chat struct{ ID, VisitorToken string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&chat))
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)

	type event struct{ ID, Body string }
	// poll returns the events after after, or an error (never failing
	// the test itself: it also runs beside it).
	poll := func(after string) ([]event, time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b+"/v2/widgets/"+fixtures.AcmeWidgetID+"/chats/"+chat.ID+"/events?after="+after, nil)
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("X-Visitor-Token", chat.VisitorToken)
		start := time.Now()
		res, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
		if err != nil {
			return nil, time.Since(start), err
		}
		defer res.Body.Close()
		var out struct{ Events []event }
		err = json.NewDecoder(res.Body).Decode(&out)
		return out.Events, time.Since(start), err
	}
	seen, _, err := poll("")
	require.NoError(t, err)
	require.NotEmpty(t, seen, "the visitor's own message")
	type answer struct {
		events []event
		took   time.Duration
		err    error
	}
	polled := make(chan answer, 1)
	go func() {
		events, took, err := poll(seen[len(seen)-1].ID)
		polled <- answer{events, took, err}
	}()
	time.Sleep(time.Second) // the poll waits on B by now
	res, err = call(ctx, http.MethodPut, a+"/v2/chats/"+chat.ID+"/messages/"+"0b6a1f0e-8d5c-4c1e-9f0a-2b3c4d5e6f70", token, `{"body":"It ships today."}`)
	require.NoError(t, err)
	res.Body.Close()
	require.Less(t, res.StatusCode, 300)
	got := <-polled
	require.NoError(t, got.err, "woken by the reply, not left to the end of its wait")
	require.Len(t, got.events, 1)
	assert.Equal(t, "It ships today.", got.events[0].Body)
	assert.Less(t, got.took, 10*time.Second, "woken by the reply, not by the end of the wait")
}

// node is a `parley serve` process of the built binary on a PostgreSQL
// database, which a test may stop, kill and start again with the same
// flags (on a new port: url says where it serves now).
type node struct {
	t    *testing.T
	bin  string
	args []string
	mu   sync.Mutex
	base string
	proc *exec.Cmd
}

// startNode serves database from a new process of bin, with the demo data
// when demo is set (which the first node loads), and a rate limit far
// above what the tests' writers spend: durability is what they test.
func startNode(t *testing.T, bin, database string, demo bool) *node {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--database", database, "--rate-limit-pro=1000000"}
	if demo {
		args = append(args, "--demo")
	}
	n := &node{t: t, bin: bin, args: args}
	n.start()
	t.Cleanup(func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.proc.Process.Kill()
		n.proc.Wait()
	})
	return n
}

func (n *node) start() {
	n.t.Helper()
	base, proc := startProcess(n.t, n.bin, n.args...)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.base, n.proc = base, proc
}

// url is the node's base URL.
func (n *node) url() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.base
}

// signal sends sig to the node's process.
func (n *node) signal(sig os.Signal) {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	require.NoError(n.t, n.proc.Process.Signal(sig))
}

// kill ends the process with SIGKILL, as a crash would.
func (n *node) kill() {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	require.NoError(n.t, n.proc.Process.Kill())
	_ = n.proc.Wait()
}

// buildParley builds the parley binary, for tests that run it as
// processes of their own.
func buildParley(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "parley")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// migratedDatabase is a new database with the current schema.
func migratedDatabase(t *testing.T) string {
	t.Helper()
	database := pgtest.Database(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", database}, &out, &out), out.String())
	return database
}

// TestKillANodeUnderLoad runs two `parley serve` processes on one
// database with 16 writers spread over both, and five times kills one of
// them with SIGKILL (A and B in turn) and starts it again on the same
// database. At the end every write either node acknowledged is there and
// found by a search, and the other node kept taking writes while each was
// down (each write indexes itself, so no node's death leaves writes
// unindexed).
func TestKillANodeUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills real servers")
	}
	bin := buildParley(t)
	database := migratedDatabase(t)
	a := startNode(t, bin, database, true)
	token := demoToken(t, a.url())
	b := startNode(t, bin, database, false)
	nodes := []*node{a, b}

	var mu sync.Mutex
	var writes []*acked
	down := -1           // the node that is down, -1 for none
	whileDown := []int{} // writes acknowledged while a node was down, per cycle
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for writer := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				subject := fmt.Sprintf("Kill%dx%d", writer, n)
				id, ok := createConversation(ctx, nodes[writer%2].url(), token, subject)
				if !ok {
					continue // the node is gone, or the request was cut: not acknowledged
				}
				mu.Lock()
				writes = append(writes, &acked{conversation: id, subject: subject, threads: 1})
				if down >= 0 {
					whileDown[len(whileDown)-1]++
				}
				mu.Unlock()
			}
		}()
	}
	const cycles = 5
	for cycle := range cycles {
		victim := nodes[cycle%2]
		time.Sleep(2 * time.Second)
		mu.Lock()
		down = cycle % 2
		whileDown = append(whileDown, 0)
		mu.Unlock()
		victim.kill()
		time.Sleep(2 * time.Second)
		victim.start()
		mu.Lock()
		down = -1
		mu.Unlock()
		res, err := call(ctx, http.MethodGet, victim.url()+"/v2/mailboxes", token, "")
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "cycle %d: the restarted node answers", cycle)
	}
	time.Sleep(2 * time.Second)
	stop()
	wg.Wait()

	t.Logf("%d writes acknowledged over %d kill cycles; acknowledged while a node was down, per cycle: %v", len(writes), cycles, whileDown)
	for cycle, n := range whileDown {
		assert.NotZero(t, n, "cycle %d: the other node kept taking writes", cycle)
	}
	verify(t, b.url(), token, writes)
	everyWriteFound(t, a.url(), token, writes)
}
