package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

func TestRateLimit(t *testing.T) {
	w := newWorld(t, func(c *api.Config) {
		c.RateLimits = map[parley.Plan]int{parley.PlanPro: 5, parley.PlanStandard: 3}
		c.TokenRateLimit = 2
	})
	w.clock.advance(30 * time.Second) // mid-minute: the window ends at 12:01:00
	type step struct {
		req       request
		status    int
		remaining string
		retry     string
	}
	get := request{method: http.MethodGet, path: "/v2/users/me", token: ownerToken}
	put := request{method: http.MethodPut, path: "/v2/users/1/status", token: ownerToken, body: `{"status":"away"}`}
	globex := request{method: http.MethodGet, path: "/v2/users/me", token: globexToken}
	for i, s := range []step{
		{get, 200, "4", ""},
		{put, 204, "2", ""}, // a write costs 2
		{get, 200, "1", ""},
		{put, 429, "1", "30"}, // refused: 2 > 1, and spends nothing
		{get, 200, "0", ""},
		{get, 429, "0", "30"},
		{globex, 200, "2", ""}, // another company has its own budget (standard plan: 3)
	} {
		rec := w.do(s.req)
		require.Equal(t, s.status, rec.Code, "step %d: %s", i, rec.Body.String())
		limit := "5"
		if s.req.token == globexToken {
			limit = "3"
		}
		assert.Equal(t, limit, rec.Header().Get("X-RateLimit-Limit-Minute"), "step %d", i)
		assert.Equal(t, s.remaining, rec.Header().Get("X-RateLimit-Remaining-Minute"), "step %d", i)
		assert.Equal(t, s.retry, rec.Header().Get("X-RateLimit-Retry-After"), "step %d", i)
		if s.status == 429 && i == 5 {
			goldenError(t, "auth/rate_limited", rec)
		}
	}
	// The window resets on the minute.
	w.clock.advance(29 * time.Second)
	assert.Equal(t, http.StatusTooManyRequests, w.do(get).Code)
	w.clock.advance(time.Second)
	rec := w.do(get)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "4", rec.Header().Get("X-RateLimit-Remaining-Minute"))

	// The token endpoint has budgets of its own (see TestTokenEndpointFloods):
	// here, failures from one address.
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {appClientID}, "client_secret": {"guess"}}.Encode()
	tok := request{method: http.MethodPost, path: "/v2/oauth2/token", body: form, contentType: "application/x-www-form-urlencoded"}
	assert.Equal(t, http.StatusUnauthorized, w.do(tok).Code)
	assert.Equal(t, http.StatusUnauthorized, w.do(tok).Code)
	rec = w.do(tok)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "60", rec.Header().Get("X-RateLimit-Retry-After"))
	assert.JSONEq(t, `{"error":"temporarily_unavailable","error_description":"too many failed client authentications from this address; retry after 60 seconds"}`, rec.Body.String())
	rec = w.do(request{method: http.MethodPost, path: "/transition", body: `{"apiKey":"x","clientId":"acme-app"}`})
	assert.Equal(t, http.StatusBadRequest, rec.Code, "the V1 exchange has a budget of its own")
}

func TestCompanySwitches(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name   string
		change func(*parley.Company)
		code   string
	}{
		{"api_not_enabled", func(c *parley.Company) { c.APIEnabled = false }, parley.CodeAPINotEnabled},
		{"payment_missing", func(c *parley.Company) { c.PaymentOK = false }, parley.CodePaymentMissing},
		{"payment_expired", func(c *parley.Company) { at := epoch; c.PaidUntil = &at }, parley.CodePaymentMissing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.company(acmeID, func(c *parley.Company) { c.APIEnabled, c.PaymentOK, c.PaidUntil = true, true, nil; tc.change(c) })
			for _, r := range []request{
				{method: http.MethodGet, path: "/v2/conversations", token: ownerToken},
				{method: http.MethodPost, path: "/v2/users", token: ownerToken, body: `{}`},
				{method: http.MethodGet, path: "/v2/mailboxes", token: userToken},
			} {
				rec := w.do(r)
				require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
				assert.Equal(t, tc.code, errorCode(t, decode(t, rec)))
			}
			goldenError(t, "auth/"+tc.name, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: ownerToken}))
			assert.Equal(t, http.StatusOK, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: globexToken}).Code,
				"other companies are not affected")
		})
	}
	w.company(acmeID, func(c *parley.Company) { c.APIEnabled, c.PaymentOK, c.PaidUntil = true, true, nil })
	assert.Equal(t, http.StatusOK, w.do(request{method: http.MethodGet, path: "/v2/users/me", token: ownerToken}).Code)
}
