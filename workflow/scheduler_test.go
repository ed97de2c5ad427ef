package workflow_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// manualClock is a clock the test moves.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }

// countWrites counts the write transactions of db from now on.
func countWrites(db *storage.DB) *atomic.Int64 {
	var n atomic.Int64
	db.OnTx(func(write bool, _ time.Duration) {
		if write {
			n.Add(1)
		}
	})
	return &n
}

// TestSchedulerIdleWritesNothing: with nothing due, wake cycles open no
// write transaction and ask to sleep until signalled; a wake-up stored
// later signals the scheduler, which sleeps until it is due, then wakes it
// in one write.
func TestSchedulerIdleWritesNothing(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	clock := &manualClock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	s := &workflow.Scheduler{Source: db, Clock: clock, Engine: &workflow.Engine{Clock: clock}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	writes := countWrites(db)

	for range 1000 {
		wait, err := s.Step(context.Background())
		require.NoError(t, err)
		require.Equal(t, time.Duration(-1), wait, "nothing pending: sleep until signalled")
		clock.now = clock.now.Add(time.Second)
	}
	assert.Zero(t, writes.Load(), "an idle scheduler writes nothing")
	select {
	case <-db.LaterChanged():
		t.Fatal("no wake-up was stored, so no signal")
	default:
	}

	at := clock.now.Add(90 * time.Second)
	_, err = db.Update(func(tx *storage.Tx) error {
		return tx.PutLater(parley.LaterItem{CompanyID: 1, Kind: parley.LaterSnooze, ID: 7, ConversationID: 7, At: at})
	})
	require.NoError(t, err)
	select {
	case <-db.LaterChanged():
	default:
		t.Fatal("storing a wake-up signals the scheduler")
	}
	writes.Store(0)
	wait, err := s.Step(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, wait, "sleep exactly until it is due")
	assert.Zero(t, writes.Load(), "not due yet: no write")

	clock.now = at
	wait, err = s.Step(context.Background())
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), wait, "woken; nothing else pending")
	assert.Equal(t, int64(1), writes.Load(), "one write wakes the due item")
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		_, pending := tx.NextLater()
		assert.False(t, pending, "the item fired and is gone")
		return nil
	}))
}

// schedulerDemo is the demo on bbolt with automatic workflows wired as
// serve wires them, on a clock the test moves, with the scheduler on it
// logging into logs.
type schedulerDemo struct {
	db    *storage.DB
	clock *manualClock
	s     *workflow.Scheduler
	logs  *bytes.Buffer
}

func openSchedulerDemo(t *testing.T, start time.Time) *schedulerDemo {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, fixtures.Load(db.Store(), start))
	clock := &manualClock{now: start}
	engine := &workflow.Engine{Clock: clock}
	db.SetBeforeCommit(engine.BeforeCommit)
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	return &schedulerDemo{db: db, clock: clock, s: &workflow.Scheduler{Source: db, Clock: clock, Engine: engine, Log: log}, logs: logs}
}

// companyOwner is the owner of a company of the demo.
func companyOwner(tx parley.Tx, company int64) (parley.Caller, error) {
	c, err := tx.Company(company)
	if err != nil {
		return parley.Caller{}, err
	}
	users, err := tx.Users(company)
	for i := range users {
		if users[i].Role == parley.RoleOwner {
			return parley.Caller{Company: c, User: &users[i]}, err
		}
	}
	return parley.Caller{}, fmt.Errorf("company %d has no owner (%v)", company, err)
}

// write runs fn in a write that must commit.
func (d *schedulerDemo) write(t *testing.T, fn func(tx parley.Tx) error) {
	t.Helper()
	_, err := d.db.Store().Update(context.Background(), fn)
	require.NoError(t, err)
}

// newConversation creates an unassigned conversation of a company in its
// first mailbox, by its owner, with the given number of customer threads.
func (d *schedulerDemo) newConversation(t *testing.T, company int64, status string, threads int) *parley.Conversation {
	t.Helper()
	var c *parley.Conversation
	d.write(t, func(tx parley.Tx) error {
		owner, err := companyOwner(tx, company)
		if err != nil {
			return err
		}
		mailboxes, err := tx.Mailboxes(company)
		if err != nil {
			return err
		}
		n := &parley.NewConversation{Subject: ptr("Any news?"), Type: ptr("email"), MailboxID: &mailboxes[0].ID, Status: &status,
			Customer: &parley.CustomerInput{Email: ptr("kim@example.com")}, AssignTo: parley.Nullable[int64]{Set: true, Null: true}}
		for i := range threads {
			n.Threads = append(n.Threads, parley.NewThread{Type: ptr("customer"), Text: ptr(fmt.Sprintf("Message %d", i+1))})
		}
		require.NoError(t, n.Validate())
		c, err = parley.CreateConversation(tx, owner, n, nil, d.clock.Now())
		return err
	})
	return c
}

// snooze snoozes a conversation of a company until a time, by its owner.
func (d *schedulerDemo) snooze(t *testing.T, c *parley.Conversation, until time.Time) {
	t.Helper()
	d.write(t, func(tx parley.Tx) error {
		owner, err := companyOwner(tx, c.CompanyID)
		if err != nil {
			return err
		}
		return parley.SnoozeConversation(tx, owner, c.ID, &parley.SnoozeRequest{SnoozedUntil: ptr(until.Format(time.RFC3339))}, d.clock.Now())
	})
}

// read loads a conversation and its line items' texts.
func (d *schedulerDemo) read(t *testing.T, c *parley.Conversation) (*parley.Conversation, []string) {
	t.Helper()
	var got *parley.Conversation
	var items []string
	require.NoError(t, d.db.Store().View(context.Background(), func(tx parley.Tx) (err error) {
		if got, err = tx.Conversation(c.CompanyID, c.ID); err != nil {
			return err
		}
		threads, err := tx.Threads(c.CompanyID, c.ID)
		for _, th := range threads {
			if th.Action != nil {
				items = append(items, th.Action.Text)
			}
		}
		return err
	}))
	return got, items
}

