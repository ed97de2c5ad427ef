package parley

import (
	"fmt"
	"time"
)

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// Delivery statuses. Pending and retrying deliveries are queued; delivered
// and dead ones are final (until replayed).
const (
	DeliveryPending   DeliveryStatus = "pending"  // not attempted yet (in this round)
	DeliveryRetrying  DeliveryStatus = "retrying" // failed, another attempt is scheduled
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryDead      DeliveryStatus = "dead" // every attempt failed
)

// Retry schedule of deliveries: after the n-th failed attempt the next one
// waits RetryBase·2^(n-1), jittered by ±RetryJitter, and the
// MaxDeliveryAttempts-th failure is final. With these values the attempts
// span about 4 h 15 min (30 s + 1 min + ... + 2 h 8 min).
const (
	MaxDeliveryAttempts = 10
	RetryBase           = 30 * time.Second
	RetryJitter         = 0.2
	// DeliveryTimeout bounds one attempt (connect, send, answer headers).
	DeliveryTimeout = 10 * time.Second
)

// RetryDelay is the wait after the attempt-th failure (1-based); jitter
// is a draw in [0, 1) that spreads retries of many deliveries apart.
func RetryDelay(attempt int, jitter float64) time.Duration {
	d := RetryBase << (attempt - 1)
	return time.Duration(float64(d) * (1 - RetryJitter + 2*RetryJitter*jitter)).Round(time.Second)
}

// Delivery is one event sent (or to send) to one webhook. Its id is
// stable across retries, restarts and replays (X-Parley-Delivery), so
// receivers can deduplicate by it.
type Delivery struct {
	ID         int64          `json:"id"`
	WebhookID  int64          `json:"webhookId"`
	CompanyID  int64          `json:"companyId"`
	Event      string         `json:"event"`
	ResourceID string         `json:"resourceId"`
	OrderKey   string         `json:"orderKey"`
	Body       []byte         `json:"body"` // the exact bytes signed and sent
	Status     DeliveryStatus `json:"status"`
	// Paused deliveries belong to a disabled webhook: queued, not due.
	Paused         bool       `json:"paused,omitempty"`
	Attempts       int        `json:"attempts"` // in the current round
	Replays        int        `json:"replays,omitempty"`
	ResponseCode   int        `json:"responseCode,omitempty"` // of the last attempt; 0: no answer
	LatencyMS      int64      `json:"latencyMs,omitempty"`
	LastError      string     `json:"lastError,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	RoundStartedAt time.Time  `json:"roundStartedAt"` // creation or last replay
	NextAttemptAt  time.Time  `json:"nextAttemptAt"`
	LastAttemptAt  *time.Time `json:"lastAttemptAt,omitempty"`
	DeliveredAt    *time.Time `json:"deliveredAt,omitempty"`
	DeadAt         *time.Time `json:"deadAt,omitempty"`
}

// NewDelivery makes the delivery of an event to a webhook, due now (paused
// when the webhook is disabled).
func NewDelivery(w *Webhook, e Event, body []byte, now time.Time) *Delivery {
	return &Delivery{WebhookID: w.ID, CompanyID: w.CompanyID, Event: e.Kind, ResourceID: e.ResourceID, OrderKey: e.OrderKey(),
		Body: body, Status: DeliveryPending, Paused: w.State == WebhookDisabled, CreatedAt: now, RoundStartedAt: now, NextAttemptAt: now}
}

// SetPaused pauses (its webhook was disabled) or resumes, due at now, a
// queued delivery, and reports whether that changed it.
func (d *Delivery) SetPaused(paused bool, now time.Time) bool {
	if d.Final() || d.Paused == paused {
		return false
	}
	d.Paused = paused
	if !paused {
		d.NextAttemptAt = now
	}
	return true
}

// Final reports whether the delivery is no longer queued.
func (d *Delivery) Final() bool { return d.Status == DeliveryDelivered || d.Status == DeliveryDead }

// Due reports whether the delivery may be attempted at now (ordering
// aside: only the oldest queued delivery of its order key goes).
func (d *Delivery) Due(now time.Time) bool {
	return !d.Final() && !d.Paused && !d.NextAttemptAt.After(now)
}

// Attempt is the outcome of one POST: the answer's status code (0 when
// none came: refused connection, timeout), how long it took, and what went
// wrong, if anything.
type Attempt struct {
	Code    int
	Latency time.Duration
	Err     string
}

// OK reports a 2xx answer.
func (a Attempt) OK() bool { return a.Code >= 200 && a.Code < 300 }

// Record applies an attempt to the delivery and its webhook: a 2xx
// delivers; anything else schedules a retry (RetryDelay) until the
// MaxDeliveryAttempts-th failure, which makes the delivery dead. A dead
// delivery disables its webhook when no delivery of the webhook succeeded
// since the dead one's round began (hours of failures): the endpoint is
// down, not just refusing one payload. It reports whether the webhook was
// disabled.
func (d *Delivery) Record(w *Webhook, a Attempt, now time.Time, jitter float64) (disabled bool) {
	d.Attempts++
	d.LastAttemptAt = &now
	d.ResponseCode, d.LatencyMS, d.LastError = a.Code, a.Latency.Milliseconds(), a.Err
	if a.OK() {
		d.Status, d.DeliveredAt, d.LastError = DeliveryDelivered, &now, ""
		w.LastSuccessAt = &now
		return false
	}
	if d.LastError == "" {
		d.LastError = fmt.Sprintf("the receiver answered %d", a.Code)
	}
	if d.Attempts < MaxDeliveryAttempts {
		d.Status, d.NextAttemptAt = DeliveryRetrying, now.Add(RetryDelay(d.Attempts, jitter))
		return false
	}
	d.Status, d.DeadAt = DeliveryDead, &now
	if w.State == WebhookDisabled || (w.LastSuccessAt != nil && !w.LastSuccessAt.Before(d.RoundStartedAt)) {
		return false
	}
	w.State, w.DisabledAt = WebhookDisabled, &now
	w.DisabledReason = fmt.Sprintf("delivery %d failed %d times since %s and no delivery succeeded meanwhile",
		d.ID, d.Attempts, FormatTime(d.RoundStartedAt))
	w.UpdatedAt = now
	return true
}

// Replay queues the delivery again, due now, with a fresh attempt budget.
func (d *Delivery) Replay(now time.Time, paused bool) {
	d.Status, d.Paused, d.Attempts = DeliveryPending, paused, 0
	d.Replays++
	d.RoundStartedAt, d.NextAttemptAt = now, now
	d.DeliveredAt, d.DeadAt = nil, nil
}
