package storage

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// TestTimelinesMovedOutOfChatsAtOpen writes chats as a Parley from before
// bucketChatTimeline kept them, their timelines inside, and reopens the
// database: each timeline is read back whole and in order from its own
// records, the chats no longer hold one, and opening again moves nothing
// twice.
func TestTimelinesMovedOutOfChatsAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	db, err := Open(path, Options{NoSync: true})
	require.NoError(t, err)
	when := time.Date(2025, 3, 4, 5, 6, 7, 891000000, time.UTC)
	type legacyChat struct {
		parley.Chat
		Timeline []parley.TimelineEntry `json:"timeline,omitempty"`
	}
	viewed := legacyChat{Chat: parley.Chat{ID: "7f1c0a52-3a5e-4a39-9d5c-1c0f7b0e5a11", CompanyID: 1, MailboxID: 2, WidgetID: "w", CustomerID: 3,
		CreatedAt: when, Preview: "hi", VisitorTokenHash: "hash"},
		Timeline: []parley.TimelineEntry{
			{Type: "page-viewed", Timestamp: when, URL: "https://shop.example.com/orders/42", Title: "Order 42"},
			{Type: "page-viewed", Timestamp: when.Add(time.Minute), URL: "https://shop.example.com/help"},
		}}
	other := legacyChat{Chat: parley.Chat{ID: "8a2d1b63-4b6f-4b4a-8e6d-2d1f8c1f6b22", CompanyID: 2, CreatedAt: when, VisitorTokenHash: "h2"},
		Timeline: []parley.TimelineEntry{{Type: "cart", Timestamp: when, URL: "https://globex.example.com/cart", Title: "Cart"}}}
	none := legacyChat{Chat: parley.Chat{ID: "9b3e2c74-5c70-4c5b-9f7e-3e2a9d2a7c33", CompanyID: 1, CreatedAt: when, VisitorTokenHash: "h3"}}
	require.NoError(t, db.bolt.Update(func(tx *bbolt.Tx) error {
		if err := tx.DeleteBucket(bucketChatTimeline); err != nil { // as before the bucket was
			return err
		}
		for _, c := range []legacyChat{viewed, other, none} {
			data, err := encode(bucketChats, c)
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketChats).Put([]byte(c.ID), data); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.Close())

	for _, open := range []string{"first", "second"} {
		db, err = Open(path, Options{NoSync: true})
		require.NoError(t, err)
		require.NoError(t, db.View(func(tx *Tx) error {
			for _, c := range []legacyChat{viewed, other, none} {
				timeline, err := tx.ChatTimeline(c.CompanyID, c.ID)
				require.NoError(t, err)
				assert.Equal(t, c.Timeline, timeline, "%s open: the timeline of %s", open, c.ID)
				stored, err := tx.Chat(c.CompanyID, c.ID)
				require.NoError(t, err)
				assert.Equal(t, &c.Chat, stored)
				plain, err := unpack(tx.tx.Bucket(bucketChats).Get([]byte(c.ID)))
				require.NoError(t, err)
				var fields map[string]any
				require.NoError(t, json.Unmarshal(plain, &fields))
				assert.NotContains(t, fields, "timeline", "%s open: the chat %s still holds its timeline", open, c.ID)
			}
			return nil
		}))
		require.NoError(t, db.Close())
	}
}
