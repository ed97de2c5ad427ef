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
	// are claimed a company at a time, so that nodes fan out different
	// companies at once and no lock spans companies. A company is claimed
	// by locking its oldest event, SKIP LOCKED: the first company whose
	// head no other node holds, and not one this transaction took already
	// ($1). Only heads are candidates, so two nodes never split one
	// company's events, whose deliveries are numbered in recorded order.
	sqlClaimEventCompany = stmt(`SELECT e.company_id FROM events e
WHERE e.company_id <> ALL($1) AND NOT EXISTS (SELECT 1 FROM events o WHERE o.company_id = e.company_id AND o.seq < e.seq)
ORDER BY e.seq LIMIT 1 FOR UPDATE SKIP LOCKED ` + AllCompanies)
	// The claimed company's events, oldest first, locked until the write
	// ends.
	sqlClaimCompanyEvents = stmt(`SELECT e.seq, e.body FROM events e WHERE e.company_id = $1 ORDER BY e.seq LIMIT $2 FOR UPDATE`)
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
// deliveries, oldest first. In a write it claims them company by company
// (see sqlClaimEventCompany), skipping companies another node's fan-out
// holds, and keeps them locked until it ends: each company's events in
// the order recorded, the batch in the order of the companies' oldest.
func (t *Tx) PendingEvents(max int) ([]parley.RecordedEvent, error) {
	if !t.writable {
		return collect(t, recordedEvent, sqlPendingEvents, max)
	}
	var out []parley.RecordedEvent
	claimed := []int64{}
	for len(out) < max {
		var companyID int64
		found, err := t.scan(sqlClaimEventCompany, []any{claimed}, &companyID)
		if err != nil || !found {
			return out, err
		}
		claimed = append(claimed, companyID)
		events, err := collect(t, recordedEvent, sqlClaimCompanyEvents, companyID, max-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, events...)
	}
	return out, nil
}

func recordedEvent(row pgx.CollectableRow) (parley.RecordedEvent, error) {
	var e parley.RecordedEvent
	var seq int64
	var body []byte
	if err := row.Scan(&seq, &body); err != nil {
		return e, err
	}
	e.Seq = uint64(seq)
	return e, decodeBody(body, &e.Event)
}

// DeleteEvent removes a company's event once its deliveries are stored.
func (t *Tx) DeleteEvent(companyID int64, seq uint64) error {
	return t.exec(sqlDeleteEvent, companyID, int64(seq))
}
