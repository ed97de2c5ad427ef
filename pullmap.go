package parley

import "time"

// PulledID records that a record of a source (another server speaking the
// Mailbox API 2.0, named by its base URL) was pulled into a company under
// an id of its own. A pull keeps the source's ids where they are free, and
// where they are not only this map tells that the record is already there:
// a second run reads it to go on where the first stopped, and an
// incremental run to find what a changed record became.
type PulledID struct {
	CompanyID int64  `json:"companyId"`
	Source    string `json:"source"`
	// Kind is the record's kind, as the pull names it: "customer",
	// "conversation", "thread", "attachment", "team", ...
	Kind     string `json:"kind"`
	SourceID int64  `json:"sourceId"`
	ID       int64  `json:"id"`
}

// PullRun is what a company keeps of the last pull from a source that ran
// to its end: when it started, so the next one asks the source only for
// what changed since.
type PullRun struct {
	CompanyID int64     `json:"companyId"`
	Source    string    `json:"source"`
	StartedAt time.Time `json:"startedAt"`
}

// PullStore holds the pulls' maps of source ids to the company's ids and
// their last runs, per company and source.
type PullStore interface {
	// PulledIDs maps the source ids of one kind pulled from source into
	// the company to the company's ids (empty when none).
	PulledIDs(companyID int64, source, kind string) (map[int64]int64, error)
	// PutPulledID records (or moves) one source id's target.
	PutPulledID(p PulledID) error
	// LastPull loads the company's last finished pull from source
	// (NotFound when there is none).
	LastPull(companyID int64, source string) (*PullRun, error)
	PutLastPull(r *PullRun) error
}
