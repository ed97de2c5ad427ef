package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

// testPulls: a pull's id map is kept per company, source and kind, a put
// moves a source id's target, and the last run reads back whole.
func testPulls(t *testing.T, b Backend) {
	const helpScout, other = "https://api.helpscout.net", "https://parley.example"
	ids := func(company int64, source, kind string) map[int64]int64 {
		return get(t, b, func(tx parley.Tx) (map[int64]int64, error) { return tx.PulledIDs(company, source, kind) })
	}
	assert.Empty(t, ids(1, helpScout, "conversation"))
	for _, p := range []parley.PulledID{
		{CompanyID: 1, Source: helpScout, Kind: "conversation", SourceID: 7, ID: 70},
		{CompanyID: 1, Source: helpScout, Kind: "conversation", SourceID: 8, ID: 80},
		{CompanyID: 1, Source: helpScout, Kind: "conversation", SourceID: 7, ID: 71},
		{CompanyID: 1, Source: helpScout, Kind: "conversations", SourceID: 9, ID: 90},
		{CompanyID: 1, Source: helpScout, Kind: "thread", SourceID: 7, ID: 700},
		{CompanyID: 1, Source: other, Kind: "conversation", SourceID: 7, ID: 72},
		{CompanyID: 2, Source: helpScout, Kind: "conversation", SourceID: 7, ID: 73},
	} {
		put(t, b, func(tx parley.Tx) error { return tx.PutPulledID(p) })
	}
	assert.Equal(t, map[int64]int64{7: 71, 8: 80}, ids(1, helpScout, "conversation"))
	assert.Equal(t, map[int64]int64{7: 700}, ids(1, helpScout, "thread"))
	assert.Equal(t, map[int64]int64{7: 72}, ids(1, other, "conversation"))
	assert.Equal(t, map[int64]int64{7: 73}, ids(2, helpScout, "conversation"))
	assert.Empty(t, ids(1, helpScout+"/", "conversation"))

	notFound(t, b, "no pull yet", func(tx parley.Tx) error { _, err := tx.LastPull(1, helpScout); return err })
	run := &parley.PullRun{CompanyID: 1, Source: helpScout, StartedAt: clock}
	put(t, b, func(tx parley.Tx) error { return tx.PutLastPull(run) })
	run.StartedAt = at(5)
	put(t, b, func(tx parley.Tx) error { return tx.PutLastPull(run) })
	assert.Equal(t, run, get(t, b, func(tx parley.Tx) (*parley.PullRun, error) { return tx.LastPull(1, helpScout) }))
	notFound(t, b, "another source's", func(tx parley.Tx) error { _, err := tx.LastPull(1, other); return err })
	notFound(t, b, "another company's", func(tx parley.Tx) error { _, err := tx.LastPull(2, helpScout); return err })
}
