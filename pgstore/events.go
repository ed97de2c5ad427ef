package pgstore

import (
	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

var (
	sqlPutEvent    = stmt(`INSERT INTO events (company_id, seq, body) VALUES ($1, nextval('event_seq'), $2)`)
	sqlDeleteEvent = stmt(`DELETE FROM events e WHERE e.company_id = $1 AND e.seq = $2`)
	// The webhook dispatcher's queue of events to fan out, of every
	// company, in the order they were recorded.
	sqlPendingEvents = stmt(`SELECT e.seq, e.body FROM events e ORDER BY e.seq LIMIT $1 ` + AllCompanies)
	// In a write (the fan-out, which deletes what it expands) the events
	// are locked: another node's fan-out waits for this one, then runs
	// again on what is left (its snapshot saw rows deleted since, a
	// serialization failure that Update retries). Not SKIP LOCKED: two
	// nodes expanding later and earlier events at once would number
	// deliveries about one record out of order.
	sqlClaimPendingEvents = stmt(`SELECT e.seq, e.body FROM events e ORDER BY e.seq LIMIT $1 FOR UPDATE ` + AllCompanies)
)

// PutEvent records a domain event in the transaction of its change.
func (t *Tx) PutEvent(e parley.Event) error {
	t.webhookWork = true
	return t.put(sqlPutEvent, e, e.CompanyID)
}

// HasPendingEvents reports whether recorded events wait to be turned into
// deliveries. A failure stays on the transaction (see Tx.failed).
func (t *Tx) HasPendingEvents() bool {
	events, _ := t.PendingEvents(1)
	return len(events) > 0
}

// PendingEvents lists up to max recorded events not yet turned into
// deliveries, oldest first; in a write, locked until it ends.
func (t *Tx) PendingEvents(max int) ([]parley.RecordedEvent, error) {
	sql := sqlPendingEvents
	if t.writable {
		sql = sqlClaimPendingEvents
	}
	return collect(t, func(row pgx.CollectableRow) (parley.RecordedEvent, error) {
		var e parley.RecordedEvent
		var seq int64
		var body []byte
		if err := row.Scan(&seq, &body); err != nil {
			return e, err
		}
		e.Seq = uint64(seq)
		return e, decodeBody(body, &e.Event)
	}, sql, max)
}

// DeleteEvent removes a company's event once its deliveries are stored.
func (t *Tx) DeleteEvent(companyID int64, seq uint64) error {
	return t.exec(sqlDeleteEvent, companyID, int64(seq))
}
