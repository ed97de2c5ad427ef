package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/email"
	"github.com/parley/parley/email/smtptest"
)

// stallBound is how long a write, or the wait until a search finds it,
// may take before a test calls it stalled. The figures a node should
// keep to are far smaller (a write well under a second); they are
// logged, not asserted, as timings are not on a shared machine. A write
// waiting on a lock that a stopped node holds would wait for as long as
// the node is stopped.
const stallBound = 10 * time.Second

// found polls a search on base for the conversation id with subject until
// it finds it, and says how long that took; false when stallBound passed.
func found(ctx context.Context, base, token string, id int64, subject string) (time.Duration, bool) {
	q := base + "/v2/conversations?status=all&query=" + url.QueryEscape(fmt.Sprintf(`id:%d AND subject:"%s"`, id, subject))
	start := time.Now()
	for time.Since(start) < stallBound && ctx.Err() == nil {
		res, err := call(ctx, http.MethodGet, q, token, "")
		if err == nil {
			total, ok := searchTotal(res)
			if ok && total == 1 {
				return time.Since(start), true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start), false
}

// searchTotal reads page.totalElements of a 200 answer and closes its body.
func searchTotal(res *http.Response) (int, bool) {
	defer res.Body.Close()
	var list struct {
		Page struct {
			TotalElements int `json:"totalElements"`
		} `json:"page"`
	}
	if res.StatusCode != http.StatusOK {
		return 0, false
	}
	err := json.NewDecoder(res.Body).Decode(&list)
	return list.Page.TotalElements, err == nil
}

// everyWriteFound checks that a search on base finds each acknowledged
// conversation by its id and subject (verify searches a sample).
func everyWriteFound(t *testing.T, base, token string, writes []*acked) {
	t.Helper()
	missing := []int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan *acked)
	for range 4 {
		wg.Go(func() {
			for a := range work {
				if _, ok := found(context.Background(), base, token, a.conversation, a.subject); !ok {
					mu.Lock()
					missing = append(missing, a.conversation)
					mu.Unlock()
				}
			}
		})
	}
	for _, a := range writes {
		work <- a
	}
	close(work)
	wg.Wait()
	assert.Empty(t, missing, "acknowledged conversations no search on %s finds", base)
}

// timedWrite is a write acknowledged during TestStopANodeWhileAnotherTakesWrites.
type timedWrite struct {
	at    time.Time     // when it was acknowledged
	took  time.Duration // from the request to the acknowledgement
	found time.Duration // from the acknowledgement until a search found it (creates only)
}

// TestStopANodeWhileAnotherTakesWrites runs two `parley serve` processes on
// one database and stops A with SIGSTOP for 30 s, in the middle of writes
// through it, while four writers create conversations through B and add a
// note to each. B keeps taking writes while A is stopped, none waits on A
// (no write takes stallBound), and a search on B finds every conversation
// B acknowledged; after SIGCONT, A takes writes again, and every write
// either node acknowledged is there and found.
func TestStopANodeWhileAnotherTakesWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and stops real servers")
	}
	const stopFor = 30 * time.Second
	bin := buildParley(t)
	database := migratedDatabase(t)
	a := startNode(t, bin, database, true)
	token := demoToken(t, a.url())
	b := startNode(t, bin, database, false)

	var mu sync.Mutex
	var writes []*acked    // every acknowledged conversation, through either node
	var timed []timedWrite // B's acknowledged writes
	var notFound []int64   // B's conversations a search on B did not find within stallBound
	refused := 0           // B's writes not acknowledged
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// Writers on A keep it inside writes when it stops: whatever a write
	// holds (its transaction, its row locks) stays held while A is stopped.
	for writer := range 4 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				subject := fmt.Sprintf("Paused%dx%d", writer, n)
				if id, ok := createConversationFrom(ctx, a.url(), token, subject, fmt.Sprintf("paused%d@example.com", writer)); ok {
					mu.Lock()
					writes = append(writes, &acked{conversation: id, subject: subject, threads: 1})
					mu.Unlock()
				}
			}
		})
	}
	for writer := range 4 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				subject := fmt.Sprintf("Live%dx%d", writer, n)
				start := time.Now()
				id, ok := createConversationFrom(ctx, b.url(), token, subject, fmt.Sprintf("live%d@example.com", writer))
				created := time.Now()
				if !ok {
					if ctx.Err() == nil {
						mu.Lock()
						refused++
						mu.Unlock()
					}
					continue
				}
				after, ok := found(ctx, b.url(), token, id, subject)
				if !ok {
					after = 0
				}
				noted := time.Now()
				threads := 1
				if addNote(ctx, b.url(), token, id) {
					threads = 2
				}
				done := time.Now()
				mu.Lock()
				writes = append(writes, &acked{conversation: id, subject: subject, threads: threads})
				timed = append(timed, timedWrite{at: created, took: created.Sub(start), found: after})
				if threads == 2 {
					timed = append(timed, timedWrite{at: done, took: done.Sub(noted)})
				}
				if !ok && ctx.Err() == nil {
					notFound = append(notFound, id)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(3 * time.Second)
	stoppedAt := time.Now()
	a.signal(syscall.SIGSTOP)
	time.Sleep(stopFor)
	a.signal(syscall.SIGCONT)
	resumedAt := time.Now()
	time.Sleep(3 * time.Second)
	stop()
	wg.Wait()

	// A works again: a write through it is acknowledged and found on both.
	id, ok := createConversation(context.Background(), a.url(), token, "Resumed write")
	require.True(t, ok, "A takes writes after SIGCONT")
	_, ok = found(context.Background(), a.url(), token, id, "Resumed write")
	assert.True(t, ok, "A's write is found on A")
	_, ok = found(context.Background(), b.url(), token, id, "Resumed write")
	assert.True(t, ok, "A's write is found on B")

	duringStop := 0
	var took, foundAfter []time.Duration
	for _, w := range timed {
		if !w.at.Before(stoppedAt) && w.at.Before(resumedAt) {
			duringStop++
		}
		took = append(took, w.took)
		if w.found > 0 {
			foundAfter = append(foundAfter, w.found)
		}
	}
	slices.Sort(took)
	slices.Sort(foundAfter)
	require.NotEmpty(t, took)
	require.NotEmpty(t, foundAfter)
	p99 := took[len(took)*99/100]
	t.Logf("A stopped for %s: B acknowledged %d writes while A was stopped, %d in all (%d refused); write latency on B: p50 %s, p99 %s, max %s; time until a search on B found a conversation B acknowledged: p50 %s, max %s; %d conversations acknowledged through either node",
		stopFor, duringStop, len(timed), refused, took[len(took)/2].Round(time.Millisecond), p99.Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond),
		foundAfter[len(foundAfter)/2].Round(time.Millisecond), foundAfter[len(foundAfter)-1].Round(time.Millisecond), len(writes))
	// When the slowest writes happened says what held them: at the stop,
	// a lock of A's; anywhere, the machine.
	slowest := slices.SortedFunc(slices.Values(timed), func(a, b timedWrite) int { return cmp.Compare(b.took, a.took) })
	for _, w := range slowest[:min(3, len(slowest))] {
		t.Logf("a slow write on B: %s, acknowledged %s after A stopped", w.took.Round(time.Millisecond), w.at.Sub(stoppedAt).Round(time.Millisecond))
	}
	assert.Greater(t, duringStop, 100, "B kept taking writes while A was stopped")
	// Writers of one company may collide (a write that fails 30 times in
	// a row is refused); a node stopped inside a write must not make B
	// refuse writes wholesale (the database running out of lock memory,
	// say).
	assert.Less(t, refused*100, len(timed), "B refused under 1%% of its writes")
	assert.Less(t, took[len(took)-1], stallBound, "no write on B waited on the stopped node")
	assert.Empty(t, notFound, "conversations B acknowledged that a search on B did not find within %s", stallBound)
	verify(t, b.url(), token, writes)
	everyWriteFound(t, b.url(), token, writes)
}

