package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/internal/pgtest"
	"github.com/parley/parley/pgstore"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/workflow"
)

// TestMain stops the PostgreSQL server the postgres cases start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// movingClock is a fixed clock the test moves.
type movingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movingClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *movingClock) set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }
func (c *movingClock) add(d time.Duration) { c.set(c.Now().Add(d)) }

// hookedStore is what the wake-up tests need of either backend.
type hookedStore interface {
	Store() parley.Store
	SetBeforeCommit(fn parley.BeforeCommit)
}

// backends open the demo on bbolt and on PostgreSQL.
var backends = []struct {
	name string
	open func(t *testing.T) hookedStore
}{
	{"bbolt", func(t *testing.T) hookedStore {
		db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}},
	{"postgres", func(t *testing.T) hookedStore {
		ctx := context.Background()
		url := pgtest.Database(t)
		_, err := pgstore.Migrate(ctx, url)
		require.NoError(t, err)
		db, err := pgstore.Open(ctx, url, pgstore.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}},
}

// hooked is the demo on one backend with the workflow engine run at each
// commit on a clock the test moves, the owner acting, and the demo's
// second mailbox (the demo's own workflows are the first's).
type hooked struct {
	store     parley.Store
	clock     *movingClock
	engine    *workflow.Engine
	caller    parley.Caller
	mailboxID int64
}

func openHooked(t *testing.T, open func(*testing.T) hookedStore) hooked {
	t.Helper()
	db := open(t)
	h := hooked{store: db.Store(), clock: &movingClock{now: now}}
	require.NoError(t, fixtures.Load(h.store, now))
	h.engine = &workflow.Engine{Clock: h.clock}
	db.SetBeforeCommit(h.engine.BeforeCommit)
	h.caller = ownerOf(t, h.store)
	require.NoError(t, h.store.View(context.Background(), func(tx parley.Tx) error {
		mailboxes, err := tx.Mailboxes(1)
		if err == nil {
			h.mailboxID = mailboxes[1].ID
		}
		return err
	}))
	return h
}

// write runs fn in a write that must commit.
func (h hooked) write(t *testing.T, fn func(tx parley.Tx) error) {
	t.Helper()
	_, err := h.store.Update(context.Background(), fn)
	require.NoError(t, err)
}

// TestTimeConditionFiresOnce: an automatic workflow whose condition is
// `status:pending AND modifiedAt:[* TO NOW-30DAYS]` does not match the
// conversation a write leaves; the write stores a wake-up 30 days after
// the conversation's last change, a later write moves it, the scheduler
// fires it when due (not a second earlier), the workflow runs once, and
// the fired wake-up does not fire again.
func TestTimeConditionFiresOnce(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := openHooked(t, b.open)
			store, clock, engine, caller, mailboxID := h.store, h.clock, h.engine, h.caller, h.mailboxID
			write := func(fn func(tx parley.Tx) error) { t.Helper(); h.write(t, fn) }
			var w *parley.Workflow
			write(func(tx parley.Tx) (err error) {
				w, err = parley.CreateWorkflow(tx, caller, &parley.WorkflowInput{MailboxID: &mailboxID, Name: ptr("Close stale pending"),
					Type: ptr(parley.WorkflowAutomatic), Conditions: []string{"status:pending AND modifiedAt:[* TO NOW-30DAYS]"},
					Actions: []parley.WorkflowAction{{Type: parley.ActionStatus, Status: "closed"}}}, workflow.Check, now)
				return err
			})
			var conv *parley.Conversation
			write(func(tx parley.Tx) (err error) {
				n := &parley.NewConversation{Subject: ptr("Waiting on you"), Type: ptr("email"), MailboxID: &mailboxID, Status: ptr("pending"),
					Customer: &parley.CustomerInput{Email: ptr("kim@example.com")}, AssignTo: parley.Nullable[int64]{Set: true, Null: true},
					Threads: []parley.NewThread{{Type: ptr("customer"), Text: ptr("Any news?")}}}
				require.NoError(t, n.Validate())
				conv, err = parley.CreateConversation(tx, caller, n, nil, now)
				return err
			})
			wakeUp := func() (parley.LaterItem, bool) {
				var items []parley.LaterItem
				require.NoError(t, store.View(context.Background(), func(tx parley.Tx) (err error) {
					items, err = tx.DueLater(now.AddDate(1, 0, 0))
					return err
				}))
				for _, it := range items {
					if it.Kind == parley.LaterWorkflow && it.ConversationID == conv.ID {
						return it, true
					}
				}
				return parley.LaterItem{}, false
			}
			item, ok := wakeUp()
			require.True(t, ok, "the create stored a wake-up")
			assert.Equal(t, parley.LaterItem{CompanyID: 1, Kind: parley.LaterWorkflow, ID: conv.ID, ConversationID: conv.ID,
				At: now.AddDate(0, 0, 30), WorkflowIDs: []int64{w.ID}}, stripZone(item))
			require.NoError(t, store.View(context.Background(), func(tx parley.Tx) error {
				n, err := tx.CountLater(1)
				assert.Zero(t, n, "workflow wake-ups are not counted against the limit")
				return err
			}))

			// A note ten days later changes the conversation: the wake-up moves.
			clock.add(10 * 24 * time.Hour)
			write(func(tx parley.Tx) error {
				_, err := parley.AddThread(tx, caller, conv.ID, parley.ThreadNote, &parley.ThreadRequest{Text: ptr("Chasing the carrier")}, nil, clock.Now())
				return err
			})
			item, ok = wakeUp()
			require.True(t, ok)
			due := now.AddDate(0, 0, 40)
			assert.Equal(t, due, item.At.UTC(), "30 days after the note")

			runs := func() []parley.WorkflowRun {
				var out []parley.WorkflowRun
				require.NoError(t, store.View(context.Background(), func(tx parley.Tx) (err error) {
					out, err = tx.WorkflowRuns(1, w.ID)
					return err
				}))
				return out
			}
			status := func() parley.Status {
				var s parley.Status
				require.NoError(t, store.View(context.Background(), func(tx parley.Tx) error {
					c, err := tx.Conversation(1, conv.ID)
					s = c.Status
					return err
				}))
				return s
			}
			for _, step := range []struct {
				at    time.Time
				woke  int
				runs  int
				state parley.Status
			}{
				{now.AddDate(0, 0, 30), 0, 0, parley.StatusPending}, // the first time was moved
				{due.Add(-time.Second), 0, 0, parley.StatusPending},
				{due, 1, 1, parley.StatusClosed},
				{due.Add(time.Hour), 0, 1, parley.StatusClosed}, // fired once
				{due.AddDate(1, 0, 0), 0, 1, parley.StatusClosed},
			} {
				clock.set(step.at)
				report, err := engine.Wake(context.Background(), store, step.at)
				require.NoError(t, err)
				assert.Equal(t, step.woke, report.Woken, "woken at %s", step.at)
				assert.Len(t, runs(), step.runs, "runs at %s", step.at)
				assert.Equal(t, step.state, status(), "status at %s", step.at)
			}
			got := runs()[0]
			assert.Equal(t, workflow.TriggerTime, got.Trigger)
			assert.True(t, got.Matched)
			assert.Equal(t, due, got.At.UTC())
			_, ok = wakeUp()
			assert.False(t, ok, "closed, the workflow can no longer match: no wake-up left")
		})
	}
}

