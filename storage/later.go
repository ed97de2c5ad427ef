package storage

import (
	"bytes"
	"encoding/binary"
	"time"

	parley "github.com/parley/parley"
)

// Later items (snooze ends, scheduled threads) are kept in time order so
// the scheduler finds what is due with one cursor, plus a reference key
// per item to move or delete it and to count a company's items. Both keys
// hold the whole kind: a snoozed conversation and a scheduled thread may
// share an id.
var (
	bucketLater      = newBucket("later")        // unix seconds | id | kind -> item
	bucketLaterByRef = newBucket("later_by_ref") // company | id | kind -> time key
)

func laterRef(companyID int64, kind parley.LaterKind, id int64) []byte {
	return append(key2(companyID, id), kind...)
}

func laterKey(at time.Time, kind parley.LaterKind, id int64) []byte {
	return append(key2(at.Unix(), id), kind...)
}

// firstLaterKeyLen is the length of both keys as Parley first wrote them,
// with the kind's first byte between the two numbers: "snooze" and
// "scheduled" shared it, so a conversation's snooze and a thread's
// schedule of one id overwrote each other's reference. Today's keys are
// longer (every kind has more than one byte).
const firstLaterKeyLen = 8 + 1 + 8

// rekeyLater moves the wake-ups stored under the first keys to today's,
// once, when a database written before is opened.
func rekeyLater(t *Tx) error {
	var stale [][]byte
	var items []parley.LaterItem
	c := t.tx.Bucket(bucketLater).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != firstLaterKeyLen {
			continue
		}
		var item parley.LaterItem
		if err := decode(bucketLater, v, &item); err != nil {
			return err
		}
		stale, items = append(stale, bytes.Clone(k)), append(items, item)
	}
	for _, k := range stale {
		if err := t.tx.Bucket(bucketLater).Delete(k); err != nil {
			return err
		}
	}
	var staleRefs [][]byte
	c = t.tx.Bucket(bucketLaterByRef).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) == firstLaterKeyLen {
			staleRefs = append(staleRefs, bytes.Clone(k))
		}
	}
	for _, k := range staleRefs {
		if err := t.tx.Bucket(bucketLaterByRef).Delete(k); err != nil {
			return err
		}
	}
	for _, item := range items {
		if err := t.PutLater(item); err != nil {
			return err
		}
	}
	return nil
}

// PutLater records a wake-up, replacing the item's previous time.
func (t *Tx) PutLater(item parley.LaterItem) error {
	if err := t.DeleteLater(item.CompanyID, item.Kind, item.ID); err != nil {
		return err
	}
	k := laterKey(item.At, item.Kind, item.ID)
	t.laterChanged = true
	if err := t.put(bucketLater, k, item); err != nil {
		return err
	}
	return t.tx.Bucket(bucketLaterByRef).Put(laterRef(item.CompanyID, item.Kind, item.ID), k)
}

// DeleteLater removes a wake-up if it exists.
func (t *Tx) DeleteLater(companyID int64, kind parley.LaterKind, id int64) error {
	refs := t.tx.Bucket(bucketLaterByRef)
	ref := laterRef(companyID, kind, id)
	k := refs.Get(ref)
	if k == nil {
		return nil
	}
	if err := t.tx.Bucket(bucketLater).Delete(bytes.Clone(k)); err != nil {
		return err
	}
	return refs.Delete(ref)
}

// CountLater counts a company's pending snoozes and scheduled threads.
func (t *Tx) CountLater(companyID int64) (int, error) {
	n := 0
	c := t.tx.Bucket(bucketLaterByRef).Cursor()
	prefix := key(companyID)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if parley.LaterKind(k[len(prefix)+8:]) != parley.LaterWorkflow {
			n++
		}
	}
	return n, nil
}

// DueLater lists the wake-ups due at or before now, oldest first (of one
// second, by id then kind).
func (t *Tx) DueLater(now time.Time) ([]parley.LaterItem, error) {
	var out []parley.LaterItem
	c := t.tx.Bucket(bucketLater).Cursor()
	for k, v := c.First(); k != nil && int64(binary.BigEndian.Uint64(k[:8])) <= now.Unix(); k, v = c.Next() {
		var item parley.LaterItem
		if err := decode(bucketLater, v, &item); err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// NextLater is when the earliest wake-up is due (to the second, as
// DueLater compares), and false when there is none.
func (t *Tx) NextLater() (time.Time, bool) {
	k, _ := t.tx.Bucket(bucketLater).Cursor().First()
	if k == nil {
		return time.Time{}, false
	}
	return time.Unix(int64(binary.BigEndian.Uint64(k[:8])), 0).UTC(), true
}

// TakeLater removes and returns a wake-up due at now (to the second);
// false when there is none or it is due later.
func (t *Tx) TakeLater(companyID int64, kind parley.LaterKind, id int64, now time.Time) (parley.LaterItem, bool, error) {
	var item parley.LaterItem
	k := t.tx.Bucket(bucketLaterByRef).Get(laterRef(companyID, kind, id))
	if k == nil || int64(binary.BigEndian.Uint64(k[:8])) > now.Unix() {
		return item, false, nil
	}
	if err := decode(bucketLater, t.tx.Bucket(bucketLater).Get(k), &item); err != nil {
		return item, false, err
	}
	return item, true, t.DeleteLater(companyID, kind, id)
}
