package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/storage"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingAddr = regexp.MustCompile(`"parley serving","addr":"([^"]+)"`)

// TestServeLifecycle starts the real server on an empty directory, uses it
// with the demo credentials, refuses a second server on the same
// directory, and shuts down cleanly on cancellation.
func TestServeLifecycle(t *testing.T) {
	dir := t.TempDir()
	// The demo's chats follow the clock (those of the last two hours are
	// still open, those later today have not started), so how many chat
	// transcripts Acme has depends on the time of day.
	before := acmeDemoConversations(t, time.Now())
	srv := serveInProcess(t, servingAddr, "serve", "--demo", "--addr", "127.0.0.1:0", "--data", dir)
	after := acmeDemoConversations(t, time.Now())
	base, logs := "http://"+srv.addr, srv.logs

	token := demoToken(t, base)
	res, err := call(context.Background(), http.MethodGet, base+"/v2/conversations?status=all", token, "")
	require.NoError(t, err)
	assert.Contains(t, []int{before, after}, listTotal(t, res), "the demo data of Acme is served: its 400 conversations and a transcript per ended chat")
	assert.GreaterOrEqual(t, before, 400+60, "most of the 80 demo chats have ended")

	second := &syncBuffer{}
	assert.Equal(t, 1, run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, second, second))
	assert.Contains(t, second.String(), "the data directory is in use by another Parley process")

	srv.stop()
	assert.Contains(t, logs.String(), "shutting down")
	assert.NotContains(t, logs.String(), token, "tokens never reach the logs")
}

// startWait bounds how long a test waits for a server to serve: loading
// the demo data and building its index takes seconds, and minutes under
// the race detector on a loaded machine.
const startWait = 3 * time.Minute

// inProcess is `parley` run in the test's process until stop.
type inProcess struct {
	addr string // the address its "parley serving" log line names
	logs *syncBuffer
	stop func() // cancels the run and checks it exits with 0
}

// serveInProcess runs `parley args...` and waits for the log line that
// addrLine matches; its first group is the address served.
func serveInProcess(t *testing.T, addrLine *regexp.Regexp, args ...string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &inProcess{logs: &syncBuffer{}}
	exited := make(chan int, 1)
	go func() { exited <- run(ctx, args, p.logs, p.logs) }()
	stopped := false
	p.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case code := <-exited:
			assert.Equal(t, 0, code, p.logs.String())
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not shut down")
		}
	}
	t.Cleanup(p.stop)
	require.Eventually(t, func() bool {
		m := addrLine.FindStringSubmatch(p.logs.String())
		if m != nil {
			p.addr = m[1]
		}
		return m != nil
	}, startWait, 20*time.Millisecond, "the server did not start serving")
	return p
}

func TestAppCreateAndReindex(t *testing.T) {
	dir := t.TempDir()
	in, err := open(context.Background(), location{dir: dir}, true, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	require.NoError(t, in.close())

	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"app", "create", "--data", dir, "--user", fixtures.AcmeOwnerEmail, "--name", "Sync"}, &out, &errs), errs.String())
	var app map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &app))
	assert.Len(t, app["client_id"], 32)
	assert.Len(t, app["client_secret"], 48)
	assert.Equal(t, "Sync", app["name"])

	out.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"app", "create", "--data", dir, "--user", "nobody@example.com"}, &out, &errs))
	assert.Contains(t, errs.String(), "no user with e-mail nobody@example.com")

	errs.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"reindex", "--data", dir}, &out, &errs), errs.String())
	assert.Contains(t, errs.String(), "index rebuilt")

	errs.Reset()
	assert.Equal(t, 2, run(context.Background(), nil, &out, &errs))
	assert.True(t, strings.HasPrefix(errs.String(), "Parley: a self-hosted shared inbox"), errs.String())
	assert.Contains(t, errs.String(), "\nusage:\n")
}

// acmeDemoConversations counts the conversations the demo data gives Acme
// when loaded at now.
func acmeDemoConversations(t *testing.T, now time.Time) int {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "demo.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, fixtures.Load(db.Store(), now))
	n := 0
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		owner, err := tx.UserByEmail(fixtures.AcmeOwnerEmail)
		if err != nil {
			return err
		}
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID == owner.CompanyID && c.State != parley.StateDeleted {
				n++
			}
			return nil
		})
	}))
	return n
}
