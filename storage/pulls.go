package storage

import (
	"encoding/binary"

	parley "github.com/parley/parley"
)

// Buckets of the pulls (parley pull): the map of source ids, keyed by
// company, source, kind and source id, so one kind's map is one prefix;
// and the last run, keyed by company and source.
var (
	bucketPulledIDs = newBucket("pulled_ids")
	bucketPulls     = newBucket("pulls")
)

var _ parley.PullStore = (*Tx)(nil)

// pulledPrefix is the key prefix of one kind's map: a NUL ends the source
// and the kind, which hold none.
func pulledPrefix(companyID int64, source, kind string) []byte {
	return append(append(append(keyStr(companyID, source), 0), kind...), 0)
}

// PulledIDs maps one kind's source ids to the company's ids.
func (t *Tx) PulledIDs(companyID int64, source, kind string) (map[int64]int64, error) {
	all, err := prefixed[parley.PulledID](t, bucketPulledIDs, pulledPrefix(companyID, source, kind))
	out := make(map[int64]int64, len(all))
	for _, p := range all {
		out[p.SourceID] = p.ID
	}
	return out, err
}

// PutPulledID records one source id's target.
func (t *Tx) PutPulledID(p parley.PulledID) error {
	return t.put(bucketPulledIDs, binary.BigEndian.AppendUint64(pulledPrefix(p.CompanyID, p.Source, p.Kind), uint64(p.SourceID)), &p)
}

// LastPull loads the company's last finished pull from source.
func (t *Tx) LastPull(companyID int64, source string) (*parley.PullRun, error) {
	r := new(parley.PullRun)
	found, err := t.get(bucketPulls, keyStr(companyID, source), r)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parley.NotFound("pull")
	}
	return r, nil
}

// PutLastPull stores the company's last finished pull from source.
func (t *Tx) PutLastPull(r *parley.PullRun) error {
	return t.put(bucketPulls, keyStr(r.CompanyID, r.Source), r)
}
