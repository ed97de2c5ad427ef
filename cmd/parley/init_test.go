package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitThenServe: `parley init` makes a working company in one command:
// its printed client id and secret get a token that lists its mailbox.
func TestInitThenServe(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"init", "--data", dir, "--company", "Initech",
		"--owner", "bill@initech.test", "--plan", "plus", "--mailbox-name", "Help"}, &out, &errs), errs.String())
	var created struct {
		CompanyID     int64  `json:"company_id"`
		ClientID      string `json:"client_id"`
		ClientSecret  string `json:"client_secret"`
		OwnerPassword string `json:"owner_password"`
		MailboxID     int64  `json:"mailbox_id"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &created))
	assert.Len(t, created.ClientID, 32)
	assert.Len(t, created.ClientSecret, 48)
	assert.Len(t, created.OwnerPassword, 20, "no terminal: a password is generated and printed once")
	assert.Contains(t, errs.String(), "shown this once")

	srv := serveInProcess(t, servingAddr, "serve", "--addr", "127.0.0.1:0", "--data", dir)
	base := "http://" + srv.addr
	res, err := http.PostForm(base+"/v2/oauth2/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {created.ClientID}, "client_secret": {created.ClientSecret}})
	require.NoError(t, err)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&tok))
	res.Body.Close()
	require.NotEmpty(t, tok.AccessToken)
	res, err = call(context.Background(), http.MethodGet, base+"/v2/mailboxes", tok.AccessToken, "")
	require.NoError(t, err)
	var list struct {
		Embedded struct {
			Mailboxes []struct {
				ID    int64  `json:"id"`
				Name  string `json:"name"`
				Email string `json:"email"`
			} `json:"mailboxes"`
		} `json:"_embedded"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
	res.Body.Close()
	require.Len(t, list.Embedded.Mailboxes, 1)
	assert.Equal(t, "Help", list.Embedded.Mailboxes[0].Name)
	assert.Equal(t, "bill@initech.test", list.Embedded.Mailboxes[0].Email)
	res, err = call(context.Background(), http.MethodGet, base+"/v2/users/me", tok.AccessToken, "")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	srv.stop()
	assert.NotContains(t, srv.logs.String(), "holds no company")

	// The owner's e-mail is taken now.
	out.Reset()
	errs.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"init", "--data", dir, "--company", "Other", "--owner", "bill@initech.test"}, &out, &errs))
	assert.Contains(t, errs.String(), "--owner: a user with this e-mail already exists")
}

// TestInitRefusesCollisions: a second company may not take an existing
// company's name, nor an address another company's mailbox receives mail
// at; the errors name the flags.
func TestInitRefusesCollisions(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"init", "--data", dir, "--company", "Initech",
		"--owner", "bill@initech.test", "--mailbox-email", "help@initech.test"}, &out, &errs), errs.String())
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"the same name, in other case", []string{"--company", "INITECH", "--owner", "peter@chotchkies.test"},
			"--company: a company is already called Initech"},
		{"another company's mailbox address", []string{"--company", "Chotchkies", "--owner", "peter@chotchkies.test", "--mailbox-email", "Help@initech.test"},
			"--mailbox-email: another company's mailbox receives mail at this address"},
		{"an owner whose address is another company's mailbox", []string{"--company", "Chotchkies", "--owner", "help@initech.test"},
			"--mailbox-email: another company's mailbox receives mail at this address (the owner's"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			errs.Reset()
			assert.Equal(t, 1, run(context.Background(), append([]string{"init", "--data", dir}, tc.args...), &out, &errs))
			assert.Contains(t, errs.String(), tc.want)
			assert.Empty(t, out.String(), "no credentials printed")
			assert.FileExists(t, dbPath(dir), "the database of the first company stays")
		})
	}
}

// TestInitRefusesBadInput: validation errors name the flags.
func TestInitRefusesBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no company", []string{"--owner", "a@b.test"}, "--company and --owner are required"},
		{"bad e-mail", []string{"--company", "X", "--owner", "not-an-email"}, "--owner: must be a well-formed e-mail address"},
		{"bad plan", []string{"--company", "X", "--owner", "a@b.test", "--plan", "gold"}, "--plan: must be one of: standard, plus, pro"},
		{"long name", []string{"--company", strings.Repeat("x", 101), "--owner", "a@b.test"}, "--company: must be at most 100 characters"},
		{"control character", []string{"--company", "X\x00Y", "--owner", "a@b.test"}, "--company: may not contain control characters"},
		{"bad mailbox address", []string{"--company", "X", "--owner", "a@b.test", "--mailbox-email", "nope"}, "--mailbox-email: must be a well-formed"},
		{"long e-mail", []string{"--company", "X", "--owner", strings.Repeat("a", 250) + "@b.test"}, "--owner: must be a well-formed e-mail address of at most 255 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			empty, absent := t.TempDir(), filepath.Join(t.TempDir(), "data")
			for _, dir := range []string{empty, absent} {
				assert.Equal(t, 1, run(context.Background(), append([]string{"init", "--data", dir}, tc.args...), &out, &errs))
				assert.Contains(t, errs.String(), tc.want)
				assert.Empty(t, out.String(), "no credentials printed")
			}
			assert.NoFileExists(t, dbPath(empty), "a failed init leaves no database behind")
			assert.NoDirExists(t, absent, "nor the data directory it made")
		})
	}
}
