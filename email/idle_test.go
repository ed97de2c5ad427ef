package email

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/email/smtptest"
	"github.com/parley/parley/storage"
)

// TestIdleOutboxWritesNothing: with nothing to send, a round of the
// dispatcher opens no write transaction and finds nothing due; a
// committed reply signals MailWork and is due at once; once sent, the
// outbox is empty again and the next rounds write nothing.
func TestIdleOutboxWritesNothing(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	caller := seed(t, db)
	relay := smtptest.New(t)
	d := dispatcher(db, relay)
	var writes atomic.Int64
	db.OnTx(func(write bool, _ time.Duration) {
		if write {
			writes.Add(1)
		}
	})
	idle := func() {
		t.Helper()
		before := writes.Load()
		for range 100 {
			n, err := d.SendDue(context.Background(), epoch)
			require.NoError(t, err)
			require.Zero(t, n)
			_, ok, err := d.NextDue(context.Background())
			require.NoError(t, err)
			require.False(t, ok, "nothing waits")
		}
		assert.Equal(t, before, writes.Load(), "an idle outbox writes nothing")
	}
	idle()
	select {
	case <-db.MailWork():
		t.Fatal("no e-mail was stored, yet MailWork is signalled")
	default:
	}

	replyConversation(t, db, caller)
	select {
	case <-db.MailWork():
	default:
		t.Fatal("a committed reply must signal MailWork")
	}
	next, ok, err := d.NextDue(context.Background())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, epoch, next, "the reply is due when it was committed")
	n, err := d.SendDue(context.Background(), epoch)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Len(t, relay.Messages(), 1)
	select { // building the message stored the e-mail again, still to send: that signal is stale now
	case <-db.MailWork():
	default:
	}
	idle()
}
