package storage

// LaterChanged is signalled after each commit that stored a wake-up
// (snooze, scheduled thread), so the scheduler recomputes when to wake
// instead of polling with write transactions. A signal is kept until
// received; several commits may share one.
func (db *DB) LaterChanged() <-chan struct{} { return db.later }

// WebhookWork is signalled after each commit that recorded a domain event
// or stored a webhook delivery, so the dispatcher looks for work.
func (db *DB) WebhookWork() <-chan struct{} { return db.webhooks }

// MailWork is signalled after each commit that stored an e-mail still to
// send, so the e-mail dispatcher looks for work.
func (db *DB) MailWork() <-chan struct{} { return db.mail }

// signal leaves a value in a one-slot channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
