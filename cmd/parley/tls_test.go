package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/fixtures"
)

var servingTLS = regexp.MustCompile(`"parley serving","addr":"([^"]+)".*"scheme":"https"`)

// TestServeSelfSignedTLS serves HTTPS with a generated certificate and
// makes a real request over it.
func TestServeSelfSignedTLS(t *testing.T) {
	srv := serveInProcess(t, servingTLS, "serve", "--demo", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tls-self-signed")
	addr, logs := srv.addr, srv.logs

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	res, err := client.Get("https://" + addr + "/healthz")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "max-age=31536000", res.Header.Get("Strict-Transport-Security"))
	cert := res.TLS.PeerCertificates[0]
	assert.True(t, cert.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)))
	assert.NoError(t, cert.VerifyHostname("127.0.0.1"))
	assert.NoError(t, cert.VerifyHostname("localhost"))

	// The demo V1 key of Acme's owner exchanges for a working token.
	res, err = client.Post("https://"+addr+"/transition", "application/json",
		strings.NewReader(`{"apiKey":"`+fixtures.AcmeOwnerV1Key+`","clientId":"`+fixtures.AcmeClientID+`"}`))
	require.NoError(t, err)
	var v1 struct {
		AccessToken string `json:"accessToken"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v1))
	res.Body.Close()
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/v2/users/me", nil)
	req.Header.Set("Authorization", "Bearer "+v1.AccessToken)
	res, err = client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotContains(t, logs.String(), v1.AccessToken)

	srv.stop()
}

func TestServeRefusesPlainHTTPOffLoopback(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"all interfaces", []string{"--addr", ":0"}, "plain HTTP is only served on a loopback address"},
		{"public address", []string{"--addr", "192.0.2.1:8080"}, "plain HTTP is only served on a loopback address"},
		{"cert without key", []string{"--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{"both kinds", []string{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-self-signed"}, "not both"},
		{"missing files", []string{"--tls-cert", "nope.pem", "--tls-key", "nope.pem"}, "TLS certificate"},
		{"bad trusted proxy", []string{"--addr", "127.0.0.1:0", "--trusted-proxies", "10.0.0.0/8,10.0.0.0/33"}, `--trusted-proxies: "10.0.0.0/33" is neither`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := &syncBuffer{}
			args := append([]string{"serve", "--data", t.TempDir()}, tc.args...)
			assert.Equal(t, 1, run(context.Background(), args, out, out))
			assert.Contains(t, out.String(), tc.want)
		})
	}
	assert.True(t, isLoopback("localhost:80"))
	assert.True(t, isLoopback("[::1]:80"))
	assert.False(t, isLoopback("0.0.0.0:80"))
}
