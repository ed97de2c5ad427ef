package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/storage"
)

// TestStrictConfiguration: a malformed PARLEY_* value stops the start with
// an error naming the variable and what it accepts; a flag overrides the
// environment.
func TestStrictConfiguration(t *testing.T) {
	cases := []struct {
		env, value string
		want       string
	}{
		{"PARLEY_INSECURE_HTTP", "yes", `PARLEY_INSECURE_HTTP="yes" is not valid: PARLEY_INSECURE_HTTP accepts true or false (also 1 or 0)`},
		{"PARLEY_REQUEST_TIMEOUT", "30", `PARLEY_REQUEST_TIMEOUT="30" is not valid: PARLEY_REQUEST_TIMEOUT accepts a duration with its unit, such as 30s, 2m or 1h30m`},
		{"PARLEY_RATE_LIMIT_PRO", "lots", `PARLEY_RATE_LIMIT_PRO="lots" is not valid: PARLEY_RATE_LIMIT_PRO accepts a whole number`},
		{"PARLEY_TOKEN_RATE_LIMIT", "1e3", `PARLEY_TOKEN_RATE_LIMIT="1e3" is not valid: PARLEY_TOKEN_RATE_LIMIT accepts a whole number`},
		{"PARLEY_DEMO", "on", `PARLEY_DEMO="on" is not valid: PARLEY_DEMO accepts true or false (also 1 or 0)`},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			dir := filepath.Join(t.TempDir(), "data")
			out := &syncBuffer{}
			assert.Equal(t, 1, run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, out, out))
			assert.Equal(t, "parley serve: bad configuration: "+tc.want+"\n", out.String())
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "nothing was created")
		})
	}
	t.Run("a command-line flag wins over the environment", func(t *testing.T) {
		t.Setenv("PARLEY_RATE_LIMIT_PRO", "lots")
		fs := newTestFlags()
		require.NoError(t, parseFlags(fs, []string{"--rate-limit-pro", "5"}, everyFlag(fs)))
		assert.Equal(t, "5", fs.Lookup("rate-limit-pro").Value.String())
	})
	t.Run("an alias reads its own variable", func(t *testing.T) {
		t.Setenv("PARLEY_ADMIN_TOKEN", "op-secret")
		t.Setenv("PARLEY_TOKEN", "not-this")
		fs := newTestFlags()
		require.NoError(t, parseFlags(fs, nil, map[string]string{"token": "admin-token"}))
		assert.Equal(t, "op-secret", fs.Lookup("token").Value.String())
		assert.Equal(t, "0", fs.Lookup("rate-limit-pro").Value.String(), "a flag outside the map ignores the environment")
	})
}

// TestMailBoundsChecked: the e-mail bounds cannot be turned off: a value
// that would stops the start, before anything is created.
func TestMailBoundsChecked(t *testing.T) {
	cases := []struct {
		flag, value, want string
	}{
		{"--smtp-max-message-bytes", "0", "--smtp-max-message-bytes must be positive"},
		{"--smtp-max-connections", "0", "--smtp-max-connections and --smtp-max-connections-per-address must be positive"},
		{"--smtp-max-connections-per-address", "-1", "--smtp-max-connections and --smtp-max-connections-per-address must be positive"},
		{"--smtp-idle-timeout", "0s", "--smtp-idle-timeout and --smtp-session-timeout must be at least 1s"},
		{"--smtp-session-timeout", "500ms", "--smtp-idle-timeout and --smtp-session-timeout must be at least 1s"},
		{"--auto-reply-interval", "0s", "--auto-reply-interval must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.flag, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			out := &syncBuffer{}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a serve that started stops
			defer cancel()
			assert.Equal(t, 1, run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir, tc.flag, tc.value}, out, out))
			assert.True(t, strings.HasPrefix(out.String(), "parley serve: bad usage: "+tc.want+"\n"), out.String())
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "nothing was created")
		})
	}
}

// TestServeEmptyWithoutDemo: a plain serve on an empty directory creates
// no company and no credentials, and says how to make one. Its metrics are
// served without a token on --metrics-addr alone.
func TestServeEmptyWithoutDemo(t *testing.T) {
	dir := t.TempDir()
	srv := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", dir, "--metrics-addr", "127.0.0.1:0")
	m := regexp.MustCompile(`"metrics serving","addr":"([^"]+)"`).FindStringSubmatch(srv.logs.String())
	require.NotNil(t, m, srv.logs.String())
	metrics, err := http.Get("http://" + m[1] + "/metrics")
	require.NoError(t, err)
	exposition, _ := io.ReadAll(metrics.Body)
	metrics.Body.Close()
	assert.Equal(t, http.StatusOK, metrics.StatusCode)
	assert.Contains(t, string(exposition), "parley_index_outbox_depth")
	metrics, err = http.Get("http://" + srv.addr + "/metrics")
	require.NoError(t, err)
	metrics.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, metrics.StatusCode, "not on the API address without the admin token")
	res, err := http.Post("http://"+srv.addr+"/v2/oauth2/token", "application/x-www-form-urlencoded",
		stringsReader("grant_type=client_credentials&client_id=acme-demo-client&client_secret=acme-demo-secret"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "no demo client exists")
	srv.stop()
	assert.Regexp(t, regexp.MustCompile("the database holds no company.*parley init --data "+regexp.QuoteMeta(dir)+" --company NAME --owner EMAIL"), srv.logs.String())

	db, err := storage.Open(dbPath(dir), storage.Options{})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		companies, err := tx.Companies()
		assert.Empty(t, companies)
		apps, _ := tx.Apps()
		assert.Empty(t, apps)
		return err
	}))
}
