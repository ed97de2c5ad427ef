package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func newWebhook(company int64, label string) *parley.Webhook {
	return &parley.Webhook{CompanyID: company, URL: "https://hooks.example/" + label, Label: label, Events: []string{"convo.created"},
		MailboxIDs: []int64{2}, Notification: true, PayloadVersion: "V2", Secret: "s", State: parley.WebhookEnabled,
		LastSuccessAt: ptr(at(1)), CreatedAt: clock, UpdatedAt: at(2)}
}

func testWebhooks(t *testing.T, b Backend) {
	first, second, other := newWebhook(1, "first"), newWebhook(1, "second"), newWebhook(2, "other")
	put(t, b, func(tx parley.Tx) error { return tx.PutWebhook(first) }, func(tx parley.Tx) error { return tx.PutWebhook(second) },
		func(tx parley.Tx) error { return tx.PutWebhook(other) })
	require.NotZero(t, first.ID)
	assert.Greater(t, second.ID, first.ID)
	assert.Equal(t, first, get(t, b, func(tx parley.Tx) (*parley.Webhook, error) { return tx.Webhook(1, first.ID) }))
	notFound(t, b, "another company's webhook", func(tx parley.Tx) error { _, err := tx.Webhook(2, first.ID); return err })
	assert.Equal(t, []parley.Webhook{*first, *second}, get(t, b, func(tx parley.Tx) ([]parley.Webhook, error) { return tx.Webhooks(1) }))

	second.State, second.DisabledAt, second.DisabledReason = parley.WebhookDisabled, ptr(at(3)), "failing"
	put(t, b, func(tx parley.Tx) error { return tx.PutWebhook(second) })
	assert.Equal(t, second, get(t, b, func(tx parley.Tx) (*parley.Webhook, error) { return tx.Webhook(1, second.ID) }))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteWebhook(first) })
	notFound(t, b, "a deleted webhook", func(tx parley.Tx) error { _, err := tx.Webhook(1, first.ID); return err })
	assert.Equal(t, []parley.Webhook{*second}, get(t, b, func(tx parley.Tx) ([]parley.Webhook, error) { return tx.Webhooks(1) }))
}

// testDeliveries: a webhook's deliveries page newest first with their
// total; pausing and resuming touch the queued ones only, resumed due now;
// deleting the webhook deletes them.
func testDeliveries(t *testing.T, b Backend) {
	hook, other := newWebhook(1, "hook"), newWebhook(1, "other")
	put(t, b, func(tx parley.Tx) error { return tx.PutWebhook(hook) }, func(tx parley.Tx) error { return tx.PutWebhook(other) })
	var ds []*parley.Delivery
	for i := range 4 {
		d := parley.NewDelivery(hook, parley.Event{Kind: "convo.created", CompanyID: 1, ResourceID: "9"}, []byte(`{"n":1}`), at(i))
		d.LatencyMS, d.LastError = 5, "e"
		ds = append(ds, d)
	}
	ds[0].Status, ds[0].DeliveredAt = parley.DeliveryDelivered, ptr(at(1))
	stray := parley.NewDelivery(other, parley.Event{Kind: "convo.created", CompanyID: 1, ResourceID: "9"}, nil, clock)
	put(t, b, func(tx parley.Tx) error {
		for _, d := range append(ds, stray) {
			if err := tx.PutDelivery(d); err != nil {
				return err
			}
		}
		return nil
	})
	require.NotZero(t, ds[0].ID)
	assert.Greater(t, ds[1].ID, ds[0].ID)
	assert.Equal(t, ds[2], get(t, b, func(tx parley.Tx) (*parley.Delivery, error) { return tx.Delivery(1, hook.ID, ds[2].ID) }))
	notFound(t, b, "another webhook's delivery", func(tx parley.Tx) error { _, err := tx.Delivery(1, other.ID, ds[2].ID); return err })
	notFound(t, b, "another company's delivery", func(tx parley.Tx) error { _, err := tx.Delivery(2, hook.ID, ds[2].ID); return err })

	page := func(offset, limit int) ([]parley.Delivery, int) {
		var list []parley.Delivery
		var total int
		view(t, b, func(tx parley.Tx) error {
			var err error
			list, total, err = tx.Deliveries(1, hook.ID, offset, limit)
			return err
		})
		return list, total
	}
	list, total := page(1, 2)
	assert.Equal(t, 4, total)
	assert.Equal(t, []parley.Delivery{*ds[2], *ds[1]}, list, "newest first")
	list, total = page(10, 2)
	assert.Equal(t, 4, total)
	assert.Equal(t, []parley.Delivery{}, list, "past the end")

	put(t, b, func(tx parley.Tx) error { return tx.SetDeliveriesPaused(1, hook.ID, true, at(50)) })
	for _, d := range ds[1:] {
		d.Paused = true
	}
	list, _ = page(0, 10)
	assert.Equal(t, []parley.Delivery{*ds[3], *ds[2], *ds[1], *ds[0]}, list, "queued deliveries pause; delivered ones stay")
	put(t, b, func(tx parley.Tx) error { return tx.SetDeliveriesPaused(1, hook.ID, false, at(60)) })
	for _, d := range ds[1:] {
		d.Paused, d.NextAttemptAt = false, at(60)
	}
	list, _ = page(0, 10)
	assert.Equal(t, []parley.Delivery{*ds[3], *ds[2], *ds[1], *ds[0]}, list, "resumed, due now")
	assert.Equal(t, stray, get(t, b, func(tx parley.Tx) (*parley.Delivery, error) { return tx.Delivery(1, other.ID, stray.ID) }),
		"another webhook's deliveries are untouched")

	put(t, b, func(tx parley.Tx) error { return tx.DeleteWebhook(hook) })
	notFound(t, b, "a deleted webhook's delivery", func(tx parley.Tx) error { _, err := tx.Delivery(1, hook.ID, ds[2].ID); return err })
	list, total = page(0, 10)
	assert.Equal(t, []parley.Delivery{}, list)
	assert.Zero(t, total)
}
