package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

// testChats: chats are found by company, or by id alone (the visitor
// widget, the indexer); each write queues the chat's document. Events are
// recorded in the write's transaction.
func testChats(t *testing.T, b Backend) {
	chat := &parley.Chat{ID: "7f1c0a52-3a5e-4a39-9d5c-1c0f7b0e5a11", CompanyID: 1, MailboxID: 2, WidgetID: "w", CustomerID: 3, AssigneeID: 4,
		CreatedAt: clock, AcceptedAt: ptr(at(1)), Preview: "hi", CustomFields: []parley.FieldValue{{ID: 1, Value: "v"}},
		Tags: []parley.ChatTag{{ID: ptr(int64(5)), Slug: "s", Color: "c", Name: "n"}}, Timeline: []parley.TimelineEntry{{Type: "page", Timestamp: clock, URL: "u", Title: "t"}},
		VisitorTokenHash: "hash", ConversationID: 9}
	other := &parley.Chat{ID: "other", CompanyID: 2, CreatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutChat(chat) }, func(tx parley.Tx) error { return tx.PutChat(other) },
		func(tx parley.Tx) error {
			return tx.PutEvent(parley.Event{Kind: "widget.chat.started", CompanyID: 1, ResourceID: chat.ID, At: clock})
		})
	assert.Equal(t, []parley.OutboxEntry{{Kind: parley.OutboxChat, Company: 1, Ref: chat.ID}, {Kind: parley.OutboxChat, Company: 2, Ref: "other"}},
		drain(t, b))
	assert.Equal(t, chat, get(t, b, func(tx parley.Tx) (*parley.Chat, error) { return tx.Chat(1, chat.ID) }))
	notFound(t, b, "another company's chat", func(tx parley.Tx) error { _, err := tx.Chat(2, chat.ID); return err })
	assert.Equal(t, other, get(t, b, func(tx parley.Tx) (*parley.Chat, error) { return tx.ChatByID("other") }))
	notFound(t, b, "a missing chat", func(tx parley.Tx) error { _, err := tx.ChatByID("missing"); return err })

	chat.EndedAt = ptr(at(5))
	put(t, b, func(tx parley.Tx) error { return tx.PutChat(chat) })
	assert.Equal(t, chat, get(t, b, func(tx parley.Tx) (*parley.Chat, error) { return tx.ChatByID(chat.ID) }))
	assert.Equal(t, []parley.OutboxEntry{{Kind: parley.OutboxChat, Company: 1, Ref: chat.ID}}, drain(t, b))
}
