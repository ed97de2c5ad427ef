// Package storage keeps Parley's records in bbolt, the source of truth.
//
// Every write commits the record, its secondary keys and an index-outbox
// entry in one transaction; the indexer drains the outbox into the search
// engine, so a crash between the two loses nothing (the outbox is replayed).
// Concurrent writers go through bbolt's Batch and share fsyncs.
package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	parley "github.com/parley/parley"
)

// allBuckets lists every bucket; Open creates them. Each bucket is
// declared once, with newBucket, next to the code that uses it.
var allBuckets [][]byte

func newBucket(name string) []byte {
	b := []byte(name)
	allBuckets = append(allBuckets, b)
	return b
}

// Buckets of the core records.
var (
	bucketCompanies       = newBucket("companies")
	bucketUsers           = newBucket("users")
	bucketUsersByEmail    = newBucket("users_by_email")
	bucketTeams           = newBucket("teams")
	bucketMailboxes       = newBucket("mailboxes")
	bucketTags            = newBucket("tags")
	bucketTagsByName      = newBucket("tags_by_name")
	bucketCustomers       = newBucket("customers")
	bucketCustomerEmails  = newBucket("customers_by_email")
	bucketConversations   = newBucket("conversations")
	bucketConvByCustomer  = newBucket("conversations_by_customer")
	bucketConvNumbers     = newBucket("conversation_numbers")      // company -> last number
	bucketConvNumbersUsed = newBucket("conversation_numbers_used") // company | number -> id
	bucketThreads         = newBucket("threads")
	bucketApps            = newBucket("apps")
	bucketTokens          = newBucket("tokens")
	bucketOutbox          = newBucket("outbox")
	bucketSequences       = newBucket("sequences")
)

// ErrLocked is returned by Open when another process holds the database.
var ErrLocked = errors.New("storage: the data directory is in use by another Parley process")

// DB is Parley's record store.
type DB struct {
	bolt *bbolt.DB
	// commits groups concurrent writes into shared transactions (commit.go).
	commits *committer
	// onCommit is told the outbox sequences each committed write queued.
	onCommit func(first, last uint64)
	// onTx is told the duration of each View and Update (metrics).
	onTx atomic.Pointer[func(write bool, took time.Duration)]
	// later, webhooks and mail are signalled after a commit that stored a
	// wake-up, a domain event or webhook delivery, or an e-mail to send:
	// see LaterChanged.
	later, webhooks, mail chan struct{}
	// CommitHooks runs the before-commit step of every write through the
	// domain's seam (Store().Update): SetBeforeCommit sets it.
	parley.CommitHooks
	// renumbered maps the ids of the teams Open moved out of the users'
	// ids to their new ids (see unifyTeamIDs).
	renumbered map[int64]int64
}

// Options tune Open.
type Options struct {
	// NoSync skips fsync on commit: faster bulk loads, but a power loss may
	// lose acknowledged writes. Never used by `parley serve`.
	NoSync bool
}

// Open opens (creating if needed) the database file at path. It fails fast
// with ErrLocked when another process has it open.
func Open(path string, opt Options) (*DB, error) {
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second, NoSync: opt.NoSync, FreelistType: bbolt.FreelistMapType})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	var renumbered map[int64]int64
	err = b.Update(func(tx *bbolt.Tx) error {
		fillOpen := tx.Bucket(bucketOpenByAssignee) == nil && tx.Bucket(bucketConversations) != nil
		moveTimeline := tx.Bucket(bucketChatTimeline) == nil && tx.Bucket(bucketChats) != nil
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if err := replain(tx); err != nil {
			return err
		}
		if fillOpen { // a database from before routing: count its open conversations once
			if err := fillOpenByAssignee(tx); err != nil {
				return err
			}
		}
		if moveTimeline { // a database from before chat timelines had their own bucket
			if err := moveTimelines(&Tx{tx: tx, writable: true}); err != nil {
				return err
			}
		}
		if err := rekeyLater(&Tx{tx: tx, writable: true}); err != nil {
			return err
		}
		var err error
		renumbered, err = unifyTeamIDs(tx)
		return err
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("storage: create buckets: %w", err)
	}
	return &DB{bolt: b, commits: &committer{bolt: b}, later: make(chan struct{}, 1), webhooks: make(chan struct{}, 1), mail: make(chan struct{}, 1), renumbered: renumbered}, nil
}

