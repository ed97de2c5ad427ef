package parley_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestPageViewWritesTheEntryAlone: recording a page view stores the entry
// and nothing else: the chat is not written again (a chat written is
// queued for indexing, so the write's outbox sequence would not be 0),
// however long its timeline.
func TestPageViewWritesTheEntryAlone(t *testing.T) {
	w := newWorld(t)
	chat := &parley.Chat{ID: "5d2b7c1e-0d7e-4c0e-9a57-3f1f3c1b2a01", CompanyID: w.caller.Company.ID, MailboxID: w.mailbox,
		CustomerID: w.customer, CreatedAt: ruleNow, VisitorTokenHash: parley.HashToken("visitor")}
	_, err := w.st.Update(context.Background(), func(tx parley.Tx) error { return tx.PutChat(chat) })
	require.NoError(t, err)
	env := parley.ChatEnv{Now: ruleNow, NewID: func() string { return "unused" }}
	for i := range 3 {
		seq, err := w.st.Update(context.Background(), func(tx parley.Tx) error {
			return parley.VisitorPageView(tx, chat, &parley.TimelineRequest{URL: parley.Ptr("https://shop.example.com/")}, env)
		})
		require.NoError(t, err)
		assert.Zero(t, seq, "page view %d queued index work: the chat was written", i)
	}
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		stored, err := tx.Chat(chat.CompanyID, chat.ID)
		require.NoError(t, err)
		assert.Equal(t, chat, stored)
		timeline, err := tx.ChatTimeline(chat.CompanyID, chat.ID)
		require.NoError(t, err)
		assert.Len(t, timeline, 3)
		return nil
	}))
}
