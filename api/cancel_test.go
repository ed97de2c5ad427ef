package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/pgtest"
)

// TestRequestEndsItsStatements: on PostgreSQL, a request whose client
// goes away, or whose deadline passes, while its read waits on a lock
// ends that read at once and answers as such: nothing for a client gone
// (499, logged as a Client Abort), 504 Internal Timeout past the deadline.
func TestRequestEndsItsStatements(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		golden string
	}{
		{"client gone", context.Canceled, 499, ""},
		{"deadline passed", context.DeadlineExceeded, http.StatusGatewayTimeout, "auth/internal_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorldOn(t, postgres)
			release := pgtest.LockTable(t, w.pgURL, "mailboxes")
			ctx := newEndingContext()
			req := httptest.NewRequest(http.MethodGet, "https://api.parley.test/v2/mailboxes", nil).WithContext(ctx)
			req.Header.Set("Authorization", "Bearer "+ownerToken)
			rec := httptest.NewRecorder()
			done := make(chan struct{})
			go func() { w.server.ServeHTTP(rec, req); close(done) }()
			pgtest.AwaitLockWait(t, w.pgURL)
			ctx.end(tc.err)
			select {
			case <-done:
			case <-time.After(time.Minute):
				release()
				<-done
				t.Fatalf("still waiting on the lock after the request ended; then answered %d", rec.Code)
			}
			release()
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.golden != "" {
				goldenError(t, tc.golden, rec)
			} else {
				assert.Empty(t, rec.Body.String())
			}
		})
	}
}

// endingContext is a request's context that the test ends, as a client
// that goes away (context.Canceled) or a deadline that passes
// (context.DeadlineExceeded) would, at the moment it chooses.
type endingContext struct {
	context.Context
	done chan struct{}
	err  error
}

func newEndingContext() *endingContext {
	return &endingContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *endingContext) end(err error) { c.err = err; close(c.done) }

func (c *endingContext) Done() <-chan struct{} { return c.done }

func (c *endingContext) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}
