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
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index"
	"github.com/parley/parley/storage"
)

// running is an opened data directory served in-process.
type running struct {
	in       *instance
	srv      *httptest.Server
	token    string
	stopSync func()
}

// serveDir opens dir (with the demo data when demo) and serves the real
// handler on a loopback test server until the test ends.
func serveDir(t *testing.T, dir string, demo bool, adminToken string) *running {
	t.Helper()
	return serveAt(t, location{dir: dir}, demo, adminToken)
}

// serveAt is serveDir for a data directory or a PostgreSQL database.
func serveAt(t *testing.T, at location, demo bool, adminToken string) *running {
	t.Helper()
	return serveWith(t, at, demo, adminToken, fixedClock{}, nil, nil)
}

// serveWith is serveAt on a clock of the test's, its handler wrapped by
// wrap when that is set, with limits as the companies' calls per minute
// by plan when set.
func serveWith(t *testing.T, at location, demo bool, adminToken string, clock parley.Clock, wrap func(http.Handler) http.Handler, limits map[parley.Plan]int) *running {
	t.Helper()
	in, err := open(context.Background(), at, demo, clock, quietLog(), nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { in.runSyncer(ctx); close(done) }() // as serve runs it: none on PostgreSQL
	var engine index.Engine = in.search
	if !at.postgres() {
		engine = in.bleve
	}
	var handler http.Handler = api.New(api.Config{DB: in.db, Engine: engine, Syncer: in.syncer, Clock: clock,
		Log: quietLog(), AdminToken: adminToken, BaseURL: "https://parley.test", RateLimits: limits})
	if wrap != nil {
		handler = wrap(handler)
	}
	srv := httptest.NewServer(handler)
	r := &running{in: in, srv: srv, stopSync: func() { cancel(); <-done }}
	t.Cleanup(r.stop)
	r.token = demoToken(t, srv.URL)
	return r
}

func (r *running) stop() {
	if r.srv == nil {
		return
	}
	r.srv.Close()
	r.stopSync()
	r.in.close()
	r.srv = nil
}

// get reads one API answer as the Acme owner.
func (r *running) get(t *testing.T, path string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, body)
	return body
}

// pages reads every page of a list.
func (r *running) pages(t *testing.T, path string) [][]byte {
	t.Helper()
	var out [][]byte
	for n := 1; ; n++ {
		sep := "?"
		if bytes.ContainsRune([]byte(path), '?') {
			sep = "&"
		}
		body := r.get(t, fmt.Sprintf("%s%spage=%d", path, sep, n))
		out = append(out, body)
		var p struct {
			Page struct{ Number, TotalPages int } `json:"page"`
		}
		require.NoError(t, json.Unmarshal(body, &p))
		if p.Page.Number >= p.Page.TotalPages {
			return out
		}
	}
}

// searches are the lists and searches a backup or an import must answer
// the same way.
var searches = []string{
	"/v2/conversations?status=all&sortField=createdAt&sortOrder=asc",
	"/v2/conversations?status=closed",
	"/v2/conversations?status=all&query=" + url.QueryEscape(`(subject:refund OR body:order) AND NOT tag:spam`),
	"/v2/conversations?status=all&query=" + url.QueryEscape(`body:"thank you"`),
	"/v2/conversations?status=all&tag=vip",
	"/v2/customers?sortField=createdAt",
	"/v2/customers?query=" + url.QueryEscape(`firstName:a*`),
}

// records dumps every conversation, thread and customer of a closed data
// directory, keyed by id.
func records(t *testing.T, dir string) map[string]string {
	t.Helper()
	db, err := storage.Open(dbPath(dir), storage.Options{})
	require.NoError(t, err)
	defer db.Close()
	out := map[string]string{}
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		if err := tx.EachConversation(func(c *parley.Conversation) error {
			b, _ := json.Marshal(c)
			out[fmt.Sprintf("conversation %d", c.ID)] = string(b)
			threads, err := tx.Threads(c.CompanyID, c.ID)
			b, _ = json.Marshal(threads)
			out[fmt.Sprintf("threads %d", c.ID)] = string(b)
			return err
		}); err != nil {
			return err
		}
		return tx.EachCustomer(func(c *parley.Customer) error {
			b, _ := json.Marshal(c)
			out[fmt.Sprintf("customer %d", c.ID)] = string(b)
			return nil
		})
	}))
	return out
}

// TestBackupRestore takes a hot backup through GET /admin/backup of a
// serving instance, restores it into an empty directory, and finds every
// record and every search result again.
func TestBackupRestore(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), t.TempDir()
	file := filepath.Join(t.TempDir(), "parley.backup")
	a := serveDir(t, src, true, "operator-secret")
	want := map[string]string{}
	for _, q := range searches {
		want[q] = string(a.get(t, q))
	}

	var out, errs bytes.Buffer
	// An owner's token is refused: the demo database holds two companies.
	assert.Equal(t, 1, run(context.Background(), []string{"backup", "--url", a.srv.URL, "--token", a.token, "--out", file}, &out, &errs))
	assert.Contains(t, errs.String(), "403")
	_, err := os.Stat(file)
	assert.True(t, os.IsNotExist(err), "a refused backup leaves no file")
	errs.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"backup", "--url", a.srv.URL, "--token", "operator-secret", "--out", file}, &out, &errs), errs.String())
	// While the server holds the directory, a direct backup is refused.
	assert.Equal(t, 1, run(context.Background(), []string{"backup", "--data", src, "--out", file + "2"}, &out, &errs))
	assert.Contains(t, errs.String(), "--url")
	a.stop()

	errs.Reset()
	require.NoError(t, os.WriteFile(filepath.Join(dst, "stray"), []byte("x"), 0o600))
	assert.Equal(t, 1, run(context.Background(), []string{"restore", "--data", dst, "--from", file}, &out, &errs))
	assert.Contains(t, errs.String(), "not empty")
	require.Equal(t, 0, run(context.Background(), []string{"restore", "--data", dst, "--from", file, "--force"}, &out, &errs), errs.String())
	assert.Contains(t, errs.String(), "index rebuilt")

	wantRecords := records(t, src)
	assert.Greater(t, len(wantRecords), 800)
	assert.Equal(t, wantRecords, records(t, dst), "every record is restored")

	b := serveDir(t, dst, false, "")
	for _, q := range searches {
		assert.JSONEq(t, want[q], string(b.get(t, q)), q)
	}

	// A direct backup of the directory no server holds, restored again.
	b.stop()
	errs.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"backup", "--data", dst, "--out", file + ".direct"}, &out, &errs), errs.String())
	again := t.TempDir()
	require.Equal(t, 0, run(context.Background(), []string{"restore", "--data", again, "--from", file + ".direct"}, &out, &errs), errs.String())
	assert.Equal(t, wantRecords, records(t, again))
}