// TestWakeUpRemovedWithConversation: deleting a conversation removes its
// workflow wake-up.
func TestWakeUpRemovedWithConversation(t *testing.T) {
	db, caller := setup(t)
	conv := firstConversation(t, db)
	create(t, db, caller, parley.WorkflowInput{MailboxID: &conv.MailboxID, Name: ptr("Nudge"), Type: ptr(parley.WorkflowAutomatic),
		Conditions: []string{"createdAt:[* TO NOW-2DAYS] AND tag:nudge-me"}, Actions: []parley.WorkflowAction{{Type: parley.ActionNote, Text: "Nudge"}}})
	fresh := newConversation(t, db, caller, conv.MailboxID, "Nudge me")
	_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
		return parley.ReplaceTags(tx, caller, fresh.ID, []string{"nudge-me"}, now)
	})
	require.NoError(t, err)
	pending := func() bool {
		var found bool
		require.NoError(t, db.View(func(tx *storage.Tx) error {
			items, err := tx.DueLater(now.AddDate(1, 0, 0))
			for _, it := range items {
				found = found || (it.Kind == parley.LaterWorkflow && it.ID == fresh.ID)
			}
			return err
		}))
		return found
	}
	require.True(t, pending(), "tagged, it will match two days after it was created")
	_, err = db.Store().Update(context.Background(), func(tx parley.Tx) error { return parley.DeleteConversation(tx, caller, fresh.ID, now) })
	require.NoError(t, err)
	assert.False(t, pending())
}

// ownerOf is the owner of company 1.
func ownerOf(t testing.TB, store parley.Store) parley.Caller {
	var caller parley.Caller
	require.NoError(t, store.View(context.Background(), func(tx parley.Tx) error {
		company, err := tx.Company(1)
		if err != nil {
			return err
		}
		users, err := tx.Users(1)
		for i := range users {
			if users[i].Role == parley.RoleOwner {
				caller = parley.Caller{Company: company, User: &users[i]}
			}
		}
		return err
	}))
	require.NotNil(t, caller.User)
	return caller
}

// stripZone reads an item's time in UTC, as the backends may give it
// another location.
func stripZone(it parley.LaterItem) parley.LaterItem {
	it.At = it.At.UTC()
	return it
}

