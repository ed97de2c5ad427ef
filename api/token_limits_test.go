package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

// tokenRequest is a client-credentials request from a peer address.
func tokenRequest(clientID, secret, from string) request {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}}.Encode()
	return request{method: http.MethodPost, path: "/v2/oauth2/token", body: form,
		contentType: "application/x-www-form-urlencoded", remoteAddr: from}
}

// TestTokenEndpointFloods: failed client authentications are counted per
// client address, before bcrypt, so a flood of unknown client ids or wrong
// secrets from one address is refused there and never locks a real
// application out from another address.
func TestTokenEndpointFloods(t *testing.T) {
	const budget = 5
	attacker, real := "198.51.100.7:4000", "203.0.113.9:5000"
	for _, tc := range []struct {
		name  string
		flood func(i int) request
	}{
		{"unknown client ids", func(i int) request { return tokenRequest(fmt.Sprintf("random-%d", i), "x", attacker) }},
		{"wrong secrets for the real client", func(i int) request { return tokenRequest(appClientID, fmt.Sprintf("guess-%d", i), attacker) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, func(c *api.Config) { c.TokenRateLimit = budget })
			for i := range budget {
				rec := w.do(tc.flood(i))
				require.Equal(t, http.StatusUnauthorized, rec.Code, "attempt %d: %s", i, rec.Body.String())
				assert.Equal(t, fmt.Sprint(budget-1-i), rec.Header().Get("X-RateLimit-Remaining-Minute"))
			}
			for i := budget; i < 3*budget; i++ {
				rec := w.do(tc.flood(i))
				require.Equal(t, http.StatusTooManyRequests, rec.Code, "attempt %d", i)
				assert.Equal(t, "60", rec.Header().Get("X-RateLimit-Retry-After"))
				assert.JSONEq(t, `{"error":"temporarily_unavailable","error_description":"too many failed client authentications from this address; retry after 60 seconds"}`, rec.Body.String())
			}
			// The real application, from its own address, still gets tokens.
			for i := range budget {
				rec := w.do(tokenRequest(appClientID, appSecret, real))
				require.Equal(t, http.StatusOK, rec.Code, "token %d: %s", i, rec.Body.String())
				assert.Equal(t, fmt.Sprint(budget-1-i), rec.Header().Get("X-RateLimit-Remaining-Minute"), "the client's own budget")
			}
			// Its own budget bounds the tokens it is issued.
			rec := w.do(tokenRequest(appClientID, appSecret, real))
			require.Equal(t, http.StatusTooManyRequests, rec.Code)
			assert.JSONEq(t, `{"error":"temporarily_unavailable","error_description":"too many requests for this client; retry after 60 seconds"}`, rec.Body.String())
		})
	}

	t.Run("a success gives its attempt back", func(t *testing.T) {
		w := newWorld(t, func(c *api.Config) { c.TokenRateLimit = 2 })
		from := "198.51.100.8:1"
		require.Equal(t, http.StatusUnauthorized, w.do(tokenRequest(appClientID, "wrong", from)).Code)
		require.Equal(t, http.StatusOK, w.do(tokenRequest(appClientID, appSecret, from)).Code)
		require.Equal(t, http.StatusUnauthorized, w.do(tokenRequest(appClientID, "wrong", from)).Code, "one failure left after the success")
		require.Equal(t, http.StatusTooManyRequests, w.do(tokenRequest(appClientID, "wrong", from)).Code)
	})
}

// TestForwardedFor: X-Forwarded-For names the client only when the peer is
// a configured proxy; otherwise the per-address budget stays the peer's.
func TestForwardedFor(t *testing.T) {
	proxies, err := api.ParseTrustedProxies(" 10.0.0.0/8 ,192.168.1.7")
	require.NoError(t, err)
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32")}, proxies)
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "fe80::1%eth0"} {
		_, err := api.ParseTrustedProxies(bad)
		assert.Error(t, err, bad)
	}

	w := newWorld(t, func(c *api.Config) { c.TokenRateLimit = 1; c.TrustedProxies = proxies })
	wrong := func(peer, forwarded string) int {
		r := tokenRequest(appClientID, "wrong", peer)
		if forwarded != "" {
			r.header = map[string]string{"X-Forwarded-For": forwarded}
		}
		return w.do(r).Code
	}
	// An untrusted peer forging the header is still limited by its own address.
	assert.Equal(t, http.StatusUnauthorized, wrong("198.51.100.1:1", "203.0.113.1"))
	assert.Equal(t, http.StatusTooManyRequests, wrong("198.51.100.1:2", "203.0.113.2"), "a forged header does not reset the budget")
	assert.Equal(t, http.StatusUnauthorized, wrong("203.0.113.3:3", ""), "the forged addresses were not charged")
	// Through a trusted proxy, each forwarded client has its own budget.
	assert.Equal(t, http.StatusUnauthorized, wrong("10.1.2.3:1", "203.0.113.4"))
	assert.Equal(t, http.StatusTooManyRequests, wrong("192.168.1.7:2", "203.0.113.4"))
	assert.Equal(t, http.StatusUnauthorized, wrong("10.1.2.3:3", "203.0.113.5"))
	// A forged entry before a trusted proxy's own is skipped: the proxy's
	// client (the last untrusted address) is the one limited.
	assert.Equal(t, http.StatusTooManyRequests, wrong("10.1.2.3:4", "1.2.3.4, 203.0.113.5"))
}

// TestV1ExchangeFloods: at the V1 exchange too, failed exchanges are
// counted per address, and junk naming a real client id from one address
// does not spend that client's budget.
func TestV1ExchangeFloods(t *testing.T) {
	const budget = 3
	w := newWorld(t, func(c *api.Config) { c.TokenRateLimit = budget })
	w.giveOwnerV1Key()
	exchange := func(key, from string) *httptest.ResponseRecorder {
		return w.do(request{method: http.MethodPost, path: "/transition", remoteAddr: from,
			body: fmt.Sprintf(`{"apiKey":%q,"clientId":%q}`, key, appClientID)})
	}
	for i := range 3 * budget {
		rec := exchange(fmt.Sprintf("guess-%d", i), "198.51.100.7:1")
		want := http.StatusBadRequest
		if i >= budget {
			want = http.StatusTooManyRequests
		}
		require.Equal(t, want, rec.Code, "attempt %d: %s", i, rec.Body.String())
	}
	for i := range budget {
		rec := exchange("olivia-v1-key", "203.0.113.9:1")
		require.Equal(t, http.StatusOK, rec.Code, "exchange %d: %s", i, rec.Body.String())
	}
	assert.Equal(t, http.StatusTooManyRequests, exchange("olivia-v1-key", "203.0.113.10:1").Code, "the client's own budget is spent by its exchanges")
}