// Close closes the file.
func (db *DB) Close() error { return db.bolt.Close() }

// OnCommit registers the function told the first and last outbox
// sequence of each write that queued index work: a write's entries are
// consecutive. Set it before serving.
func (db *DB) OnCommit(f func(first, last uint64)) { db.onCommit = f }

// OnTx registers the function told how long each View and Update took
// (for metrics). It may be set while the database is in use.
func (db *DB) OnTx(f func(write bool, took time.Duration)) { db.onTx.Store(&f) }

func (db *DB) observeTx(write bool, start time.Time) {
	if f := db.onTx.Load(); f != nil {
		(*f)(write, time.Since(start))
	}
}

// WriteTo writes a consistent copy of the whole database file to w from one
// read transaction (bbolt's Tx.WriteTo): a hot backup that concurrent
// writers do not disturb. The copy opens with Open like the original.
func (db *DB) WriteTo(w io.Writer) (int64, error) {
	var n int64
	err := db.bolt.View(func(tx *bbolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("storage: backup: %w", err)
	}
	return n, nil
}

// View runs fn in a read transaction. Records returned by Tx methods are
// decoded copies, safe to use after the transaction.
func (db *DB) View(fn func(*Tx) error) error {
	defer db.observeTx(false, time.Now())
	return db.bolt.View(func(btx *bbolt.Tx) error { return fn(&Tx{tx: btx}) })
}

// Update runs fn in a write transaction shared with concurrent writers
// (group commit: one fsync for many, see committer). fn may run more than once and must
// only touch the transaction. It returns the highest outbox sequence the
// write queued (0 if none), which the caller can wait on to read its write.
// It is the raw transaction: writes through the domain's seam (Store) also
// run the before-commit step (parley.CommitHooks) inside it.
func (db *DB) Update(fn func(*Tx) error) (uint64, error) {
	defer db.observeTx(true, time.Now())
	var first, seq uint64
	var later, webhooks, mail bool
	err := db.commits.update(func(btx *bbolt.Tx) error {
		tx := &Tx{tx: btx, writable: true}
		if err := fn(tx); err != nil {
			return err
		}
		first, seq = tx.outboxFirst, tx.outboxSeq
		later, webhooks, mail = tx.laterChanged, tx.webhookWork, tx.mailWork
		return nil
	})
	if err != nil {
		return 0, err
	}
	if later {
		signal(db.later)
	}
	if webhooks {
		signal(db.webhooks)
	}
	if mail {
		signal(db.mail)
	}
	if seq != 0 && db.onCommit != nil {
		db.onCommit(first, seq)
	}
	return seq, nil
}

// Tx is one bbolt transaction with typed accessors. It implements parley.Tx.
type Tx struct {
	tx       *bbolt.Tx
	writable bool
	// outboxFirst and outboxSeq are the first and last outbox sequence
	// the transaction queued.
	outboxFirst, outboxSeq uint64
	// laterChanged, webhookWork and mailWork record that the transaction
	// stored a wake-up, an event or delivery, or an e-mail to send, for the
	// signals of Update.
	laterChanged, webhookWork, mailWork bool
	// threads holds, in a write, the decoded threads of the conversations
	// it read, until it writes one of them: a write reads a conversation's
	// threads several times (to derive the conversation, to build its
	// document for the automatic workflows, again after each acts), and
	// decoding them is most of its CPU. Reads (rebuilds walking every
	// conversation) keep nothing.
	threads map[int64][]parley.Thread
}

var _ parley.Tx = (*Tx)(nil)

func key(id int64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, uint64(id))
	return k
}

func key2(a, b int64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(a))
	binary.BigEndian.PutUint64(k[8:], uint64(b))
	return k
}

func idOf(k []byte) int64 { return int64(binary.BigEndian.Uint64(k)) }

