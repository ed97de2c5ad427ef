package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// The queues the background workers drain: each lists the work of every
// company in the order it is due, and bounds what it answers.

// testEventQueue: recorded events wait, of every company, in the order
// they were recorded, until deleted; deleting keeps to the company.
func testEventQueue(t *testing.T, b Backend) {
	pending := func() bool {
		var has bool
		view(t, b, func(tx parley.Tx) error { has = tx.HasPendingEvents(); return nil })
		return has
	}
	list := func(max int) []parley.RecordedEvent {
		return get(t, b, func(tx parley.Tx) ([]parley.RecordedEvent, error) { return tx.PendingEvents(max) })
	}
	assert.False(t, pending())
	assert.Empty(t, list(10))

	events := []parley.Event{
		{Kind: "convo.created", CompanyID: 1, ResourceID: "10", At: clock},
		{Kind: "customer.created", CompanyID: 2, ResourceID: "20", At: at(1)},
		{Kind: "convo.assigned", CompanyID: 1, ResourceID: "10", At: at(2)},
	}
	for _, e := range events {
		put(t, b, func(tx parley.Tx) error { return tx.PutEvent(e) })
	}
	assert.True(t, pending())
	got := list(10)
	require.Len(t, got, 3)
	for i, e := range got {
		assert.Equal(t, events[i], e.Event, "in the order recorded")
		if i > 0 {
			assert.Greater(t, e.Seq, got[i-1].Seq)
		}
	}
	assert.Equal(t, got[:2], list(2), "at most max")

	put(t, b, func(tx parley.Tx) error { return tx.DeleteEvent(2, got[0].Seq) })
	assert.Equal(t, got, list(10), "another company's event stays")
	put(t, b, func(tx parley.Tx) error { return tx.DeleteEvent(1, got[0].Seq) }, func(tx parley.Tx) error { return tx.DeleteEvent(2, got[1].Seq) })
	assert.Equal(t, got[2:], list(10))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteEvent(1, got[2].Seq) })
	assert.False(t, pending())
}

// testDeliveryQueue: due deliveries come earliest first, of every
// company, each only when it heads its webhook's queue for its order key;
// paused and final ones wait out of it.
func testDeliveryQueue(t *testing.T, b Backend) {
	hook, other, elsewhere := newWebhook(1, "hook"), newWebhook(1, "other"), newWebhook(2, "elsewhere")
	put(t, b, func(tx parley.Tx) error { return tx.PutWebhook(hook) }, func(tx parley.Tx) error { return tx.PutWebhook(other) },
		func(tx parley.Tx) error { return tx.PutWebhook(elsewhere) })
	event := func(company int64, resource string) parley.Event {
		return parley.Event{Kind: "convo.created", CompanyID: company, ResourceID: resource}
	}
	// first and behind are about one conversation for one webhook: behind
	// waits for first, though due earlier.
	first := parley.NewDelivery(hook, event(1, "9"), []byte(`{"n":1}`), at(5))
	behind := parley.NewDelivery(hook, event(1, "9"), []byte(`{"n":2}`), at(1))
	apart := parley.NewDelivery(hook, event(1, "8"), nil, at(3))
	sameKey := parley.NewDelivery(other, event(1, "9"), nil, at(4))
	foreign := parley.NewDelivery(elsewhere, event(2, "9"), nil, at(2))
	paused := parley.NewDelivery(other, event(1, "7"), nil, at(0))
	paused.Paused = true
	done := parley.NewDelivery(other, event(1, "6"), nil, at(0))
	done.Status, done.DeliveredAt = parley.DeliveryDelivered, ptr(at(0))
	put(t, b, func(tx parley.Tx) error {
		for _, d := range []*parley.Delivery{first, behind, apart, sameKey, foreign, paused, done} {
			if err := tx.PutDelivery(d); err != nil {
				return err
			}
		}
		return nil
	})
	due := func(now time.Time, max int) []parley.Delivery {
		return get(t, b, func(tx parley.Tx) ([]parley.Delivery, error) { return tx.DueDeliveries(now, max) })
	}
	next := func() (time.Time, bool) {
		var when time.Time
		var ok bool
		view(t, b, func(tx parley.Tx) (err error) { when, ok, err = tx.NextDeliveryAt(); return err })
		return when, ok
	}

	for _, c := range []struct {
		name string
		now  time.Time
		max  int
		want []parley.Delivery
	}{
		{"nothing due yet", at(1), 10, nil},
		{"due at now, of every company", at(3), 10, []parley.Delivery{*foreign, *apart}},
		{"earliest first, the queue's head only", at(10), 10, []parley.Delivery{*foreign, *apart, *sameKey, *first}},
		{"at most max", at(10), 2, []parley.Delivery{*foreign, *apart}},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, due(c.now, c.max)) })
	}
	when, ok := next()
	assert.True(t, ok)
	assert.True(t, at(2).Equal(when), "the earliest head of a queue: %v", when)

	first.Status, first.DeliveredAt = parley.DeliveryDelivered, ptr(at(6))
	foreign.Paused = true
	put(t, b, func(tx parley.Tx) error { return tx.PutDelivery(first) }, func(tx parley.Tx) error { return tx.PutDelivery(foreign) })
	assert.Equal(t, []parley.Delivery{*behind, *apart, *sameKey}, due(at(10), 10), "a final delivery frees the next of its key")
	when, _ = next()
	assert.True(t, at(1).Equal(when), "%v", when)

	for _, d := range []*parley.Delivery{behind, apart, sameKey} {
		d.Status = parley.DeliveryDead
	}
	put(t, b, func(tx parley.Tx) error { return tx.PutDelivery(behind) }, func(tx parley.Tx) error { return tx.PutDelivery(apart) },
		func(tx parley.Tx) error { return tx.PutDelivery(sameKey) })
	assert.Empty(t, due(at(10), 10))
	_, ok = next()
	assert.False(t, ok, "only paused deliveries are left")
}

