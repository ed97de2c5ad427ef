package api_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookDispatcherIdleWritesNothing: rounds with no event recorded
// and no delivery due open no write transaction; a new event signals the
// dispatcher (storage.DB.WebhookWork) and is delivered; a failed delivery
// makes the dispatcher sleep until its retry is due, without writing.
func TestWebhookDispatcherIdleWritesNothing(t *testing.T) {
	h := newHooks(t)
	h.hook(map[string]any{"events": []string{"convo.created"}})
	h.deliver() // the hook's test event
	h.recv.take()
	var writes atomic.Int64
	h.db.OnTx(func(write bool, _ time.Duration) {
		if write {
			writes.Add(1)
		}
	})
	drain := func() {
		select {
		case <-h.db.WebhookWork():
		default:
		}
	}
	drain()

	idle := func(rounds int) {
		t.Helper()
		for range rounds {
			assert.Equal(t, 0, h.deliver())
			_, pending, err := h.d.NextDue(context.Background())
			require.NoError(t, err)
			assert.False(t, pending)
			h.clock.advance(time.Second)
		}
	}
	idle(500)
	assert.Zero(t, writes.Load(), "an idle dispatcher writes nothing")

	h.create(convJSON(nil))
	select {
	case <-h.db.WebhookWork():
	default:
		t.Fatal("recording an event signals the dispatcher")
	}
	assert.Equal(t, 1, h.deliver())
	matchEvents(t, []string{"convo.created *"}, h.recv.take())
	drain()
	writes.Store(0)
	idle(100)
	assert.Zero(t, writes.Load())

	// A failed delivery: the dispatcher sleeps until its retry.
	h.recv.setFailAll(true)
	h.create(convJSON(nil))
	assert.Equal(t, 1, h.deliver())
	next, pending, err := h.d.NextDue(context.Background())
	require.NoError(t, err)
	require.True(t, pending)
	require.True(t, next.After(h.clock.Now()), "the retry is due later")
	writes.Store(0)
	for range 100 {
		assert.Equal(t, 0, h.deliver(), "not due yet")
	}
	assert.Zero(t, writes.Load(), "waiting for a retry writes nothing")
	h.recv.setFailAll(false)
	h.clock.advance(next.Sub(h.clock.Now()))
	assert.Equal(t, 1, h.deliver(), "the retry goes at its due time")
}
