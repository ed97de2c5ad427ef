package pgstore

import (
	"math"
	"time"

	parley "github.com/parley/parley"
)

var (
	sqlWebhook    = stmt(`SELECT w.body FROM webhooks w WHERE w.company_id = $1 AND w.id = $2`)
	sqlWebhooks   = stmt(`SELECT w.body FROM webhooks w WHERE w.company_id = $1 ORDER BY w.id`)
	sqlPutWebhook = stmt(`INSERT INTO webhooks (company_id, id, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, id) DO UPDATE SET body = EXCLUDED.body`)
	sqlDeleteWebhook = stmt(`DELETE FROM webhooks w WHERE w.company_id = $1 AND w.id = $2`)

	sqlDelivery         = stmt(`SELECT d.body FROM deliveries d WHERE d.company_id = $1 AND d.webhook_id = $2 AND d.id = $3`)
	sqlDeliveriesPage   = stmt(`SELECT d.body FROM deliveries d WHERE d.company_id = $1 AND d.webhook_id = $2 ORDER BY d.id DESC OFFSET $3 LIMIT $4`)
	sqlDeliveryCount    = stmt(`SELECT count(*) FROM deliveries d WHERE d.company_id = $1 AND d.webhook_id = $2`)
	sqlQueuedDeliveries = stmt(`SELECT d.body FROM deliveries d WHERE d.company_id = $1 AND d.webhook_id = $2 AND d.queued ORDER BY d.id`)
	sqlPutDelivery      = stmt(`INSERT INTO deliveries (company_id, webhook_id, id, order_key, queued, due_ns, body) VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (company_id, webhook_id, id) DO UPDATE SET order_key = EXCLUDED.order_key, queued = EXCLUDED.queued,
due_ns = EXCLUDED.due_ns, body = EXCLUDED.body`)
	sqlDeleteDeliveries = stmt(`DELETE FROM deliveries d WHERE d.company_id = $1 AND d.webhook_id = $2`)
	// The webhook dispatcher's queue: due, unpaused deliveries of every
	// company that head their webhook's queue for their order key (no
	// older queued delivery before them), earliest due first.
	sqlDueDeliveries = stmt(`SELECT d.body, d.due_ns FROM deliveries d WHERE d.due_ns <= $1 AND NOT EXISTS (
SELECT 1 FROM deliveries q WHERE q.company_id = d.company_id AND q.webhook_id = d.webhook_id AND q.order_key = d.order_key
AND q.queued AND q.id < d.id) ORDER BY d.due_ns, d.id LIMIT $2 ` + AllCompanies)
)

// Webhook loads a webhook of a company.
func (t *Tx) Webhook(companyID, id int64) (*parley.Webhook, error) {
	return one[parley.Webhook](t, "webhook", sqlWebhook, companyID, id)
}

// Webhooks lists a company's webhooks in id order.
func (t *Tx) Webhooks(companyID int64) ([]parley.Webhook, error) {
	return many[parley.Webhook](t, sqlWebhooks, companyID)
}

// PutWebhook stores a webhook, assigning an id when ID is 0.
func (t *Tx) PutWebhook(w *parley.Webhook) error {
	if err := t.assignOrKeepID(webhookIDs, &w.ID, w.CompanyID, func() (bool, error) { return absent(t.Webhook(w.CompanyID, w.ID)) }); err != nil {
		return err
	}
	return t.put(sqlPutWebhook, w, w.CompanyID, w.ID)
}

// DeleteWebhook removes a webhook with its deliveries.
func (t *Tx) DeleteWebhook(w *parley.Webhook) error {
	if err := t.exec(sqlDeleteDeliveries, w.CompanyID, w.ID); err != nil {
		return err
	}
	return t.exec(sqlDeleteWebhook, w.CompanyID, w.ID)
}

// Delivery loads a delivery of a company's webhook.
func (t *Tx) Delivery(companyID, webhookID, id int64) (*parley.Delivery, error) {
	return one[parley.Delivery](t, "delivery", sqlDelivery, companyID, webhookID, id)
}

// Deliveries pages through a webhook's deliveries, newest first, and
// counts them all.
func (t *Tx) Deliveries(companyID, webhookID int64, offset, limit int) ([]parley.Delivery, int, error) {
	total := t.countOf(sqlDeliveryCount, companyID, webhookID)
	page, err := many[parley.Delivery](t, sqlDeliveriesPage, companyID, webhookID, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	if page == nil {
		page = []parley.Delivery{} // an empty page, as the embedded store answers
	}
	return page, total, nil
}

// PutDelivery stores a delivery, assigning an id when ID is 0; it stays
// queued while not final, and due at its next attempt unless paused.
func (t *Tx) PutDelivery(d *parley.Delivery) error {
	t.webhookWork = true
	if err := t.assignID(seqDeliveries, &d.ID); err != nil {
		return err
	}
	queued := !d.Final()
	return t.put(sqlPutDelivery, d, d.CompanyID, d.WebhookID, d.ID, keyText(d.OrderKey), queued, dueAt(queued && !d.Paused, d.NextAttemptAt))
}

// SetDeliveriesPaused pauses (a webhook was disabled) or resumes, due at
// now, every queued delivery of a webhook.
func (t *Tx) SetDeliveriesPaused(companyID, webhookID int64, paused bool, now time.Time) error {
	queued, err := many[parley.Delivery](t, sqlQueuedDeliveries, companyID, webhookID)
	if err != nil {
		return err
	}
	for i := range queued {
		d := &queued[i]
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
	return collect(t, dueRow(func(d *parley.Delivery) *time.Time { return &d.NextAttemptAt }), sqlDueDeliveries, now.UnixNano(), max)
}

// NextDeliveryAt is when the earliest delivery that heads its queue is
// due, and false when none is queued and unpaused.
func (t *Tx) NextDeliveryAt() (time.Time, bool, error) {
	next, err := t.DueDeliveries(time.Unix(0, math.MaxInt64), 1)
	if err != nil || len(next) == 0 {
		return time.Time{}, false, err
	}
	return next[0].NextAttemptAt, true, nil
}
