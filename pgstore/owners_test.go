package pgstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestNewIDsAreDrawnAndClaimedTogether: a record of a family the owners
// table holds draws its new id and claims it in one statement, and an id
// drawn that another company holds is refused as before.
func TestNewIDsAreDrawnAndClaimedTogether(t *testing.T) {
	ctx := context.Background()
	url := migrated(t)
	rec := &pgtest.Recorder{}
	db, err := Open(ctx, url, Options{Tracer: rec})
	require.NoError(t, err)
	defer db.Close()
	conv := &parley.Conversation{CompanyID: 1, State: parley.StatePublished}
	_, err = db.Update(ctx, func(tx *Tx) error {
		if err := tx.PutConversation(conv); err != nil {
			return err
		}
		return tx.PutThread(&parley.Thread{CompanyID: 1, ConversationID: conv.ID, Body: "hi"})
	})
	require.NoError(t, err)
	assert.Contains(t, rec.Statements(), sqlDrawOwnedID)
	assert.NotContains(t, rec.Statements(), sqlNextID, "no id drawn apart")
	assert.NotContains(t, rec.Statements(), sqlClaim, "no claim apart")
	require.NoError(t, db.View(ctx, func(tx *Tx) error {
		company, found, err := tx.companyOf(ownedConversation, conv.ID)
		assert.True(t, found)
		assert.Equal(t, int64(1), company, "the id is claimed")
		return err
	}))

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO owners (kind, id, company_id) SELECT 'conversation', last_value + 1, 2 FROM conversation_ids`)
	require.NoError(t, err)
	_, err = db.Update(ctx, func(tx *Tx) error {
		return tx.PutConversation(&parley.Conversation{CompanyID: 1, State: parley.StatePublished})
	})
	assert.ErrorContains(t, err, "belongs to another company")
}
