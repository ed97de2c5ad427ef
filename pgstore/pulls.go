package pgstore

import (
	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

var (
	sqlPulledIDs = stmt(`SELECT p.source_id, p.id FROM pulled_ids p
WHERE p.company_id = $1 AND p.source = $2 AND p.kind = $3`)
	sqlPutPulledID = stmt(`INSERT INTO pulled_ids (company_id, source, kind, source_id, id) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (company_id, source, kind, source_id) DO UPDATE SET id = EXCLUDED.id`)
	sqlLastPull    = stmt(`SELECT p.body FROM pulls p WHERE p.company_id = $1 AND p.source = $2`)
	sqlPutLastPull = stmt(`INSERT INTO pulls (company_id, source, body) VALUES ($1, $2, $3)
ON CONFLICT (company_id, source) DO UPDATE SET body = EXCLUDED.body`)
)

var _ parley.PullStore = (*Tx)(nil)

// PulledIDs maps one kind's source ids to the company's ids.
func (t *Tx) PulledIDs(companyID int64, source, kind string) (map[int64]int64, error) {
	pairs, err := collect(t, func(row pgx.CollectableRow) ([2]int64, error) {
		var p [2]int64
		return p, row.Scan(&p[0], &p[1])
	}, sqlPulledIDs, companyID, source, kind)
	out := make(map[int64]int64, len(pairs))
	for _, p := range pairs {
		out[p[0]] = p[1]
	}
	return out, err
}

// PutPulledID records one source id's target.
func (t *Tx) PutPulledID(p parley.PulledID) error {
	return t.exec(sqlPutPulledID, p.CompanyID, p.Source, p.Kind, p.SourceID, p.ID)
}

// LastPull loads the company's last finished pull from source.
func (t *Tx) LastPull(companyID int64, source string) (*parley.PullRun, error) {
	return one[parley.PullRun](t, "pull", sqlLastPull, companyID, source)
}

// PutLastPull stores the company's last finished pull from source.
func (t *Tx) PutLastPull(r *parley.PullRun) error {
	return t.put(sqlPutLastPull, r, r.CompanyID, r.Source)
}
