// Package storetest is the conformance suite of the store seam
// (parley.Store, parley.Tx): every backend runs it (the embedded bbolt
// store and PostgreSQL) and must behave alike, family by family: ids
// assigned on Put, records read back whole, another company's records not
// found, unique keys in conflict, listings in their documented order,
// secondary keys that follow renames and deletes, the records each write
// touches (which the indexer builds documents for), and, for a store with
// an index outbox, its sequences; and a transaction whose context is done
// committing nothing. It is test support:
// only tests import it.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/indexer"
)

// Backend is a store under test, with the records its committed writes
// touched: those whose search documents the write changed, which the
// indexer builds documents for (queued in an index outbox by the embedded
// store, handed to the indexer in the write by the PostgreSQL one).
type Backend interface {
	Store() parley.Store
	// Touched returns the records touched by the writes committed since
	// the last call, in order, without sequences.
	Touched() ([]parley.OutboxEntry, error)
}

// Outboxed is a store whose writes queue the records they touched in an
// index outbox (storage.DB): Touched drains it. The suite also holds its
// outbox to its sequences (testTransactions).
type Outboxed struct{ indexer.Source }

// Touched returns the outbox's entries, without their sequences, and
// acknowledges them.
func (o Outboxed) Touched() ([]parley.OutboxEntry, error) {
	entries, err := o.Outbox(0, 1000)
	if err != nil {
		return nil, err
	}
	if err := o.AckOutbox(entries); err != nil {
		return nil, err
	}
	var out []parley.OutboxEntry
	for _, e := range entries {
		e.Seq = 0
		out = append(out, e)
	}
	return out, nil
}

// Run runs the suite; open returns a new, empty backend for each test,
// closed when the test ends.
func Run(t *testing.T, open func(t *testing.T) Backend) {
	for _, family := range families {
		t.Run(family.name, func(t *testing.T) { family.run(t, open(t)) })
	}
}

var families = []struct {
	name string
	run  func(t *testing.T, b Backend)
}{
	{"transactions", testTransactions},
	{"cancelled transactions", testCancelled},
	{"companies", testCompanies},
	{"users", testUsers},
	{"teams", testTeams},
	{"credentials", testCredentials},
	{"mailboxes", testMailboxes},
	{"mailbox by e-mail", testMailboxByEmail},
	{"saved replies", testSavedReplies},
	{"customers", testCustomers},
	{"customer conversations", testCustomerConversations},
	{"batch reads", testBatchReads},
	{"cursor key", testCursorKey},
	{"property definitions", testPropertyDefs},
	{"organizations", testOrganizations},
	{"tags", testTags},
	{"conversations", testConversations},
	{"conversation outbox", testConversationOutbox},
	{"open assigned", testOpenAssigned},
	{"threads", testThreads},
	{"threads in one write", testThreadsInOneWrite},
	{"attachments", testAttachments},
	{"later", testLater},
	{"chats", testChats},
	{"chat timelines", testChatTimelines},
	{"mail", testMail},
	{"mail queue", testMailQueue},
	{"webhooks", testWebhooks},
	{"deliveries", testDeliveries},
	{"event queue", testEventQueue},
	{"delivery queue", testDeliveryQueue},
	{"workflows", testWorkflows},
	{"saved views", testSavedViews},
	{"pulls", testPulls},
	{"walks", testWalks},
	{"copy: credentials", testCopyCredentials},
	{"copy: kept ids", testKeepIDsPast},
	{"given id, then a draw", testGivenIDThenDraw},
}

// clock is the suite's fixed time; records carry it and times after it.
var clock = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)

// at is clock plus a number of minutes.
func at(minutes int) time.Time { return clock.Add(time.Duration(minutes) * time.Minute) }

func ptr[T any](v T) *T { return &v }

// update runs fn in a write that must commit, and returns its sequence.
func update(t *testing.T, b Backend, fn func(tx parley.Tx) error) uint64 {
	t.Helper()
	seq, err := b.Store().Update(context.Background(), fn)
	require.NoError(t, err)
	return seq
}

// view runs fn in a read that must succeed.
func view(t *testing.T, b Backend, fn func(tx parley.Tx) error) {
	t.Helper()
	require.NoError(t, b.Store().View(context.Background(), fn))
}

// get reads one value in a read of its own.
func get[T any](t *testing.T, b Backend, fn func(tx parley.Tx) (T, error)) T {
	t.Helper()
	var v T
	view(t, b, func(tx parley.Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	return v
}

// failure runs fn in a write and returns its error, which must not be nil.
func failure(t *testing.T, b Backend, fn func(tx parley.Tx) error) error {
	t.Helper()
	_, err := b.Store().Update(context.Background(), fn)
	require.Error(t, err)
	return err
}

// notFound asserts that a read answers NotFound.
func notFound(t *testing.T, b Backend, what string, fn func(tx parley.Tx) error) {
	t.Helper()
	err := b.Store().View(context.Background(), fn)
	require.Truef(t, parley.IsNotFound(err), "%s: want NotFound, got %v", what, err)
}

// put stores records in one write.
func put(t *testing.T, b Backend, puts ...func(tx parley.Tx) error) uint64 {
	t.Helper()
	return update(t, b, func(tx parley.Tx) error {
		for _, p := range puts {
			if err := p(tx); err != nil {
				return err
			}
		}
		return nil
	})
}

// drain returns the records the writes committed since the last drain
// touched (see Backend.Touched).
func drain(t *testing.T, b Backend) []parley.OutboxEntry {
	t.Helper()
	touched, err := b.Touched()
	require.NoError(t, err)
	return touched
}

func entry(kind parley.OutboxKind, company, id int64) parley.OutboxEntry {
	return parley.OutboxEntry{Kind: kind, Company: company, ID: id}
}
