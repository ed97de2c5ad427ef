package pgstore

import (
	"context"
	"fmt"
	"time"

	parley "github.com/parley/parley"
)

// Claims of queue items by the node about to work them (parley.Claims),
// for the queues whose work happens outside a transaction (an HTTP POST,
// an SMTP exchange). A claim is one conditional UPDATE, run on its own:
// nodes claiming one item at once queue on its row, and the first to
// commit moves its due time, so the others' condition (still due at the
// time they listed) no longer holds and they update nothing.
//
// The queues worked inside one write transaction claim differently:
// wake-ups are taken one by one FOR UPDATE SKIP LOCKED, each in a write
// of its own (later.go), and domain events FOR UPDATE, in order
// (events.go).

var _ parley.Claims = (*DB)(nil)

var (
	sqlClaimDelivery = stmt(`UPDATE deliveries d SET due_ns = $5 WHERE d.company_id = $1 AND d.webhook_id = $2 AND d.id = $3 AND d.due_ns = $4`)
	sqlClaimMail     = stmt(`UPDATE mail m SET due_ns = $4 WHERE m.company_id = $1 AND m.id = $2 AND m.due_ns = $3`)
)

// ClaimDelivery claims a delivery listed as due at d.NextAttemptAt.
func (db *DB) ClaimDelivery(d *parley.Delivery, until time.Time) (bool, error) {
	return db.claim("delivery", sqlClaimDelivery, d.CompanyID, d.WebhookID, d.ID, d.NextAttemptAt.UnixNano(), until.UnixNano())
}

// ClaimMail claims an e-mail listed as due at m.NextAttemptAt.
func (db *DB) ClaimMail(m *parley.Mail, until time.Time) (bool, error) {
	return db.claim("mail", sqlClaimMail, m.CompanyID, m.ID, m.NextAttemptAt.UnixNano(), until.UnixNano())
}

func (db *DB) claim(noun, sql string, args ...any) (bool, error) {
	tag, err := db.pool.Exec(context.Background(), sql, args...)
	if err != nil {
		return false, fmt.Errorf("pgstore: claim %s: %w", noun, err)
	}
	return tag.RowsAffected() == 1, nil
}
