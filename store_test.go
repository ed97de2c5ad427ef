package parley_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestCommitHooks runs the before-commit step (parley.CommitHooks) through
// a real store: the hook sees the events the write recorded, on the
// transaction the write used, and what it writes commits with the write;
// its error aborts the whole write; a write without events, or with no
// hook set, does not call it; and the events the hook records are not
// handed back to it.
func TestCommitHooks(t *testing.T) {
	w := newWorld(t)
	db := w.db
	company := w.caller.Company.ID
	event := parley.Event{Kind: "customer.created", CompanyID: company, ResourceID: "7", At: ruleNow}

	var seen [][]parley.Event
	var sameTx bool
	var writeTx parley.Tx
	db.SetBeforeCommit(func(tx parley.Tx, events []parley.Event) error {
		seen = append(seen, events)
		sameTx = tx == writeTx
		if err := tx.PutEvent(parley.Event{Kind: "convo.tags", CompanyID: company, ResourceID: "8", At: ruleNow}); err != nil {
			return err
		}
		return tx.PutTag(&parley.Tag{CompanyID: company, Name: "from-hook"})
	})
	_, err := w.st.Update(context.Background(), func(tx parley.Tx) error {
		writeTx = tx
		return tx.PutEvent(event)
	})
	require.NoError(t, err)
	assert.Equal(t, [][]parley.Event{{event}}, seen, "once, with the write's events only")
	assert.True(t, sameTx, "the hook runs on the transaction the write saw")
	assert.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.TagByName(company, "from-hook")
		return err
	}), "the hook's write committed with the write")

	seen = nil
	_, err = w.st.Update(context.Background(), func(tx parley.Tx) error {
		return tx.PutTag(&parley.Tag{CompanyID: company, Name: "no-events"})
	})
	require.NoError(t, err)
	assert.Empty(t, seen, "a write without events runs no hook")

	refused := errors.New("refused")
	db.SetBeforeCommit(func(parley.Tx, []parley.Event) error { return refused })
	_, err = w.st.Update(context.Background(), func(tx parley.Tx) error {
		if err := tx.PutTag(&parley.Tag{CompanyID: company, Name: "dropped"}); err != nil {
			return err
		}
		return tx.PutEvent(event)
	})
	assert.ErrorIs(t, err, refused)
	assert.True(t, parley.IsNotFound(w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.TagByName(company, "dropped")
		return err
	})), "the hook's error aborts the whole write")

	db.SetBeforeCommit(nil)
	_, err = w.st.Update(context.Background(), func(tx parley.Tx) error { return tx.PutEvent(event) })
	assert.NoError(t, err, "no hook set: the write commits")
}
