package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/fixtures"
)

func TestAppListAndRevoke(t *testing.T) {
	dir := t.TempDir()
	in, err := open(context.Background(), location{dir: dir}, true, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	require.NoError(t, in.close())
	var out, errs bytes.Buffer
	exec := func(args ...string) int {
		out.Reset()
		errs.Reset()
		return run(context.Background(), append([]string{"app"}, append(args, "--data", dir)...), &out, &errs)
	}
	require.Equal(t, 0, exec("create", "--user", fixtures.AcmeOwnerEmail, "--name", "CRM", "--redirect-uri", "https://crm.example/cb"), errs.String())
	var created map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &created))
	assert.Equal(t, "https://crm.example/cb", created["redirect_uri"])
	assert.Equal(t, 1, exec("create", "--user", fixtures.AcmeOwnerEmail, "--redirect-uri", "crm.example/cb"))
	assert.Contains(t, errs.String(), "--redirect-uri must be an absolute http or https URL")

	require.Equal(t, 0, exec("list"), errs.String())
	var apps []appListing
	require.NoError(t, json.Unmarshal(out.Bytes(), &apps))
	require.Len(t, apps, 3)
	byID := map[string]appListing{}
	for _, a := range apps {
		byID[a.ClientID] = a
	}
	assert.Equal(t, fixtures.DemoRedirectURI, byID[fixtures.AcmeClientID].RedirectURI)
	assert.Equal(t, fixtures.AcmeOwnerEmail, byID[created["client_id"]].User)
	assert.NotContains(t, out.String(), "secret", "secrets are never listed")

	require.Equal(t, 0, exec("revoke", "--client-id", created["client_id"]), errs.String())
	assert.Equal(t, "{\n  \"client_id\": \""+created["client_id"]+"\",\n  \"revoked\": true\n}\n", out.String(), "a boolean, not a string")
	require.Equal(t, 0, exec("list"))
	require.NoError(t, json.Unmarshal(out.Bytes(), &apps))
	for _, a := range apps {
		assert.Equal(t, a.ClientID == created["client_id"], a.RevokedAt != nil, a.ClientID)
	}
	assert.Equal(t, 1, exec("revoke", "--client-id", "nope"))
	assert.Contains(t, errs.String(), "no application with client id nope")
	assert.Equal(t, 1, exec("frob"))
}