// TestWokenWorkflowRunsOnce: a woken workflow whose action leaves its
// condition true (`createdAt` does not move) runs once in the wake-up,
// although its own tags change triggers the automatic workflows again in
// the same transaction.
func TestWokenWorkflowRunsOnce(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := openHooked(t, b.open)
			store, clock, engine, caller, mailboxID := h.store, h.clock, h.engine, h.caller, h.mailboxID
			var w *parley.Workflow
			var conv *parley.Conversation
			_, err := store.Update(context.Background(), func(tx parley.Tx) (err error) {
				w, err = parley.CreateWorkflow(tx, caller, &parley.WorkflowInput{MailboxID: &mailboxID, Name: ptr("Old"),
					Type: ptr(parley.WorkflowAutomatic), Conditions: []string{"createdAt:[* TO NOW-1DAY]"},
					Actions: []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{"old"}}}}, workflow.Check, now)
				return err
			})
			require.NoError(t, err)
			_, err = store.Update(context.Background(), func(tx parley.Tx) (err error) {
				n := &parley.NewConversation{Subject: ptr("Hello"), Type: ptr("email"), MailboxID: &mailboxID, Status: ptr("active"),
					Customer: &parley.CustomerInput{Email: ptr("kim@example.com")}, AssignTo: parley.Nullable[int64]{Set: true, Null: true},
					Threads: []parley.NewThread{{Type: ptr("customer"), Text: ptr("Hi")}}}
				conv, err = parley.CreateConversation(tx, caller, n, nil, now)
				return err
			})
			require.NoError(t, err)
			clock.set(now.AddDate(0, 0, 1))
			report, err := engine.Wake(context.Background(), store, clock.Now())
			require.NoError(t, err)
			assert.Equal(t, 1, report.Woken)
			require.NoError(t, store.View(context.Background(), func(tx parley.Tx) error {
				runs, err := tx.WorkflowRuns(1, w.ID)
				require.Len(t, runs, 1)
				assert.Equal(t, workflow.TriggerTime, runs[0].Trigger)
				c, err2 := tx.Conversation(1, conv.ID)
				require.NoError(t, err2)
				assert.Len(t, c.TagIDs, 1)
				return err
			}))
		})
	}
}

// TestTimeWorkflowRunsOncePerChange: a time condition that its own action
// makes false and time makes true again (`modifiedAt:[* TO NOW-2SECONDS]`
// with a note) runs once on a conversation, not every few seconds; another
// time workflow's change (a tag 30 seconds after the conversation was
// created) does not make it run again; a user's note does, once.
func TestTimeWorkflowRunsOncePerChange(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			h := openHooked(t, b.open)
			clock, caller, mailboxID := h.clock, h.caller, h.mailboxID
			var ping, old *parley.Workflow
			var conv *parley.Conversation
			h.write(t, func(tx parley.Tx) (err error) {
				ping, err = parley.CreateWorkflow(tx, caller, &parley.WorkflowInput{MailboxID: &mailboxID, Name: ptr("Ping"),
					Type: ptr(parley.WorkflowAutomatic), Conditions: []string{"modifiedAt:[* TO NOW-2SECONDS]"},
					Actions: []parley.WorkflowAction{{Type: parley.ActionNote, Text: "Still there?"}}}, workflow.Check, now)
				if err != nil {
					return err
				}
				old, err = parley.CreateWorkflow(tx, caller, &parley.WorkflowInput{MailboxID: &mailboxID, Name: ptr("Old"),
					Type: ptr(parley.WorkflowAutomatic), Conditions: []string{"createdAt:[* TO NOW-30SECONDS]"},
					Actions: []parley.WorkflowAction{{Type: parley.ActionAddTags, Tags: []string{"old"}}}}, workflow.Check, now)
				return err
			})
			h.write(t, func(tx parley.Tx) (err error) {
				n := &parley.NewConversation{Subject: ptr("Hello"), Type: ptr("email"), MailboxID: &mailboxID, Status: ptr("active"),
					Customer: &parley.CustomerInput{Email: ptr("kim@example.com")}, AssignTo: parley.Nullable[int64]{Set: true, Null: true},
					Threads: []parley.NewThread{{Type: ptr("customer"), Text: ptr("Hi")}}}
				conv, err = parley.CreateConversation(tx, caller, n, nil, now)
				return err
			})
			runs := func(w *parley.Workflow) int {
				var n int
				require.NoError(t, h.store.View(context.Background(), func(tx parley.Tx) error {
					all, err := tx.WorkflowRuns(1, w.ID)
					for _, r := range all {
						if r.ConversationID == conv.ID {
							n++
						}
					}
					return err
				}))
				return n
			}
			userNote := func(tx parley.Tx) error {
				_, err := parley.AddThread(tx, caller, conv.ID, parley.ThreadNote, &parley.ThreadRequest{Text: ptr("Looking")}, nil, clock.Now())
				return err
			}
			for _, phase := range []struct {
				name      string
				change    func(tx parley.Tx) error // someone else's write first
				ping, old int                      // runs so far
			}{
				{"a minute after the create", nil, 1, 1},
				{"a minute after a user's note", userNote, 2, 1},
				{"a minute more", nil, 2, 1},
			} {
				if phase.change != nil {
					h.write(t, phase.change)
				}
				for range 60 {
					clock.add(time.Second)
					report, err := h.engine.Wake(context.Background(), h.store, clock.Now())
					require.NoError(t, err)
					require.Empty(t, report.Failed)
				}
				assert.Equal(t, phase.ping, runs(ping), "Ping: %s", phase.name)
				assert.Equal(t, phase.old, runs(old), "Old: %s", phase.name)
			}
		})
	}
}
