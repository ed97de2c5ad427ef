package storage_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// TestStoreSeam holds the bbolt backend to the seam's contract (store.go in
// the domain): Update commits when fn returns nil and rolls back otherwise,
// and a record of another company answers NotFound.
func TestStoreSeam(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	st := db.Store()

	var id int64
	_, err = st.Update(context.Background(), func(tx parley.Tx) error {
		tag := &parley.Tag{CompanyID: 1, Name: "kept"}
		err := tx.PutTag(tag)
		id = tag.ID
		return err
	})
	require.NoError(t, err)
	failed := errors.New("refused")
	_, err = st.Update(context.Background(), func(tx parley.Tx) error {
		if err := tx.PutTag(&parley.Tag{CompanyID: 1, Name: "dropped"}); err != nil {
			return err
		}
		return failed
	})
	assert.ErrorIs(t, err, failed)

	require.NoError(t, st.View(context.Background(), func(tx parley.Tx) error {
		tags, err := tx.Tags(1)
		require.NoError(t, err)
		require.Len(t, tags, 1)
		assert.Equal(t, "kept", tags[0].Name)
		_, err = tx.Tag(2, id)
		assert.True(t, parley.IsNotFound(err), "another company's tag: %v", err)
		_, err = tx.Conversation(1, 999)
		assert.True(t, parley.IsNotFound(err), "a missing conversation: %v", err)
		return nil
	}))
}
