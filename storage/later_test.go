package storage

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// firstLaterKey is a key as Parley first wrote both later keys: a number
// (company or Unix seconds), the kind's first byte, the id.
func firstLaterKey(n int64, kind parley.LaterKind, id int64) []byte {
	k := make([]byte, 8, firstLaterKeyLen)
	binary.BigEndian.PutUint64(k, uint64(n))
	return append(append(k, kind[0]), key(id)...)
}

// TestFirstLaterKeysAreMovedAtOpen writes wake-ups under the first keys
// (the kind's first byte), reopens the database, and expects them kept:
// counted, due, deletable, and then apart from an item of the other kind
// with the same id.
func TestFirstLaterKeysAreMovedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(path, Options{NoSync: true})
	require.NoError(t, err)
	when := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	snooze := parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 7, ConversationID: 7, At: when}
	scheduled := parley.LaterItem{CompanyID: 1, Kind: parley.LaterScheduled, ID: 8, ConversationID: 3, At: when.Add(time.Minute)}
	require.NoError(t, db.bolt.Update(func(tx *bbolt.Tx) error {
		for _, item := range []parley.LaterItem{snooze, scheduled} {
			data, err := encode(bucketLater, item)
			if err != nil {
				return err
			}
			k := firstLaterKey(item.At.Unix(), item.Kind, item.ID)
			if err := tx.Bucket(bucketLater).Put(k, data); err != nil {
				return err
			}
			if err := tx.Bucket(bucketLaterByRef).Put(firstLaterKey(item.CompanyID, item.Kind, item.ID), k); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())

	db, err = Open(path, Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, db.View(func(tx *Tx) error {
		n, err := tx.CountLater(1)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		due, err := tx.DueLater(when.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []parley.LaterItem{snooze, scheduled}, due)
		for _, b := range [][]byte{bucketLater, bucketLaterByRef} {
			c := tx.tx.Bucket(b).Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				assert.NotEqualf(t, firstLaterKeyLen, len(k), "a first key left in %s", b)
			}
		}
		return nil
	}))

	// The thread scheduled under the snoozed conversation's id: both stay.
	sameID := parley.LaterItem{CompanyID: 1, Kind: parley.LaterScheduled, ID: snooze.ID, ConversationID: 3, At: when}
	_, err = db.Update(func(tx *Tx) error {
		if err := tx.PutLater(sameID); err != nil {
			return err
		}
		return tx.DeleteLater(1, parley.LaterScheduled, scheduled.ID)
	})
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *Tx) error {
		due, err := tx.DueLater(when.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []parley.LaterItem{sameID, snooze}, due, "of one second, by id then kind")
		return nil
	}))
}
