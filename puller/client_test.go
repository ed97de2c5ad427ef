package puller

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPullClientRetries: a 429 is retried after the wait its header names, a
// transient failure after a doubling backoff, and a refusal is not
// retried; the answers the source gave are counted by path.
func TestPullClientRetries(t *testing.T) {
	type answer struct {
		status  int
		headers map[string]string
	}
	cases := []struct {
		name    string
		answers []answer // before a 200 with a body
		waits   []time.Duration
		wantErr string
	}{
		{name: "429 with X-RateLimit-Retry-After", answers: []answer{{429, map[string]string{"X-RateLimit-Retry-After": "7"}}},
			waits: []time.Duration{7 * time.Second}},
		{name: "429 with Retry-After", answers: []answer{{429, map[string]string{"Retry-After": "3"}}},
			waits: []time.Duration{3 * time.Second}},
		{name: "429 without a header backs off", answers: []answer{{429, nil}, {429, nil}},
			waits: []time.Duration{time.Second, 2 * time.Second}},
		{name: "5xx backs off", answers: []answer{{503, nil}, {500, nil}, {502, nil}},
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "attempts run out", answers: []answer{{503, nil}, {503, nil}, {503, nil}, {503, nil}, {503, nil}, {503, nil}},
			waits:   []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second},
			wantErr: "after 6 attempts: GET /v2/users: 503 Service Unavailable"},
		{name: "a refusal is not retried", answers: []answer{{404, nil}},
			wantErr: "the source refused the request: GET /v2/users: 404 Not Found: nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v2/oauth2/token" {
					assert.NoError(t, r.ParseForm())
					assert.Equal(t, "client_credentials", r.PostForm.Get("grant_type"))
					assert.Equal(t, "id", r.PostForm.Get("client_id"))
					assert.Equal(t, "secret", r.PostForm.Get("client_secret"))
					w.Write([]byte(`{"access_token":"tok","token_type":"bearer","expires_in":7200}`))
					return
				}
				assert.Equal(t, "Bearer tok", r.Header.Get("Authorization"))
				if calls < len(tc.answers) {
					a := tc.answers[calls]
					calls++
					for k, v := range a.headers {
						w.Header().Set(k, v)
					}
					w.WriteHeader(a.status)
					w.Write([]byte("nope"))
					return
				}
				calls++
				w.Write([]byte(`{"ok":true}`))
			}))
			defer srv.Close()
			var waits []time.Duration
			c := &Client{Base: srv.URL, ClientID: "id", ClientSecret: "secret",
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			body, err := c.Get(context.Background(), "/v2/users")
			assert.Equal(t, tc.waits, waits)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, `{"ok":true}`, string(body))
			assert.Equal(t, len(tc.answers)+1, calls)
		})
	}
}