// messageIDs counts the messages a relay accepted by their Message-ID
// (without its angle brackets, as parley.Mail holds it).
func messageIDs(t *testing.T, relay *smtptest.Server) map[string]int {
	t.Helper()
	ids := map[string]int{}
	for _, m := range relay.Messages() {
		msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
		require.NoError(t, err)
		ids[strings.Trim(msg.Header.Get("Message-Id"), "<>")]++
	}
	return ids
}

// TestTwoNodesSendAnEmailOnce: both nodes run the e-mail dispatcher and
// both are woken by every commit; each reply, queued through either node,
// reaches the relay once all the same.
func TestTwoNodesSendAnEmailOnce(t *testing.T) {
	relay := smtptest.New(t)
	a, b, token := twoNodes(t, "--smtp-relay", relay.Addr)
	ctx := context.Background()
	const replies = 16
	var wg sync.WaitGroup
	for i := range replies {
		wg.Go(func() {
			node, other := []string{a, b}[i%2], []string{b, a}[i%2]
			id, ok := createConversationFrom(ctx, node, token, fmt.Sprintf("Numbat %d", i), fmt.Sprintf("numbat%d@example.com", i))
			if !assert.True(t, ok) {
				return
			}
			res, err := call(ctx, http.MethodPost, fmt.Sprintf("%s/v2/conversations/%d/reply", other, id), token, `{"text":"Your numbat ships today."}`)
			if assert.NoError(t, err) {
				res.Body.Close()
				assert.Equal(t, http.StatusCreated, res.StatusCode)
			}
		})
	}
	wg.Wait()
	// The relay also gets the demo's queued e-mails and the assignment
	// notifications of the new conversations: each once, too.
	sentReplies := func() int {
		n := 0
		for _, m := range relay.Messages() {
			if bytes.Contains(m.Data, []byte("Your numbat ships today.")) {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return sentReplies() >= replies }, 30*time.Second, 50*time.Millisecond, "got %d", sentReplies())
	time.Sleep(2 * time.Second) // a second copy would come now
	assert.Equal(t, replies, sentReplies(), "each reply once")
	for id, n := range messageIDs(t, relay) {
		assert.Equal(t, 1, n, "message %s reached the relay once", id)
	}
}

// pausedSender is a node stopped between claiming an e-mail and handing
// it to the relay: its first Send names the e-mail in claimed, then waits
// for resume; later ones go at once.
type pausedSender struct {
	relay   email.Sender
	once    sync.Once
	claimed chan string // the Message-ID of the e-mail it stopped on
	resume  chan struct{}
}

func (s *pausedSender) Send(ctx context.Context, messageID, from string, recipients []string, raw []byte) parley.MailAttempt {
	s.once.Do(func() {
		s.claimed <- messageID
		<-s.resume
	})
	return s.relay.Send(ctx, messageID, from, recipients, raw)
}

// TestAnEmailClaimedByAStoppedNodeGoesWhenItsLeaseEnds: node A claims an
// e-mail the demo queued and stops before handing it to the relay. Node B
// leaves it while A's lease runs (sending the others) and sends it once
// the lease is over. Delivery is at least once: A, resumed, finishes the
// attempt it was in and the relay gets a second copy, with the same
// Message-ID and bytes (which mail clients show once); the e-mail stays
// recorded as sent by B's attempt. The dispatchers are given the time
// (SendDue's now), so the lease's end is reached without waiting for it.
func TestAnEmailClaimedByAStoppedNodeGoesWhenItsLeaseEnds(t *testing.T) {
	ctx := context.Background()
	database, _ := migratedDemo(t)
	nodeA, err := open(ctx, location{url: database}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer nodeA.close()
	nodeB, err := open(ctx, location{url: database}, false, fixedClock{}, quietLog(), nil)
	require.NoError(t, err)
	defer nodeB.close()
	now := fixedClock{}.Now()
	queued := map[string]parley.Mail{} // by Message-ID
	require.NoError(t, nodeA.db.Store().View(ctx, func(tx parley.Tx) error {
		due, err := tx.DueMail(now, 100)
		for _, m := range due {
			queued[m.MessageID] = m
		}
		return err
	}))
	require.NotEmpty(t, queued, "the demo queues e-mails")

	relay := smtptest.New(t)
	sender := &email.Relay{Addr: relay.Addr}
	paused := &pausedSender{relay: sender, claimed: make(chan string, 1), resume: make(chan struct{})}
	dispatcherA := email.NewDispatcher(email.Config{DB: nodeA.db, Sender: paused, Log: quietLog()})
	dispatcherB := email.NewDispatcher(email.Config{DB: nodeB.db, Sender: sender, Log: quietLog()})
	aDone := make(chan error, 1)
	go func() { _, err := dispatcherA.SendDue(ctx, now); aDone <- err }()
	var resumeOnce sync.Once
	resume := func() { resumeOnce.Do(func() { close(paused.resume) }) }
	defer resume() // on a failure too, so A's attempt ends
	held := <-paused.claimed
	require.Contains(t, queued, held)

	// A round that cannot take what it lists would go round for good.
	bounded, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = dispatcherB.SendDue(bounded, now.Add(time.Minute))
	require.NoError(t, err)
	assert.Zero(t, messageIDs(t, relay)[held], "B leaves the e-mail A's lease holds")
	_, err = dispatcherB.SendDue(bounded, now.Add(3*time.Minute)) // the lease is the send timeout plus a minute
	require.NoError(t, err)
	assert.Equal(t, 1, messageIDs(t, relay)[held], "B sends it once A's lease is over")
	recorded := func() *parley.Mail {
		t.Helper()
		m := queued[held]
		var got *parley.Mail
		require.NoError(t, nodeB.db.Store().View(ctx, func(tx parley.Tx) (err error) {
			got, err = tx.Mail(m.CompanyID, m.ID)
			return err
		}))
		return got
	}
	sent := recorded()
	assert.Equal(t, parley.MailSent, sent.Status)

	resume()
	require.NoError(t, <-aDone)
	ids := messageIDs(t, relay)
	assert.Equal(t, 2, ids[held], "A, resumed, finishes the attempt it was in")
	var copies [][]byte
	for _, m := range relay.Messages() {
		if msg, err := mail.ReadMessage(bytes.NewReader(m.Data)); err == nil && strings.Trim(msg.Header.Get("Message-Id"), "<>") == held {
			copies = append(copies, m.Data)
		}
	}
	require.Len(t, copies, 2)
	assert.Equal(t, copies[0], copies[1], "the same message, Message-ID and all")
	delete(ids, held)
	for id, n := range ids {
		assert.Equal(t, 1, n, "the other e-mail %s went once", id)
	}
	assert.Len(t, ids, len(queued)-1, "every other e-mail went")
	assert.Equal(t, sent, recorded(), "A's attempt records nothing over B's")
}
