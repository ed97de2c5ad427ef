package storage

import (
	"context"

	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// queue appends an outbox entry in the current write transaction. The
// company goes with it: the index keeps companies apart, and a deleted
// record can no longer say whose it was.
func (t *Tx) queue(kind Kind, company, id int64) error {
	return t.enqueue(OutboxEntry{Kind: kind, Company: company, ID: id})
}

// queueRef appends an outbox entry for a record with a string id.
func (t *Tx) queueRef(kind Kind, company int64, ref string) error {
	return t.enqueue(OutboxEntry{Kind: kind, Company: company, Ref: ref})
}

func (t *Tx) enqueue(e OutboxEntry) error {
	b := t.tx.Bucket(bucketOutbox)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	data, err := encode(bucketOutbox, e)
	if err != nil {
		return err
	}
	if err := b.Put(key(int64(seq)), data); err != nil {
		return err
	}
	if t.outboxFirst == 0 {
		t.outboxFirst = seq
	}
	t.outboxSeq = seq
	return nil
}

// Outbox returns up to max pending entries after sequence after, oldest
// first.
func (db *DB) Outbox(after uint64, max int) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOutbox).Cursor()
		for k, v := c.Seek(key(int64(after + 1))); k != nil && len(out) < max; k, v = c.Next() {
			var e OutboxEntry
			if err := decode(bucketOutbox, v, &e); err != nil {
				return err
			}
			e.Seq = uint64(idOf(k))
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// AckOutbox removes entries the index holds durably.
func (db *DB) AckOutbox(entries []OutboxEntry) error {
	return db.bolt.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOutbox)
		for _, e := range entries {
			if err := b.Delete(key(int64(e.Seq))); err != nil {
				return err
			}
		}
		return nil
	})
}

// OutboxDepth counts pending entries.
func (db *DB) OutboxDepth() (int, error) {
	n := 0
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket(bucketOutbox).Stats().KeyN
		return nil
	})
	return n, err
}

// ViewAt runs fn in a read transaction, told the last outbox sequence
// the transaction sees: its reads are as new as the writes up to that
// entry, and no newer. The syncer orders documents built apart by it.
func (db *DB) ViewAt(ctx context.Context, fn func(tx parley.Tx, seq uint64) error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return db.View(func(tx *Tx) error { return fn(tx, tx.tx.Bucket(bucketOutbox).Sequence()) })
}

// LastOutboxSeq is the highest sequence ever queued (0 if none).
func (db *DB) LastOutboxSeq() (uint64, error) {
	var seq uint64
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		seq = tx.Bucket(bucketOutbox).Sequence()
		return nil
	})
	return seq, err
}
