package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	parley "github.com/parley/parley"
)

// Buckets of webhooks and their deliveries.
var (
	bucketWebhooks          = newBucket("webhooks")                      // id -> webhook
	bucketWebhooksByCompany = newBucket("webhooks_by_company")           // company, id -> nil
	bucketDeliveries        = newBucket("webhook_deliveries")            // id -> delivery
	bucketDeliveriesByHook  = newBucket("webhook_deliveries_by_webhook") // webhook, delivery -> nil
	// bucketDeliveryQueue orders the queued (not final) deliveries of a
	// webhook per order key: webhook, order key, 0, delivery -> nil. The
	// first key of a (webhook, order key) prefix is the only one sent.
	bucketDeliveryQueue = newBucket("webhook_delivery_queue")
	// bucketDeliveriesDue lists queued, unpaused deliveries by the time of
	// their next attempt: time (Unix ns), delivery -> nil.
	bucketDeliveriesDue = newBucket("webhook_deliveries_due")
)

// Webhook loads a webhook of a company.
func (t *Tx) Webhook(companyID, id int64) (*parley.Webhook, error) {
	return scoped(t, bucketWebhooks, id, func(w *parley.Webhook) int64 { return w.CompanyID }, companyID, "webhook")
}

// Webhooks lists a company's webhooks in id order.
func (t *Tx) Webhooks(companyID int64) ([]parley.Webhook, error) {
	var out []parley.Webhook
	c := t.tx.Bucket(bucketWebhooksByCompany).Cursor()
	prefix := key(companyID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		var w parley.Webhook
		if found, err := t.get(bucketWebhooks, k[8:], &w); err != nil || !found {
			return nil, fmt.Errorf("storage: webhook key %x without a webhook: %w", k, err)
		}
		out = append(out, w)
	}
	return out, nil
}

// PutWebhook stores a webhook, assigning an id when ID is 0.
func (t *Tx) PutWebhook(w *parley.Webhook) error {
	if err := t.assignOrKeepID(bucketWebhooks, &w.ID); err != nil {
		return err
	}
	if err := t.tx.Bucket(bucketWebhooksByCompany).Put(key2(w.CompanyID, w.ID), nil); err != nil {
		return err
	}
	return t.put(bucketWebhooks, key(w.ID), w)
}

// DeleteWebhook removes a webhook with its deliveries.
func (t *Tx) DeleteWebhook(w *parley.Webhook) error {
	for _, id := range t.deliveryIDs(w.ID) {
		var d parley.Delivery
		if found, err := t.get(bucketDeliveries, key(id), &d); err != nil || !found {
			return fmt.Errorf("storage: delivery %d of webhook %d: %w", id, w.ID, err)
		}
		if err := t.unqueue(&d); err != nil {
			return err
		}
		if err := t.tx.Bucket(bucketDeliveries).Delete(key(id)); err != nil {
			return err
		}
		if err := t.tx.Bucket(bucketDeliveriesByHook).Delete(key2(w.ID, id)); err != nil {
			return err
		}
	}
	if err := t.tx.Bucket(bucketWebhooksByCompany).Delete(key2(w.CompanyID, w.ID)); err != nil {
		return err
	}
	return t.tx.Bucket(bucketWebhooks).Delete(key(w.ID))
}

// deliveryIDs lists a webhook's deliveries, oldest first.
func (t *Tx) deliveryIDs(webhookID int64) []int64 {
	var ids []int64
	c := t.tx.Bucket(bucketDeliveriesByHook).Cursor()
	prefix := key(webhookID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, idOf(k[8:]))
	}
	return ids
}

// Delivery loads a delivery of a company's webhook.
func (t *Tx) Delivery(companyID, webhookID, id int64) (*parley.Delivery, error) {
	d := new(parley.Delivery)
	found, err := t.get(bucketDeliveries, key(id), d)
	if err != nil {
		return nil, err
	}
	if !found || d.CompanyID != companyID || d.WebhookID != webhookID {
		return nil, parley.NotFound("delivery")
	}
	return d, nil
}

// Deliveries pages through a webhook's deliveries, newest first, and
// counts them all.
func (t *Tx) Deliveries(companyID, webhookID int64, offset, limit int) ([]parley.Delivery, int, error) {
	ids := t.deliveryIDs(webhookID)
	slices.Reverse(ids)
	total := len(ids)
	ids = ids[min(offset, total):min(offset+limit, total)]
	out := make([]parley.Delivery, 0, len(ids))
	for _, id := range ids {
		d, err := t.Delivery(companyID, webhookID, id)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, *d)
	}
	return out, total, nil
}

