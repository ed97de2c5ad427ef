package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// testTransactions: Update commits when fn returns nil and rolls back
// otherwise, touching nothing then; a committed write touches its records
// in order. A store with an index outbox (Outboxed) also returns from
// Update the highest sequence its write queued (0 when none), which
// LastOutboxSeq then reports, and its outbox reads after a sequence, at
// most max, oldest first, and forgets what is acknowledged; a store
// without one returns 0.
func testTransactions(t *testing.T, b Backend) {
	outbox, outboxed := b.(Outboxed)
	if outboxed {
		last, err := outbox.LastOutboxSeq()
		require.NoError(t, err)
		assert.Zero(t, last, "a new store has queued nothing")
	}

	seq := put(t, b, func(tx parley.Tx) error { return tx.PutCompany(&parley.Company{Name: "Acme", CreatedAt: clock}) })
	assert.Zero(t, seq, "a write that queues no index work")

	refused := errors.New("refused")
	_, err := b.Store().Update(context.Background(), func(tx parley.Tx) error {
		if err := tx.PutTag(&parley.Tag{CompanyID: 1, Name: "dropped"}); err != nil {
			return err
		}
		if err := tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Dropped"}); err != nil {
			return err
		}
		return refused
	})
	require.ErrorIs(t, err, refused)
	assert.Empty(t, get(t, b, func(tx parley.Tx) ([]parley.Tag, error) { return tx.Tags(1) }), "a failed write leaves nothing")
	assert.Empty(t, drain(t, b), "and touches nothing")

	var ids []int64
	seq = update(t, b, func(tx parley.Tx) error {
		for _, name := range []string{"Ann", "Bob", "Cy"} {
			c := &parley.Customer{CompanyID: 1, FirstName: name, CreatedAt: clock}
			if err := tx.PutCustomer(c); err != nil {
				return err
			}
			ids = append(ids, c.ID)
		}
		return nil
	})
	if !outboxed {
		assert.Zero(t, seq, "no outbox, no sequence")
		assert.Equal(t, []parley.OutboxEntry{entry(parley.OutboxCustomer, 1, ids[0]), entry(parley.OutboxCustomer, 1, ids[1]),
			entry(parley.OutboxCustomer, 1, ids[2])}, drain(t, b), "the records touched, in order")
	} else {
		last, err := outbox.LastOutboxSeq()
		require.NoError(t, err)
		assert.Equal(t, last, seq, "Update returns the highest sequence it queued")

		all, err := outbox.Outbox(0, 10)
		require.NoError(t, err)
		require.Len(t, all, 3)
		assert.Equal(t, seq, all[2].Seq)
		for i, e := range all {
			assert.Equal(t, entry(parley.OutboxCustomer, 1, ids[i]), parley.OutboxEntry{Kind: e.Kind, Company: e.Company, ID: e.ID})
			if i > 0 {
				assert.Greater(t, e.Seq, all[i-1].Seq, "entries come in sequence order")
			}
		}
		page, err := outbox.Outbox(all[0].Seq, 1)
		require.NoError(t, err)
		assert.Equal(t, all[1:2], page, "after a sequence, at most max")

		require.NoError(t, outbox.AckOutbox(all[:2]))
		rest, err := outbox.Outbox(0, 10)
		require.NoError(t, err)
		assert.Equal(t, all[2:], rest, "acknowledged entries are gone")
		require.NoError(t, outbox.AckOutbox(rest))
		last, err = outbox.LastOutboxSeq()
		require.NoError(t, err)
		assert.Equal(t, seq, last, "the last sequence outlives its entries")

		next := put(t, b, func(tx parley.Tx) error { return tx.PutCustomer(&parley.Customer{CompanyID: 1, FirstName: "Di"}) })
		assert.Greater(t, next, seq, "sequences keep growing")
	}

	view(t, b, func(tx parley.Tx) error {
		c, err := tx.Customer(1, ids[1])
		require.NoError(t, err)
		assert.Equal(t, "Bob", c.FirstName, "a read sees committed writes")
		return nil
	})
}

