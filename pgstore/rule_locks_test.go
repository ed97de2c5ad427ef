package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// pausingTx is a write's Tx that calls afterMailboxes once it listed a
// company's mailboxes: a test stops a rule there, between its reads and
// its write.
type pausingTx struct {
	*Tx
	afterMailboxes func()
}

func (p pausingTx) Mailboxes(companyID int64) ([]parley.Mailbox, error) {
	all, err := p.Tx.Mailboxes(companyID)
	p.afterMailboxes()
	return all, err
}

// TestRuleLocksMakeRuleChecksTakeTurns: two writes create a mailbox of
// one name at once, the first stopped after it found the name free. The
// second waits for the first's rule lock, then runs again on a snapshot
// holding the first's mailbox and is refused: without the lock, both see
// no such mailbox (REPEATABLE READ) and the company gets two.
func TestRuleLocksMakeRuleChecksTakeTurns(t *testing.T) {
	ctx := context.Background()
	db, url := open(t)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	_, err := db.Update(ctx, func(tx *Tx) error { return tx.PutCompany(&parley.Company{ID: 1, Name: "Acme"}) })
	require.NoError(t, err)
	create := func(email string, afterMailboxes func()) (int, error) {
		runs := 0
		_, err := db.Update(ctx, func(tx *Tx) error {
			runs++
			_, err := parley.CreateMailbox(pausingTx{tx, afterMailboxes}, 1, parley.NewMailbox{Name: parley.Ptr("Support"), Email: &email}, now)
			return err
		})
		return runs, err
	}

	firstRuns, firstErr, secondRuns, secondErr := racePausedWrite(t, url,
		func(between func()) (int, error) { return create("first@acme.test", between) },
		func(between func()) (int, error) { return create("second@acme.test", between) })
	require.NoError(t, firstErr)
	assert.Equal(t, 1, firstRuns)
	var conflict *parley.Error
	require.ErrorAs(t, secondErr, &conflict, "the second write finds the name taken")
	assert.Equal(t, parley.KindConflict, conflict.Kind)
	assert.Equal(t, 2, secondRuns, "the second write ran again after the first committed")
	err = db.View(ctx, func(tx *Tx) error {
		all, err := tx.Mailboxes(1)
		assert.Len(t, all, 1)
		return err
	})
	require.NoError(t, err)
}
