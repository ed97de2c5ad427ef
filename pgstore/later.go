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
	// In a write (the scheduler's, which deletes what it wakes), the due
	// wake-ups are claimed: another node's scheduler skips them, so each
	// fires once.
	sqlClaimDueLater = stmt(`SELECT l.body FROM later l WHERE l.at_unix <= $1 ORDER BY l.at_unix, l.id, l.kind FOR UPDATE SKIP LOCKED ` + AllCompanies)
	sqlNextLater     = stmt(`SELECT l.at_unix FROM later l ORDER BY l.at_unix LIMIT 1 ` + AllCompanies)
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
// first; in a write, those no other node's transaction holds, held until
// this one ends.
func (t *Tx) DueLater(now time.Time) ([]parley.LaterItem, error) {
	if t.writable {
		return many[parley.LaterItem](t, sqlClaimDueLater, now.Unix())
	}
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
