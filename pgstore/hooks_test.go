package pgstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestCommitHooks: a write through the domain's seam that recorded events
// runs the before-commit hook in its transaction (what it writes commits
// with the write); then the indexer, in the same transaction, with the
// records the write (hook included) touched, and what it writes commits
// with the write too; a committed write signals the workers whose work it
// stored; a read signals nothing; an error of either aborts the write.
func TestCommitHooks(t *testing.T) {
	var touched [][]parley.OutboxEntry
	var failIndexer error
	db, _ := openIndexed(t, func(_ context.Context, tx *Tx, _ pgx.Tx, entries []parley.OutboxEntry) error {
		touched = append(touched, entries)
		if failIndexer != nil {
			return failIndexer
		}
		return tx.PutTag(&parley.Tag{CompanyID: 1, Name: fmt.Sprintf("from-indexer-%d", len(touched))})
	})
	ctx := context.Background()
	var hooked []parley.Event
	db.SetBeforeCommit(func(tx parley.Tx, events []parley.Event) error {
		hooked = append(hooked, events...)
		return tx.PutTag(&parley.Tag{CompanyID: 1, Name: "from-hook"})
	})
	var observed []bool
	db.OnTx(func(write bool, _ time.Duration) { observed = append(observed, write) })

	event := parley.Event{Kind: "customer.created", CompanyID: 1, ResourceID: "1", At: at}
	ann := &parley.Customer{CompanyID: 1, FirstName: "Ann"}
	seq, err := db.Store().Update(ctx, func(tx parley.Tx) error {
		if err := tx.PutCustomer(ann); err != nil {
			return err
		}
		return tx.PutEvent(event)
	})
	require.NoError(t, err)
	assert.Zero(t, seq, "no outbox, no sequence")
	assert.Equal(t, []parley.Event{event}, hooked)
	assert.Equal(t, [][]parley.OutboxEntry{{{Kind: parley.OutboxCustomer, Company: 1, ID: ann.ID}}}, touched, "the indexer is handed the records touched")
	assertSignalled(t, db.WebhookWork(), true, "an event")
	assertSignalled(t, db.LaterChanged(), false, "no wake-up")
	assertSignalled(t, db.MailWork(), false, "no e-mail")
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		if _, err := tx.TagByName(1, "from-hook"); err != nil {
			return err
		}
		_, err := tx.TagByName(1, "from-indexer-1")
		return err
	}), "the hook's and the indexer's writes committed with the write")

	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 1, At: at}); err != nil {
			return err
		}
		return tx.PutMail(&parley.Mail{CompanyID: 1, ConversationID: 1, Status: parley.MailStatus("queued"), NextAttemptAt: at})
	})
	require.NoError(t, err)
	assert.Len(t, touched, 1, "a write that touched no searched record does not run the indexer")
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

	db.SetBeforeCommit(func(parley.Tx, []parley.Event) error { return nil })
	failIndexer = parley.NotFound("refused by the indexer")
	_, err = db.Store().Update(ctx, func(tx parley.Tx) error {
		if err := tx.PutTag(&parley.Tag{CompanyID: 1, Name: "dropped-too"}); err != nil {
			return err
		}
		return tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Bo"})
	})
	assert.True(t, parley.IsNotFound(err), "the indexer's error aborts the write: %v", err)
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		_, err := tx.TagByName(1, "dropped-too")
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
