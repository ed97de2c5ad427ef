package pgstore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestQueuedStatementFailsTheWrite: a statement exec queued fails when it
// is sent, with the next read or at the end of the write, and the write
// returns that failure, whatever the write's function made of it; what
// the write queued before is not committed.
func TestQueuedStatementFailsTheWrite(t *testing.T) {
	ctx := context.Background()
	db, _ := open(t)
	for _, tc := range []struct {
		name string
		then func(tx *Tx) error
	}{
		{"fn returns an error of its own", func(*Tx) error { return parley.NotFound("consequence") }},
		{"fn returns nil", func(*Tx) error { return nil }},
		{"fn reads", func(tx *Tx) error {
			_, err := tx.Tags(1)
			assert.ErrorContains(t, err, "invalid byte sequence", "the read is refused with the cause")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Update(ctx, func(tx *Tx) error {
				require.NoError(t, tx.PutTag(&parley.Tag{CompanyID: 1, Name: "kept-back"}))
				// A text PostgreSQL refuses (keyText escapes U+0000 for the
				// methods): the statement fails on the server.
				require.NoError(t, tx.exec(sqlDropTagName, int64(1), "nul\x00name"), "queued, not yet sent")
				return tc.then(tx)
			})
			assert.ErrorContains(t, err, "invalid byte sequence")
			assert.False(t, parley.IsNotFound(err), "the cause, not its consequence: %v", err)
			require.NoError(t, db.View(ctx, func(tx *Tx) error {
				_, err := tx.TagByName(1, "kept-back")
				assert.True(t, parley.IsNotFound(err), "nothing committed")
				return nil
			}))
		})
	}
}
