package pgstore

import (
	"time"

	parley "github.com/parley/parley"
)

var (
	sqlPutLater = stmt(`INSERT INTO later (company_id, kind, id, at_unix, body) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (company_id, kind, id) DO UPDATE SET at_unix = EXCLUDED.at_unix, body = EXCLUDED.body`)
	sqlDeleteLater = stmt(`DELETE FROM later l WHERE l.company_id = $1 AND l.kind = $2 AND l.id = $3`)
	sqlCountLater  = stmt(`SELECT count(*) FROM later l WHERE l.company_id = $1 AND l.kind <> 'workflow'`)
	// The scheduler's queue: wake-ups of every company, in time order.
	sqlDueLater = stmt(`SELECT l.body FROM later l WHERE l.at_unix <= $1 ORDER BY l.at_unix, l.id, l.kind ` + AllCompanies)
	// One wake-up the scheduler fires, held by its write (FOR UPDATE)
	// unless another node's scheduler holds it (SKIP LOCKED), so each fires
	// once.
	sqlTakeLater = stmt(`SELECT l.body FROM later l WHERE l.company_id = $1 AND l.kind = $2 AND l.id = $3 AND l.at_unix <= $4
FOR UPDATE SKIP LOCKED`)
	sqlNextLater = stmt(`SELECT l.at_unix FROM later l ORDER BY l.at_unix LIMIT 1 ` + AllCompanies)
)

// PutLater records a wake-up, replacing the item's previous time.
func (t *Tx) PutLater(item parley.LaterItem) error {
	t.laterChanged = true
	return t.put(sqlPutLater, item, item.CompanyID, string(item.Kind), item.ID, item.At.Unix())
}

// DeleteLater removes a wake-up if it exists.
func (t *Tx) DeleteLater(companyID int64, kind parley.LaterKind, id int64) error {
	return t.exec(sqlDeleteLater, companyID, string(kind), id)
}

// CountLater counts a company's pending snoozes and scheduled threads.
func (t *Tx) CountLater(companyID int64) (int, error) {
	n := t.countOf(sqlCountLater, companyID)
	return n, t.failed
}

// DueLater lists the wake-ups due at or before now (to the second), oldest
// first. The scheduler takes each (TakeLater) in a write of its own.
func (t *Tx) DueLater(now time.Time) ([]parley.LaterItem, error) {
	return many[parley.LaterItem](t, sqlDueLater, now.Unix())
}

// NextLater is when the earliest wake-up is due (to the second, as
// DueLater compares), and false when there is none. A failure stays on the
// transaction (see Tx.failed).
func (t *Tx) NextLater() (time.Time, bool) {
	var unix int64
	found, _ := t.scan(sqlNextLater, nil, &unix)
	if !found {
		return time.Time{}, false
	}
	return time.Unix(unix, 0).UTC(), true
}

// TakeLater removes and returns a wake-up due at now (to the second);
// false when there is none, it is due later, or another node's
// transaction holds it.
func (t *Tx) TakeLater(companyID int64, kind parley.LaterKind, id int64, now time.Time) (parley.LaterItem, bool, error) {
	item, err := one[parley.LaterItem](t, "wake-up", sqlTakeLater, companyID, string(kind), id, now.Unix())
	if parley.IsNotFound(err) {
		return parley.LaterItem{}, false, nil
	}
	if err != nil {
		return parley.LaterItem{}, false, err
	}
	return *item, true, t.DeleteLater(companyID, kind, id)
}
