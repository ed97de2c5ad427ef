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
		Tags: []parley.ChatTag{{ID: ptr(int64(5)), Slug: "s", Color: "c", Name: "n"}}, VisitorTokenHash: "hash", ConversationID: 9}
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

// testChatTimelines: a chat's timeline entries are records of their own,
// read back whole in the order they were added, counted, kept to their
// chat (an id that extends another's is another chat) and their company;
// adding one changes neither the chat nor the index outbox.
func testChatTimelines(t *testing.T, b Backend) {
	chat := &parley.Chat{ID: "7f1c0a52-3a5e-4a39-9d5c-1c0f7b0e5a11", CompanyID: 1, MailboxID: 2, WidgetID: "w", CustomerID: 3,
		CreatedAt: clock, Preview: "hi", VisitorTokenHash: "hash"}
	longer := &parley.Chat{ID: chat.ID + "0", CompanyID: 1, CreatedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutChat(chat) }, func(tx parley.Tx) error { return tx.PutChat(longer) })
	drain(t, b)
	timeline := func(company int64, id string) []parley.TimelineEntry {
		return get(t, b, func(tx parley.Tx) ([]parley.TimelineEntry, error) { return tx.ChatTimeline(company, id) })
	}
	length := func(company int64, id string) int {
		return get(t, b, func(tx parley.Tx) (int, error) { return tx.TimelineLength(company, id) })
	}
	assert.Nil(t, timeline(1, chat.ID))
	assert.Zero(t, length(1, chat.ID))

	entries := []parley.TimelineEntry{
		{Type: "page-viewed", Timestamp: clock, URL: "https://shop.example.com/", Title: "Shop"},
		{Type: "page-viewed", Timestamp: at(1), URL: "https://shop.example.com/orders/42?tab=items", Title: "Order \"42\" \u00e9"},
		{Type: "cart", Timestamp: at(2), URL: "http://shop.example.com/cart"},
		{Type: "page-viewed", Timestamp: at(3), URL: "https://shop.example.com/help", Title: "Help"},
	}
	add := func(id string, e parley.TimelineEntry) func(tx parley.Tx) error {
		return func(tx parley.Tx) error { return tx.PutTimelineEntry(1, id, e) }
	}
	put(t, b, add(chat.ID, entries[0]))
	put(t, b, add(chat.ID, entries[1]), add(longer.ID, entries[3]), add(chat.ID, entries[2])) // two of one chat in one write
	assert.Equal(t, entries[:3], timeline(1, chat.ID), "in the order added")
	assert.Equal(t, 3, length(1, chat.ID))
	assert.Equal(t, entries[3:], timeline(1, longer.ID), "an id that extends another's is another chat")
	assert.Equal(t, 1, length(1, longer.ID))
	assert.Nil(t, timeline(2, chat.ID), "another company's chat")
	assert.Zero(t, length(2, chat.ID))
	assert.Empty(t, drain(t, b), "a timeline entry is not indexed")
	assert.Equal(t, chat, get(t, b, func(tx parley.Tx) (*parley.Chat, error) { return tx.Chat(1, chat.ID) }), "the chat is not rewritten")
}
