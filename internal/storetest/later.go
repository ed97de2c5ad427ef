package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

// testLater: wake-ups are counted per company (snoozes and schedules
// only), due (to the second) oldest first across companies, moved by a new
// time, taken when due, and deleted.
func testLater(t *testing.T, b Backend) {
	item := func(company int64, kind parley.LaterKind, id int64, when time.Time) parley.LaterItem {
		return parley.LaterItem{CompanyID: company, Kind: kind, ID: id, ConversationID: id * 10, At: when}
	}
	snooze := item(1, parley.LaterSnooze, 1, at(30))
	scheduled := item(1, parley.LaterScheduled, 2, at(10))
	elsewhere := item(2, parley.LaterSnooze, 3, at(20))
	late := item(1, parley.LaterSnooze, 4, at(90))
	put(t, b, func(tx parley.Tx) error {
		for _, i := range []parley.LaterItem{snooze, scheduled, elsewhere, late} {
			if err := tx.PutLater(i); err != nil {
				return err
			}
		}
		return nil
	})
	count := func(company int64) int {
		return get(t, b, func(tx parley.Tx) (int, error) { return tx.CountLater(company) })
	}
	due := func(now time.Time) []parley.LaterItem {
		return get(t, b, func(tx parley.Tx) ([]parley.LaterItem, error) { return tx.DueLater(now) })
	}
	assert.Equal(t, 3, count(1))
	assert.Equal(t, 1, count(2))
	assert.Equal(t, []parley.LaterItem{scheduled, elsewhere, snooze}, due(at(30)), "due at or before now, oldest first, of every company")

	// A workflow wake-up keeps its workflows, is due like the others, and
	// is not counted against the company's limit.
	wake := item(1, parley.LaterWorkflow, 1, at(25))
	wake.WorkflowIDs = []int64{7, 9}
	put(t, b, func(tx parley.Tx) error { return tx.PutLater(wake) })
	assert.Equal(t, 3, count(1), "workflow wake-ups are not counted")
	assert.Equal(t, []parley.LaterItem{scheduled, elsewhere, wake, snooze}, due(at(30)))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteLater(1, parley.LaterWorkflow, 1) })
	assert.Equal(t, []parley.LaterItem{scheduled, elsewhere, snooze}, due(at(30)))
	assert.Equal(t, []parley.LaterItem{scheduled}, due(at(10).Add(-time.Second).Truncate(time.Second).Add(time.Second)),
		"compared to the second")
	assert.Empty(t, due(at(0)))
	next := func() (time.Time, bool) {
		var when time.Time
		var pending bool
		view(t, b, func(tx parley.Tx) error { when, pending = tx.NextLater(); return nil })
		return when, pending
	}
	when, pending := next()
	assert.True(t, pending)
	assert.Equal(t, at(10).Truncate(time.Second), when, "the earliest of every company, to the second")

	snooze.At = at(5)
	put(t, b, func(tx parley.Tx) error { return tx.PutLater(snooze) })
	assert.Equal(t, 3, count(1), "a new time moves the wake-up")
	assert.Equal(t, []parley.LaterItem{snooze, scheduled}, due(at(15)))

	put(t, b, func(tx parley.Tx) error { return tx.DeleteLater(1, parley.LaterScheduled, 2) },
		func(tx parley.Tx) error { return tx.DeleteLater(1, parley.LaterScheduled, 77) })
	assert.Equal(t, 2, count(1))
	assert.Equal(t, []parley.LaterItem{snooze}, due(at(15)))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteLater(2, parley.LaterSnooze, 1) })
	assert.Equal(t, 2, count(1), "deleting keeps to the company")

	// A snoozed conversation and a scheduled thread of one id are two
	// wake-ups; of one second, they come by id then kind.
	sameID := item(1, parley.LaterScheduled, snooze.ID, snooze.At)
	put(t, b, func(tx parley.Tx) error { return tx.PutLater(sameID) })
	assert.Equal(t, 3, count(1))
	assert.Equal(t, []parley.LaterItem{sameID, snooze}, due(at(15)))
	put(t, b, func(tx parley.Tx) error { return tx.DeleteLater(1, parley.LaterScheduled, snooze.ID) })
	assert.Equal(t, []parley.LaterItem{snooze}, due(at(15)), "deleting one kind keeps the other")

	// Taking a wake-up removes it and returns it whole, only when it is
	// due at now (to the second), and only once.
	wake.Ran, wake.Attempts = []int64{3}, 2
	put(t, b, func(tx parley.Tx) error { return tx.PutLater(wake) })
	take := func(it parley.LaterItem, now time.Time) (parley.LaterItem, bool) {
		var got parley.LaterItem
		var ok bool
		put(t, b, func(tx parley.Tx) (err error) {
			got, ok, err = tx.TakeLater(it.CompanyID, it.Kind, it.ID, now)
			return err
		})
		return got, ok
	}
	_, ok := take(wake, wake.At.Add(-time.Second))
	assert.False(t, ok, "not due yet")
	_, ok = take(parley.LaterItem{CompanyID: 2, Kind: wake.Kind, ID: wake.ID}, at(90))
	assert.False(t, ok, "another company's")
	got, ok := take(wake, wake.At)
	assert.True(t, ok)
	assert.Equal(t, wake, got, "the whole item: workflows, those that ran, attempts")
	_, ok = take(wake, at(90))
	assert.False(t, ok, "taken once")
	assert.Equal(t, []parley.LaterItem{snooze, elsewhere}, due(at(30)), "the others stay")

	put(t, b, func(tx parley.Tx) error {
		for _, i := range []parley.LaterItem{snooze, elsewhere, late} {
			if err := tx.DeleteLater(i.CompanyID, i.Kind, i.ID); err != nil {
				return err
			}
		}
		return nil
	})
	_, pending = next()
	assert.False(t, pending, "none left")
}
