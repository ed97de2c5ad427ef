package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// The index outbox: where a write's touched records go when the store
// has no indexer (SetIndexer; see search.go), for a syncer to read after
// the last sequence it applied (indexer.Syncer). `parley` always sets an
// indexer on PostgreSQL, so it writes no entry here; the outbox keeps the
// store conformant to the seam's contract that internal/storetest holds
// both backends to. Entries must become visible in sequence order (an
// entry committed after a higher one would never be read), which a
// sequence alone does not give, so a write takes its sequences at the
// very end, under a transaction-level advisory lock held through its
// commit.

// outboxLock is the advisory lock that orders the outbox's writers.
const outboxLock = 0x6f7574626f78 // "outbox"

var (
	sqlOutboxLock       = stmt(`SELECT pg_advisory_xact_lock($1)`)
	sqlOutboxLockShared = stmt(`SELECT pg_advisory_xact_lock_shared($1)`)
	sqlQueueOutbox      = stmt(`INSERT INTO outbox (company_id, seq, kind, record_id, ref)
SELECT u.company_id, nextval('outbox_seq'), u.kind, u.record_id, u.ref
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) WITH ORDINALITY AS u(company_id, kind, record_id, ref, n)
ORDER BY u.n RETURNING seq`)
	sqlOutbox = stmt(`SELECT o.seq, o.company_id, o.kind, o.record_id, o.ref FROM outbox o
WHERE o.seq > greatest($1, (SELECT c.seq FROM outbox_cursors c WHERE c.name = 'applied')) ORDER BY o.seq LIMIT $2 ` + AllCompanies)
	sqlOutboxDepth      = stmt(`SELECT count(*) FROM outbox o WHERE o.seq > (SELECT c.seq FROM outbox_cursors c WHERE c.name = 'applied') ` + AllCompanies)
	sqlSetOutboxApplied = stmt(`UPDATE outbox_cursors c SET seq = $1 WHERE c.name = 'applied' AND c.seq < $1`)
	sqlLastOutboxSeq    = stmt(`SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM outbox_seq s`)
)

// queue appends an outbox entry, written when the transaction commits. The
// company goes with it: the index keeps companies apart, and a deleted
// record can no longer say whose it was.
func (t *Tx) queue(kind parley.OutboxKind, company, id int64) {
	t.outbox = append(t.outbox, parley.OutboxEntry{Kind: kind, Company: company, ID: id})
}

// queueRef appends an outbox entry for a record with a string id.
func (t *Tx) queueRef(kind parley.OutboxKind, company int64, ref string) {
	t.outbox = append(t.outbox, parley.OutboxEntry{Kind: kind, Company: company, Ref: ref})
}

// flushOutbox writes the queued entries in queue order, with sequences
// taken under the outbox lock (see above), and keeps the highest.
func (t *Tx) flushOutbox() error {
	if len(t.outbox) == 0 {
		return nil
	}
	companies, kinds, ids, refs := make([]int64, len(t.outbox)), make([]string, len(t.outbox)), make([]int64, len(t.outbox)), make([]string, len(t.outbox))
	for i, e := range t.outbox {
		companies[i], kinds[i], ids[i], refs[i] = e.Company, string(e.Kind), e.ID, keyText(e.Ref)
	}
	if err := t.exec(sqlOutboxLock, outboxLock); err != nil {
		return err
	}
	seqs, err := t.ids(sqlQueueOutbox, companies, kinds, ids, refs)
	if err != nil {
		return err
	}
	t.outboxSeq = uint64(slices.Max(seqs))
	return nil
}

// Outbox returns up to max entries after sequence after that are not
// acknowledged, oldest first, of every company.
func (db *DB) Outbox(after uint64, max int) ([]parley.OutboxEntry, error) {
	return db.outbox(sqlOutbox, after, max)
}

func (db *DB) outbox(sql string, after uint64, max int) ([]parley.OutboxEntry, error) {
	rows, err := db.pool.Query(context.Background(), sql, int64(after), max)
	if err != nil {
		return nil, fmt.Errorf("pgstore: outbox: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (parley.OutboxEntry, error) {
		var e parley.OutboxEntry
		var seq int64
		var kind string
		err := row.Scan(&seq, &e.Company, &kind, &e.ID, &e.Ref)
		e.Seq, e.Kind = uint64(seq), parley.OutboxKind(kind)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: outbox: %w", err)
	}
	return out, nil
}

// AckOutbox marks entries as applied. They are applied in sequence order,
// so the highest acknowledges every entry below it.
func (db *DB) AckOutbox(entries []parley.OutboxEntry) error {
	var highest uint64
	for _, e := range entries {
		highest = max(highest, e.Seq)
	}
	if _, err := db.pool.Exec(context.Background(), sqlSetOutboxApplied, int64(highest)); err != nil {
		return fmt.Errorf("pgstore: outbox applied: %w", err)
	}
	return nil
}

// OutboxDepth counts the entries the search tables do not hold yet.
func (db *DB) OutboxDepth() (int, error) {
	var n int
	if err := db.pool.QueryRow(context.Background(), sqlOutboxDepth).Scan(&n); err != nil {
		return 0, fmt.Errorf("pgstore: outbox depth: %w", err)
	}
	return n, nil
}

// LastOutboxSeq is the highest sequence ever queued by a committed write
// (0 if none). It waits, under the outbox lock shared, for a write taking
// sequences to commit, so the sequence it answers is never one whose entry
// is yet to be seen (the indexer takes every sequence up to it for
// applied once the outbox reads empty).
func (db *DB) LastOutboxSeq() (uint64, error) {
	var seq int64
	err := pgx.BeginFunc(context.Background(), db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), sqlOutboxLockShared, outboxLock); err != nil {
			return err
		}
		return tx.QueryRow(context.Background(), sqlLastOutboxSeq).Scan(&seq)
	})
	if err != nil {
		return 0, fmt.Errorf("pgstore: last outbox sequence: %w", err)
	}
	return uint64(seq), nil
}
