package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestCommitHooks: a write through the domain's seam that recorded events
// runs the before-commit hook in its transaction (what it writes commits with the write); a
// committed write tells OnCommit its sequence, and signals the workers
// whose work it stored; a read signals nothing.
func TestCommitHooks(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var hooked []parley.Event
	db.SetBeforeCommit(func(tx parley.Tx, events []parley.Event) error {
		hooked = append(hooked, events...)
		return tx.PutTag(&parley.Tag{CompanyID: 1, Name: "from-hook"})
	})
	var committed []uint64
	db.OnCommit(func(seq uint64) { committed = append(committed, seq) })
	var observed []bool
	db.OnTx(func(write bool, _ time.Duration) { observed = append(observed, write) })

	event := parley.Event{Kind: "customer.created", CompanyID: 1, ResourceID: "1", At: at}
	seq, err := db.Store().Update(ctx, func(tx parley.Tx) error {
		if err := tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Ann"}); err != nil {
			return err
		}
		return tx.PutEvent(event)
	})
	require.NoError(t, err)
	assert.Equal(t, []parley.Event{event}, hooked)
	assert.Equal(t, []uint64{seq}, committed)
	assertSignalled(t, db.WebhookWork(), true, "an event")
	assertSignalled(t, db.LaterChanged(), false, "no wake-up")
	assertSignalled(t, db.MailWork(), false, "no e-mail")
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		_, err := tx.TagByName(1, "from-hook")
		return err
	}), "the hook's write committed with the write")

	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 1, At: at}); err != nil {
			return err
		}
		return tx.PutMail(&parley.Mail{CompanyID: 1, ConversationID: 1, Status: parley.MailStatus("queued"), NextAttemptAt: at})
	})
	require.NoError(t, err)
	assert.Len(t, committed, 1, "a write that queued no index work is not told")
	assertSignalled(t, db.LaterChanged(), true, "a wake-up")
	assertSignalled(t, db.MailWork(), true, "an e-mail to send")
	assertSignalled(t, db.WebhookWork(), false, "no event")
	assert.Equal(t, []bool{true, false, true}, observed, "each transaction is observed")

	db.SetBeforeCommit(func(parley.Tx, []parley.Event) error { return parley.NotFound("refused") })
	_, err = db.Store().Update(ctx, func(tx parley.Tx) error {
		if err := tx.PutTag(&parley.Tag{CompanyID: 1, Name: "dropped"}); err != nil {
			return err
		}
		return tx.PutEvent(event)
	})
	assert.True(t, parley.IsNotFound(err), "the hook's error aborts the write: %v", err)
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		_, err := tx.TagByName(1, "dropped")
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}

var at = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func assertSignalled(t *testing.T, c <-chan struct{}, want bool, what string) {
	t.Helper()
	select {
	case <-c:
		assert.True(t, want, "signalled after %s", what)
	default:
		assert.False(t, want, "not signalled after %s", what)
	}
}