// PutDelivery stores a delivery, assigning an id when ID is 0, and keeps
// its queue and due keys in step with its status.
func (t *Tx) PutDelivery(d *parley.Delivery) error {
	t.webhookWork = true
	if d.ID == 0 {
		id, err := t.nextID(bucketDeliveries)
		if err != nil {
			return err
		}
		d.ID = id
		if err := t.tx.Bucket(bucketDeliveriesByHook).Put(key2(d.WebhookID, d.ID), nil); err != nil {
			return err
		}
	} else {
		var old parley.Delivery
		found, err := t.get(bucketDeliveries, key(d.ID), &old)
		if err != nil {
			return err
		}
		if found {
			if err := t.unqueue(&old); err != nil {
				return err
			}
		} else if err := t.tx.Bucket(bucketDeliveriesByHook).Put(key2(d.WebhookID, d.ID), nil); err != nil {
			return err // a new delivery with its id (a copy)
		}
	}
	if !d.Final() {
		if err := t.tx.Bucket(bucketDeliveryQueue).Put(queueKey(d), nil); err != nil {
			return err
		}
		if !d.Paused {
			if err := t.tx.Bucket(bucketDeliveriesDue).Put(dueKey(d), nil); err != nil {
				return err
			}
		}
	}
	return t.put(bucketDeliveries, key(d.ID), d)
}

// unqueue removes a delivery's queue and due keys (absent keys are fine).
func (t *Tx) unqueue(d *parley.Delivery) error {
	if err := t.tx.Bucket(bucketDeliveryQueue).Delete(queueKey(d)); err != nil {
		return err
	}
	return t.tx.Bucket(bucketDeliveriesDue).Delete(dueKey(d))
}

func queuePrefix(d *parley.Delivery) []byte {
	return append(append(key(d.WebhookID), d.OrderKey...), 0)
}

func queueKey(d *parley.Delivery) []byte { return append(queuePrefix(d), key(d.ID)...) }

func dueKey(d *parley.Delivery) []byte { return timeIDKey(d.NextAttemptAt, d.ID) }

// SetDeliveriesPaused pauses (a webhook was disabled) or resumes, due at
// now, every queued delivery of a webhook.
func (t *Tx) SetDeliveriesPaused(companyID, webhookID int64, paused bool, now time.Time) error {
	for _, id := range t.deliveryIDs(webhookID) {
		d, err := t.Delivery(companyID, webhookID, id)
		if err != nil {
			return err
		}
		if !d.SetPaused(paused, now) {
			continue
		}
		if err := t.PutDelivery(d); err != nil {
			return err
		}
	}
	return nil
}

// DueDeliveries lists up to max deliveries to attempt at now: due,
// unpaused, and each the oldest queued delivery of its webhook and order
// key (so events about one record reach a webhook in commit order).
func (t *Tx) DueDeliveries(now time.Time, max int) ([]parley.Delivery, error) {
	var out []parley.Delivery
	queue := t.tx.Bucket(bucketDeliveryQueue).Cursor()
	c := t.tx.Bucket(bucketDeliveriesDue).Cursor()
	limit := uint64(now.UnixNano())
	for k, _ := c.First(); k != nil && len(out) < max; k, _ = c.Next() {
		if binary.BigEndian.Uint64(k) > limit {
			break
		}
		var d parley.Delivery
		found, err := t.get(bucketDeliveries, key(idOf(k[8:])), &d)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("storage: due key %x without a delivery", k)
		}
		if head, _ := queue.Seek(queuePrefix(&d)); bytes.Equal(head, queueKey(&d)) {
			out = append(out, d)
		}
	}
	return out, nil
}

// NextDeliveryAt is when the earliest delivery that heads its queue is
// due (a delivery queued behind another waits for it, so it does not count),
// and false when none is queued and unpaused.
func (t *Tx) NextDeliveryAt() (time.Time, bool, error) {
	next, err := t.DueDeliveries(time.Unix(0, math.MaxInt64), 1)
	if err != nil || len(next) == 0 {
		return time.Time{}, false, err
	}
	return next[0].NextAttemptAt, true, nil
}

// HasPendingEvents reports whether recorded events wait to be turned into
// deliveries.
func (t *Tx) HasPendingEvents() bool {
	k, _ := t.tx.Bucket(bucketEvents).Cursor().First()
	return k != nil
}

// PendingEvents lists up to max recorded events not yet turned into
// deliveries, oldest first.
func (t *Tx) PendingEvents(max int) ([]parley.RecordedEvent, error) {
	var out []parley.RecordedEvent
	c := t.tx.Bucket(bucketEvents).Cursor()
	for k, v := c.First(); k != nil && len(out) < max; k, v = c.Next() {
		e := parley.RecordedEvent{Seq: uint64(idOf(k))}
		if err := decode(bucketEvents, v, &e.Event); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// DeleteEvent removes a company's event once its deliveries are stored;
// an event of another company stays.
func (t *Tx) DeleteEvent(companyID int64, seq uint64) error {
	var e parley.Event
	found, err := t.get(bucketEvents, key(int64(seq)), &e)
	if err != nil || !found || e.CompanyID != companyID {
		return err
	}
	return t.tx.Bucket(bucketEvents).Delete(key(int64(seq)))
}
