package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/pgtest"
)

// TestShortOfAResource: on PostgreSQL, a write the database keeps refusing
// for want of a resource it shares (out of shared memory: its predicate
// lock table full; a full disk) answers 503 with Retry-After, in the error
// body of the route's format, and is logged as a warning with its cause,
// not as an internal error.
func TestShortOfAResource(t *testing.T) {
	createCustomer := request{method: http.MethodPost, path: "/v2/customers", token: ownerToken,
		body: `{"firstName": "Erin", "emails": [{"type": "work", "value": "erin@initech.test"}]}`}
	for _, tc := range []struct {
		name   string
		table  string // whose inserts fail
		code   string // with this SQLSTATE
		req    request
		golden string // the API's error body, or
		body   string // the body of the route's own format
	}{
		{"out of shared memory", "customers", "53200", createCustomer, "errors/service_unavailable", ""},
		{"disk full", "customers", "53100", createCustomer, "errors/service_unavailable", ""},
		{"at the token endpoint", "credentials", "53200",
			request{method: http.MethodPost, path: "/v2/oauth2/token", body: `{"grant_type":"client_credentials","client_id":"acme-app","client_secret":"acme-app-secret"}`},
			"", `{"error":"temporarily_unavailable","error_description":"the server is short of a resource for the moment; retry after a short delay"}`},
		{"at the V1 key exchange", "credentials", "53200",
			request{method: http.MethodPost, path: "/transition", body: `{"apiKey":"olivia-v1-key","clientId":"acme-app"}`},
			"", `{"status":503,"message":"the server is short of a resource for the moment; retry after a short delay"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorldOn(t, postgres)
			w.giveOwnerV1Key()
			pgtest.FailInserts(t, w.pgURL, tc.table, tc.code, 1000)

			rec := w.do(tc.req)
			require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
			assert.Equal(t, "1", rec.Header().Get("Retry-After"))
			if tc.golden != "" {
				assert.Equal(t, "application/json;charset=UTF-8", rec.Header().Get("Content-Type"))
				goldenError(t, tc.golden, rec)
			} else {
				assert.JSONEq(t, tc.body, rec.Body.String())
			}
			logs := w.logs.String()
			assert.Contains(t, logs, `level=WARN msg="service unavailable" logRef=`+rec.Header().Get("X-Request-ID"))
			assert.Contains(t, logs, "SQLSTATE "+tc.code, "the cause is logged")
			assert.NotContains(t, logs, "internal error")
		})
	}
}