// keyStr is a company-scoped string key: company id then the string.
func keyStr(companyID int64, s string) []byte { return append(key(companyID), s...) }

// get decodes the value under k in bucket into v; found is false when absent.
func (t *Tx) get(bucket, k []byte, v any) (bool, error) {
	data := t.tx.Bucket(bucket).Get(k)
	if data == nil {
		return false, nil
	}
	if err := decode(bucket, data, v); err != nil {
		return false, err
	}
	return true, nil
}

func (t *Tx) put(bucket, k []byte, v any) error {
	data, err := encode(bucket, v)
	if err != nil {
		return err
	}
	b := t.tx.Bucket(bucket)
	if appendMostly(bucket) {
		// New keys mostly arrive after every key there is (new records),
		// so a page may fill whole before it splits. A key landing
		// mid-bucket (a reply to an older conversation) splits its full
		// page in two, as at any fill. bbolt's default (half full)
		// doubled the file of a bulk load, and 0.9 still left these
		// buckets' leaves 84% used.
		b.FillPercent = 1.0
	}
	return b.Put(k, data)
}

// appendMostly reports whether a bucket's keys grow with time: records keyed
// by their sequential id, threads by conversation then thread id.
func appendMostly(bucket []byte) bool {
	return bytes.Equal(bucket, bucketConversations) || bytes.Equal(bucket, bucketThreads) || bytes.Equal(bucket, bucketCustomers)
}

// nextID draws the next id of a record kind. Ids are global across
// companies, so a URL never identifies two records.
func (t *Tx) nextID(bucket []byte) (int64, error) {
	seq, err := t.tx.Bucket(bucket).NextSequence()
	return int64(seq), err
}

// Ids are unique across companies here, record kind by kind, so the reads
// of a record's children (a conversation's threads, a customer's
// conversations, a webhook's deliveries) find them by the parent's id
// alone: the company the seam hands them is the parent's, and goes
// unchecked. A read of one record (a delivery, an attachment) checks it.

// assignOrKeepID gives *id the next id of a record kind when it is 0, and
// else moves the kind's sequence past the id given (an import, a copy, a
// thread a merge moves): no id drawn later may reach a kept one, or its
// record would overwrite the kept record.
func (t *Tx) assignOrKeepID(bucket []byte, id *int64) error {
	if *id != 0 {
		return keepSequencePast(t.tx.Bucket(bucket), *id)
	}
	var err error
	*id, err = t.nextID(bucket)
	return err
}

// eachCompanyOf calls fn with the key of every record of bucket and the
// company the record names (only that field is decoded).
func eachCompanyOf(bucket []byte, t *Tx, fn func(k []byte, companyID int64)) error {
	return t.tx.Bucket(bucket).ForEach(func(k, v []byte) error {
		var rec struct {
			CompanyID int64 `json:"companyId"`
		}
		if err := decode(bucket, v, &rec); err != nil {
			return err
		}
		fn(k, rec.CompanyID)
		return nil
	})
}

// each decodes every value of bucket in key order, calling fn until it
// returns parley.ErrStop or an error.
func each[T any](t *Tx, bucket []byte, fn func(*T) error) error {
	c := t.tx.Bucket(bucket).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		rec := new(T)
		if err := decode(bucket, v, rec); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			if errors.Is(err, parley.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// scoped loads a company-owned record; another company's record is
// indistinguishable from a missing one.
func scoped[T any](t *Tx, bucket []byte, id int64, companyOf func(*T) int64, companyID int64, what string) (*T, error) {
	rec := new(T)
	found, err := t.get(bucket, key(id), rec)
	if err != nil {
		return nil, err
	}
	if !found || companyOf(rec) != companyID {
		return nil, parley.NotFound(what)
	}
	return rec, nil
}

// scopedAll loads a company's records by id in the order asked, skipping
// those the company does not hold. A read of the memory-mapped file is
// cheap, so a loop is the batch.
func scopedAll[T any](ids []int64, load func(companyID, id int64) (*T, error), companyID int64) ([]T, error) {
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		rec, err := load(companyID, id)
		if parley.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *rec)
	}
	return out, nil
}
