package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestConcurrentWritersAllCommit: writers of one company's conversations
// all commit, through retries when they collide, with numbers that are
// each used once.
func TestConcurrentWritersAllCommit(t *testing.T) {
	db, _ := open(t)
	const writers, writes = 6, 8
	var wg sync.WaitGroup
	results := make(chan *parley.Conversation, writers*writes)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writes {
				c := &parley.Conversation{CompanyID: 1, CustomerID: int64(w + 1), MailboxID: 1, State: parley.StatePublished}
				_, err := db.Update(context.Background(), func(tx *Tx) error {
					c.ID, c.Number = 0, 0 // the write may run again
					return tx.PutConversation(c)
				})
				if !assert.NoError(t, err) {
					return
				}
				results <- c
			}
		}()
	}
	wg.Wait()
	close(results)

	numbers := map[int64]bool{}
	for c := range results {
		assert.False(t, numbers[c.Number], "number %d used twice", c.Number)
		numbers[c.Number] = true
	}
	assert.Len(t, numbers, writers*writes)
}

// TestAnOpenWriteHoldsNoConversationNumber: a write that created a
// conversation and has not committed (its node paused) holds nothing that
// another write creating one of the company's conversations waits for;
// each gets a number of its own.
func TestAnOpenWriteHoldsNoConversationNumber(t *testing.T) {
	db, _ := open(t)
	paused, resume := make(chan struct{}), make(chan struct{})
	first := &parley.Conversation{CompanyID: 1, CustomerID: 1, MailboxID: 1, State: parley.StatePublished}
	firstDone := make(chan error, 1)
	go func() {
		_, err := db.Update(context.Background(), func(tx *Tx) error {
			first.ID, first.Number = 0, 0
			if err := tx.PutConversation(first); err != nil {
				return err
			}
			select {
			case <-paused:
			default:
				close(paused)
			}
			<-resume
			return nil
		})
		firstDone <- err
	}()
	<-paused
	second := &parley.Conversation{CompanyID: 1, CustomerID: 2, MailboxID: 1, State: parley.StatePublished}
	secondDone := make(chan error, 1)
	go func() {
		_, err := db.Update(context.Background(), func(tx *Tx) error {
			second.ID, second.Number = 0, 0
			return tx.PutConversation(second)
		})
		secondDone <- err
	}()
	select {
	case err := <-secondDone:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second): // a lock would be held until resume
		t.Error("the second write waited for the open one")
	}
	close(resume)
	require.NoError(t, <-firstDone)
	assert.NotEqual(t, first.Number, second.Number)
}

// racePausedWrite runs the write first until it calls its between, which
// stops it there; then the write second, until it either finishes (nothing
// made it wait) or waits for a lock the first holds; then lets the first
// go on, and returns what each write's run count and error were.
func racePausedWrite(t *testing.T, url string, first, second func(between func()) (int, error)) (firstRuns int, firstErr error, secondRuns int, secondErr error) {
	t.Helper()
	ctx := context.Background()
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		firstRuns, firstErr = first(func() { once.Do(func() { close(paused); <-resume }) })
	}()
	<-paused
	secondDone := make(chan struct{})
	go func() {
		defer close(secondDone)
		secondRuns, secondErr = second(func() {})
	}()
	conn := pgtest.Dial(t, url)
	require.Eventually(t, func() bool {
		select {
		case <-secondDone:
			return true
		default:
			var waiting int
			require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting))
			return waiting > 0
		}
	}, 10*time.Second, 10*time.Millisecond)
	close(resume)
	<-firstDone
	<-secondDone
	return firstRuns, firstErr, secondRuns, secondErr
}

// TestAppendsToOneChatTakeTurns: two writes append to one chat's timeline
// at once, the first stopped after its insert. The second's insert of the
// same position waits for the first, meets its key (a unique violation),
// and runs again at the next position: both entries are kept, in order.
func TestAppendsToOneChatTakeTurns(t *testing.T) {
	ctx := context.Background()
	db, url := open(t)
	appendEntry := func(title string, between func()) (int, error) {
		runs := 0
		_, err := db.Update(ctx, func(tx *Tx) error {
			runs++
			if err := tx.PutTimelineEntry(1, "chat-1", parley.TimelineEntry{Type: "page", Title: title}); err != nil {
				return err
			}
			tx.flush() // the insert reaches the server
			between()
			return nil
		})
		return runs, err
	}
	_, firstErr, secondRuns, secondErr := racePausedWrite(t, url,
		func(between func()) (int, error) { return appendEntry("first", between) },
		func(between func()) (int, error) { return appendEntry("second", between) })
	require.NoError(t, firstErr)
	require.NoError(t, secondErr)
	assert.Equal(t, 2, secondRuns, "the second write ran again after the first committed")
	err := db.View(ctx, func(tx *Tx) error {
		entries, err := tx.ChatTimeline(1, "chat-1")
		require.Len(t, entries, 2)
		assert.Equal(t, []string{"first", "second"}, []string{entries[0].Title, entries[1].Title})
		return err
	})
	require.NoError(t, err)
}

var sqlIsolation = stmt(`SHOW transaction_isolation`)

// TestWritesRunRepeatableRead: a write sees one snapshot (see DB.Update
// for why this level).
func TestWritesRunRepeatableRead(t *testing.T) {
	db, _ := open(t)
	var level string
	_, err := db.Update(context.Background(), func(tx *Tx) error {
		_, err := tx.scan(sqlIsolation, nil, &level)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, "repeatable read", level)
}