// runUntil runs the scheduler as run does, but on the test's clock: each
// step, then the clock moves by the wait it asks for, until nothing is
// pending or end. It returns when each watched conversation's snooze was
// seen ended (the clock at the step that ended it).
func (d *schedulerDemo) runUntil(t *testing.T, end time.Time, watched ...*parley.Conversation) map[int64]time.Time {
	t.Helper()
	woke := map[int64]time.Time{}
	for !d.clock.now.After(end) {
		wait, err := d.s.Step(context.Background())
		require.NoError(t, err, "at %s", d.clock.now)
		for _, c := range watched {
			if got, _ := d.read(t, c); got.Snooze == nil && woke[c.ID].IsZero() {
				woke[c.ID] = d.clock.now
			}
		}
		if wait < 0 {
			break
		}
		d.clock.now = d.clock.now.Add(wait)
	}
	return woke
}

// TestSchedulerFailingCompanyDelaysNoOther: company 1's writes fail (as
// when its database shard is unreachable) while its scheduled reply is
// due; company 2's snoozes, due the same second and the next, each end at
// their own tick all the same. Company 1's wake-up is not retried every
// second forever: it is tried again 1, 2, 4 and 8 minutes later, then
// dropped with a line item on its conversation (the reply stays a draft),
// and each failure is logged.
func TestSchedulerFailingCompanyDelaysNoOther(t *testing.T) {
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	due := start.Add(time.Hour)
	d := openSchedulerDemo(t, start)
	broken := d.newConversation(t, 1, "active", 1)
	var reply *parley.Thread
	d.write(t, func(tx parley.Tx) (err error) {
		owner, err := companyOwner(tx, 1)
		if err != nil {
			return err
		}
		if reply, err = parley.AddThread(tx, owner, broken.ID, parley.ThreadMessage, &parley.ThreadRequest{Text: ptr("On its way"), Draft: true},
			nil, start); err != nil {
			return err
		}
		return parley.ScheduleThread(tx, owner, broken.ID, reply.ID, &parley.ScheduleRequest{ScheduledFor: ptr(due.Format(time.RFC3339))}, start)
	})
	first, second := d.newConversation(t, 2, "active", 1), d.newConversation(t, 2, "active", 1)
	d.snooze(t, first, due)
	d.snooze(t, second, due.Add(time.Second))
	engine := d.s.Engine
	d.db.SetBeforeCommit(func(tx parley.Tx, events []parley.Event) error {
		for _, ev := range events {
			if ev.CompanyID == 1 {
				return errors.New("company 1's shard is unreachable")
			}
		}
		return engine.BeforeCommit(tx, events)
	})

	woke := d.runUntil(t, due.Add(time.Hour), first, second)
	assert.Equal(t, map[int64]time.Time{first.ID: due, second.ID: due.Add(time.Second)}, woke, "each at its own tick")

	_, items := d.read(t, broken)
	assert.Equal(t, []string{"Scheduled reply could not be sent: an internal error (see the server log)"}, items)
	require.NoError(t, d.db.View(func(tx *storage.Tx) error {
		threads, err := tx.Threads(broken.CompanyID, broken.ID)
		for _, th := range threads {
			if th.ID == reply.ID {
				assert.Equal(t, parley.ThreadDraft, th.State, "the reply stays a draft")
			}
		}
		_, pending := tx.NextLater()
		assert.False(t, pending, "nothing left to retry")
		return err
	}))
	wake := fmt.Sprintf("kind=scheduled id=%d company=1 conversation=%d err=\"company 1's shard is unreachable\"", reply.ID, broken.ID)
	assert.Equal(t, []string{
		`level=WARN msg="scheduler: a wake-up failed; will retry it" ` + wake + " retryAt=2026-11-21T13:01:00.000Z",
		`level=WARN msg="scheduler: a wake-up failed; will retry it" ` + wake + " retryAt=2026-11-21T13:03:00.000Z",
		`level=WARN msg="scheduler: a wake-up failed; will retry it" ` + wake + " retryAt=2026-11-21T13:07:00.000Z",
		`level=WARN msg="scheduler: a wake-up failed; will retry it" ` + wake + " retryAt=2026-11-21T13:15:00.000Z",
		`level=ERROR msg="scheduler: a wake-up failed; dropped it, with a line item on its conversation" ` + wake,
	}, strings.Split(strings.TrimSpace(d.logs.String()), "\n"))
}

// TestSchedulerFollowUpOnAFullConversation: the demo's own "Follow up
// pending" comes due on a pending conversation of 99 threads, at the
// second company 2's snooze ends. Its note cannot be added (at most 100
// threads): the note is skipped, said so on the workflow's line item, its
// tag is added, and the snooze ends at that same tick.
func TestSchedulerFollowUpOnAFullConversation(t *testing.T) {
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	due := start.AddDate(0, 0, 3)
	d := openSchedulerDemo(t, start)
	full := d.newConversation(t, 1, "pending", 99)
	other := d.newConversation(t, 2, "active", 1)
	d.snooze(t, other, due)

	woke := d.runUntil(t, due.Add(time.Hour), other)
	assert.Equal(t, map[int64]time.Time{other.ID: due}, woke)
	got, items := d.read(t, full)
	require.Len(t, got.TagIDs, 1)
	assert.Equal(t, []string{"Workflow Follow up pending ran; skipped note: the conversation has 99 threads; at most 100 are allowed"}, items)
	assert.Empty(t, d.logs.String(), "nothing failed")
}