// testWalks: the walks over every record of every company find each once
// (the walks of ids with its company), and stop early, without error, when
// fn returns parley.ErrStop.
func testWalks(t *testing.T, b Backend) {
	var customers, conversations []int64
	companyOf := map[parley.OutboxEntry]int64{} // a record's company, by its kind and id
	put(t, b, func(tx parley.Tx) error {
		for _, company := range []int64{1, 2} {
			if err := tx.PutCompany(&parley.Company{Name: "Co", CreatedAt: clock}); err != nil {
				return err
			}
			for range 3 {
				cu := &parley.Customer{CompanyID: company, FirstName: "C"}
				if err := tx.PutCustomer(cu); err != nil {
					return err
				}
				customers = append(customers, cu.ID)
				companyOf[entry(parley.OutboxCustomer, 0, cu.ID)] = company
				c := &parley.Conversation{CompanyID: company, CustomerID: cu.ID, MailboxID: 1, State: parley.StatePublished}
				if err := tx.PutConversation(c); err != nil {
					return err
				}
				conversations = append(conversations, c.ID)
				companyOf[entry(parley.OutboxConversation, 0, c.ID)] = company
				chat := &parley.Chat{ID: "chat-" + string(rune('a'+len(conversations))), CompanyID: company}
				if err := tx.PutChat(chat); err != nil {
					return err
				}
				companyOf[parley.OutboxEntry{Kind: parley.OutboxChat, Ref: chat.ID}] = company
			}
		}
		return nil
	})
	view(t, b, func(tx parley.Tx) error {
		var seenCustomers, seenCustomerIDs, seenConversations, seenConversationIDs []int64
		var seenChats []string
		require.NoError(t, tx.EachCustomer(func(c *parley.Customer) error { seenCustomers = append(seenCustomers, c.ID); return nil }))
		require.NoError(t, tx.EachCustomerID(func(company, id int64) {
			seenCustomerIDs = append(seenCustomerIDs, id)
			assert.Equal(t, companyOf[entry(parley.OutboxCustomer, 0, id)], company, "customer %d's company", id)
		}))
		require.NoError(t, tx.EachConversation(func(c *parley.Conversation) error {
			seenConversations = append(seenConversations, c.ID)
			return nil
		}))
		require.NoError(t, tx.EachConversationID(func(company, id int64) {
			seenConversationIDs = append(seenConversationIDs, id)
			assert.Equal(t, companyOf[entry(parley.OutboxConversation, 0, id)], company, "conversation %d's company", id)
		}))
		require.NoError(t, tx.EachChatID(func(company int64, id string) {
			seenChats = append(seenChats, id)
			assert.Equal(t, companyOf[parley.OutboxEntry{Kind: parley.OutboxChat, Ref: id}], company, "chat %s's company", id)
		}))
		assert.ElementsMatch(t, customers, seenCustomers)
		assert.ElementsMatch(t, customers, seenCustomerIDs)
		assert.ElementsMatch(t, conversations, seenConversations)
		assert.ElementsMatch(t, conversations, seenConversationIDs)
		assert.ElementsMatch(t, []string{"chat-b", "chat-c", "chat-d", "chat-e", "chat-f", "chat-g"}, seenChats)

		n := 0
		require.NoError(t, tx.EachCustomer(func(*parley.Customer) error { n++; return parley.ErrStop }))
		assert.Equal(t, 1, n, "ErrStop ends the walk")
		n = 0
		require.NoError(t, tx.EachConversation(func(*parley.Conversation) error { n++; return parley.ErrStop }))
		assert.Equal(t, 1, n, "ErrStop ends the walk")
		failed := errors.New("failed")
		assert.ErrorIs(t, tx.EachConversation(func(*parley.Conversation) error { return failed }), failed)
		return nil
	})
}