// testMailQueue: e-mails wait, of every company, earliest due first,
// until final; each is loaded by its company.
func testMailQueue(t *testing.T, b Backend) {
	c := newConversation(1, 7, 2)
	put(t, b, func(tx parley.Tx) error { return tx.PutConversation(c) })
	mail := func(company int64, subject string, due time.Time) *parley.Mail {
		return &parley.Mail{CompanyID: company, MailboxID: 2, ConversationID: c.ID, ThreadID: 5, Kind: parley.MailReply,
			MessageID: subject + "@example.com", Subject: subject, Status: parley.MailQueued, CreatedAt: clock, NextAttemptAt: due}
	}
	late, early, foreign := mail(1, "late", at(30)), mail(1, "early", at(10)), mail(2, "foreign", at(20))
	put(t, b, func(tx parley.Tx) error { return tx.PutMail(late) }, func(tx parley.Tx) error { return tx.PutMail(early) },
		func(tx parley.Tx) error { return tx.PutMail(foreign) })

	assert.Equal(t, early, get(t, b, func(tx parley.Tx) (*parley.Mail, error) { return tx.Mail(1, early.ID) }))
	notFound(t, b, "another company's e-mail", func(tx parley.Tx) error { _, err := tx.Mail(2, early.ID); return err })
	notFound(t, b, "no e-mail", func(tx parley.Tx) error { _, err := tx.Mail(1, late.ID+100); return err })

	due := func(now time.Time, max int) []parley.Mail {
		return get(t, b, func(tx parley.Tx) ([]parley.Mail, error) { return tx.DueMail(now, max) })
	}
	next := func() (time.Time, bool) {
		var when time.Time
		var ok bool
		view(t, b, func(tx parley.Tx) error { when, ok = tx.NextMailAt(); return nil })
		return when, ok
	}
	for _, c := range []struct {
		name string
		now  time.Time
		max  int
		want []parley.Mail
	}{
		{"nothing due yet", at(5), 10, nil},
		{"due at now", at(10), 10, []parley.Mail{*early}},
		{"earliest first, of every company", at(60), 10, []parley.Mail{*early, *foreign, *late}},
		{"at most max", at(60), 2, []parley.Mail{*early, *foreign}},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, due(c.now, c.max)) })
	}
	when, ok := next()
	assert.True(t, ok)
	assert.True(t, at(10).Equal(when), "%v", when)

	early.Status, early.SentAt = parley.MailSent, ptr(at(11))
	late.NextAttemptAt = at(15)
	put(t, b, func(tx parley.Tx) error { return tx.PutMail(early) }, func(tx parley.Tx) error { return tx.PutMail(late) })
	assert.Equal(t, []parley.Mail{*late, *foreign}, due(at(60), 10), "a sent e-mail leaves; a retry moves")
	when, _ = next()
	assert.True(t, at(15).Equal(when), "%v", when)

	late.Status, foreign.Status = parley.MailBounced, parley.MailBounced
	put(t, b, func(tx parley.Tx) error { return tx.PutMail(late) }, func(tx parley.Tx) error { return tx.PutMail(foreign) })
	_, ok = next()
	assert.False(t, ok, "none waits")
}
