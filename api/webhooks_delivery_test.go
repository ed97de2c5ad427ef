package api_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/index/bleveindex"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/webhooks"
)

// delivery reads one delivery of a webhook's log.
func (h *hooks) delivery(webhookID int64, id any) map[string]any {
	h.t.Helper()
	rec := h.get(fmt.Sprintf("/v2/webhooks/%d/deliveries/%v", webhookID, id))
	require.Equal(h.t, http.StatusOK, rec.Code, rec.Body.String())
	return decode(h.t, rec)
}

// until moves the clock to a delivery's next attempt.
func (h *hooks) until(d map[string]any) {
	h.t.Helper()
	next, ok := parley.ParseTime(d["nextAttemptAt"].(string))
	require.True(h.t, ok)
	h.clock.mu.Lock()
	h.clock.now = next
	h.clock.mu.Unlock()
}

func TestWebhookTestEventAndSignatures(t *testing.T) {
	h := newHooks(t)
	id := h.hook(nil)
	require.Equal(t, 1, h.deliver())
	hits := h.recv.take()
	require.Len(t, hits, 1)
	log := h.deliveries(id)
	require.Len(t, log, 1)
	assert.Equal(t, "helpscout.test", hits[0].Header.Get("X-HelpScout-Event"))
	assert.Equal(t, fmt.Sprint(log[0]["id"]), hits[0].Header.Get("X-Parley-Delivery"))
	assert.Equal(t, fmt.Sprint(epoch.Unix()), hits[0].Header.Get("X-Parley-Timestamp"))
	assert.Equal(t, map[string]any{"webhookId": float64(id), "event": "helpscout.test", "url": h.recv.srv.URL + "/hook", "test": true}, hits[0].Body)
	latency := log[0]["latencyMs"]
	assert.IsType(t, float64(0), latency)
	self := fmt.Sprintf("https://api.parley.test/v2/webhooks/%d/deliveries/%v", id, log[0]["id"])
	assert.Equal(t, map[string]any{"id": log[0]["id"], "webhookId": float64(id), "event": "helpscout.test", "resourceId": fmt.Sprint(id),
		"status": "delivered", "attempts": float64(1), "replays": float64(0), "responseCode": float64(200), "latencyMs": latency,
		"createdAt": "2026-11-21T12:00:00Z", "lastAttemptAt": "2026-11-21T12:00:00Z", "nextAttemptAt": nil,
		"deliveredAt": "2026-11-21T12:00:00Z", "deadAt": nil,
		"_links": map[string]any{"self": map[string]any{"href": self}, "retry": map[string]any{"href": self + "/retry"},
			"webhook": map[string]any{"href": fmt.Sprintf("https://api.parley.test/v2/webhooks/%d", id)}},
	}, log[0])
	assert.Equal(t, 0, h.deliver(), "nothing more to send")
}

func TestWebhookMailboxFilterAndNotification(t *testing.T) {
	h := newHooks(t)
	h.hook(map[string]any{"events": []string{"convo.created", "customer.created"}, "mailboxIds": []int{billingID}})
	note := h.hook(map[string]any{"events": []string{"convo.created", "convo.deleted"}, "notification": true})
	h.deliver()
	h.recv.take()

	support := h.create(convJSON(map[string]any{"customer": customer("new@example.com")}))
	h.deliver()
	hits := h.recv.take()
	matchEvents(t, []string{"customer.created *", "convo.created *"}, hits)
	for _, hit := range hits {
		if hit.Event == "convo.created" {
			assert.JSONEq(t, fmt.Sprintf(`{"uri":"https://api.parley.test/v2/conversations/%d"}`, support), hit.Raw, "notification mode sends only the URI")
		}
	}
	assert.Len(t, h.deliveries(note), 2, "the notification webhook got the Support conversation; the filtered one only customer.created")

	billing := h.create(convJSON(map[string]any{"customer": customer("new@example.com"), "mailboxId": billingID}))
	h.deliver()
	hits = h.recv.take()
	require.Len(t, hits, 2, "both webhooks take a Billing conversation")
	h.send("DELETE", fmt.Sprintf("/v2/conversations/%d", billing), "", 204)
	h.deliver()
	hits = h.recv.take()
	require.Len(t, hits, 1)
	assert.JSONEq(t, fmt.Sprintf(`{"id":%d}`, billing), hits[0].Raw, "a deletion has no URI to notify: only the id")
}

func TestWebhookRetriesWithBackoff(t *testing.T) {
	h := newHooks(t)
	id := h.hook(map[string]any{"events": []string{"convo.created"}})
	h.deliver()
	h.recv.take()
	h.recv.failFirst("convo.created", 3)
	h.create(convJSON(nil))
	h.deliver()
	var prev time.Time = epoch
	for attempt := 1; attempt <= 3; attempt++ {
		d := h.deliveries(id)[0]
		assert.Equal(t, []any{"retrying", float64(attempt), float64(503)}, []any{d["status"], d["attempts"], d["responseCode"]})
		assert.Contains(t, d["lastError"], "503")
		next, _ := parley.ParseTime(d["nextAttemptAt"].(string))
		base := parley.RetryBase << (attempt - 1)
		assert.GreaterOrEqual(t, next.Sub(prev), time.Duration(float64(base)*0.8)-time.Second, "attempt %d", attempt)
		assert.LessOrEqual(t, next.Sub(prev), time.Duration(float64(base)*1.2)+time.Second, "attempt %d", attempt)
		calls := h.recv.callCount()
		h.clock.advance(next.Sub(h.clock.Now()) - time.Second)
		assert.Equal(t, 0, h.deliver(), "not due before its time")
		assert.Equal(t, calls, h.recv.callCount())
		h.until(d)
		prev = next
		assert.Equal(t, 1, h.deliver())
	}
	d := h.deliveries(id)[0]
	assert.Equal(t, []any{"delivered", float64(4), float64(200), nil}, []any{d["status"], d["attempts"], d["responseCode"], d["lastError"]})
	hits := h.recv.take()
	require.Len(t, hits, 1)
	assert.Equal(t, fmt.Sprint(d["id"]), hits[0].ID, "the delivery id is stable across retries")
}

func TestWebhookDeadDisabledAndReplay(t *testing.T) {
	h := newHooks(t)
	id := h.hook(map[string]any{"events": []string{"convo.created"}})
	h.recv.setFailAll(true)
	h.deliver()
	test := h.deliveries(id)[0]
	for i := 0; i < 20 && test["status"] != "dead"; i++ {
		h.until(test)
		h.deliver()
		test = h.delivery(id, test["id"])
	}
	require.Equal(t, "dead", test["status"])
	assert.Equal(t, float64(parley.MaxDeliveryAttempts), test["attempts"])
	dead, _ := parley.ParseTime(test["deadAt"].(string))
	assert.InDelta(t, 4.25, dead.Sub(epoch).Hours(), 0.9, "about 4 h 15 min of attempts")
	assert.Equal(t, h.recv.callCount(), parley.MaxDeliveryAttempts)

	w := decode(t, h.get(fmt.Sprintf("/v2/webhooks/%d", id)))
	assert.Equal(t, "disabled", w["state"], "a webhook whose deliveries die with no success meanwhile is disabled")
	assert.Equal(t, test["deadAt"], w["disabledAt"])
	assert.Contains(t, w["disabledReason"], "failed 10 times")

	h.create(convJSON(nil))
	assert.Equal(t, 0, h.deliver(), "a disabled webhook gets nothing")
	paused := h.deliveries(id)[0]
	assert.Equal(t, []any{"convo.created", "paused", nil}, []any{paused["event"], paused["status"], paused["nextAttemptAt"]}, "events are kept, paused")

	h.recv.setFailAll(false)
	rec := h.call(ownerToken, http.MethodPost, fmt.Sprintf("/v2/webhooks/%d/deliveries/%v/retry", id, test["id"]), nil)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	replayed := decode(t, rec)
	assert.Equal(t, []any{"paused", float64(0), float64(1)}, []any{replayed["status"], replayed["attempts"], replayed["replays"]})
	assert.Equal(t, 0, h.deliver(), "still disabled")

	h.must(http.MethodPut, fmt.Sprintf("/v2/webhooks/%d", id), map[string]any{"url": h.recv.srv.URL + "/hook", "secret": hookSecret, "events": []string{"convo.created"}}, http.StatusNoContent)
	assert.Equal(t, "enabled", decode(t, h.get(fmt.Sprintf("/v2/webhooks/%d", id)))["state"], "a PUT enables")
	assert.Equal(t, 2, h.deliver())
	hits := h.recv.take()
	matchEvents(t, []string{"helpscout.test *", "convo.created *"}, hits)
	for _, hit := range hits {
		if hit.Event == "helpscout.test" {
			assert.Equal(t, fmt.Sprint(test["id"]), hit.ID, "a replay keeps the delivery id")
		}
	}
	test = h.delivery(id, test["id"])
	assert.Equal(t, []any{"delivered", float64(1), float64(1)}, []any{test["status"], test["attempts"], test["replays"]})

	assert.Equal(t, http.StatusNotFound, h.call(ownerToken, http.MethodPost, fmt.Sprintf("/v2/webhooks/%d/deliveries/999/retry", id), nil).Code)
	assert.Equal(t, http.StatusNotFound, h.call(globexToken, http.MethodPost, fmt.Sprintf("/v2/webhooks/%d/deliveries/%v/retry", id, test["id"]), nil).Code)
}

func TestWebhookOrderingPerRecord(t *testing.T) {
	h := newHooks(t)
	id := h.hook(map[string]any{"events": []string{"convo.created", "convo.agent.reply.created", "convo.note.created"}})
	h.deliver()
	h.recv.take()
	h.recv.failFirst("convo.created", 1)
	a := h.create(convJSON(nil))
	h.deliver()
	h.send("POST", fmt.Sprintf("/v2/conversations/%d/reply", a), `{"text":"first"}`, 201)
	h.send("POST", fmt.Sprintf("/v2/conversations/%d/notes", a), `{"text":"second"}`, 201)
	b := h.create(convJSON(nil))
	h.deliver()
	assert.Equal(t, []string{fmt.Sprintf("convo.created %d", b)}, events(h.recv.take()), "another record is not held back")
	log := h.deliveries(id)
	assert.Equal(t, []any{"pending", "pending", "retrying"}, []any{log[1]["status"], log[2]["status"], log[3]["status"]},
		"A's later events wait behind its failing first one")
	h.until(log[3])
	h.deliver()
	want := []string{fmt.Sprintf("convo.created %d", a), fmt.Sprintf("convo.agent.reply.created %d", a), fmt.Sprintf("convo.note.created %d", a)}
	assert.Equal(t, want, events(h.recv.take()), "in commit order")
}

// openWorldAt opens a world over the data in dir (seeding it when asked)
// and returns it with a function that closes it, as a stopped server would.
func openWorldAt(t *testing.T, dir string, clock *testClock, seed bool) (*world, func()) {
	db, err := storage.Open(filepath.Join(dir, "parley.db"), storage.Options{NoSync: true})
	require.NoError(t, err)
	engine, err := bleveindex.Open(filepath.Join(dir, "index"))
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	syncer := indexer.NewSyncer(db, engine, log)
	db.OnCommit(syncer.Notify)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { syncer.Run(ctx); close(done) }()
	w := &world{t: t, db: db, store: db.Store(), embedded: db, engine: engine, syncer: syncer, clock: clock, logs: &bytes.Buffer{}}
	w.server = api.New(api.Config{DB: db, Engine: engine, Syncer: syncer, Clock: clock, Log: log, BaseURL: "https://api.parley.test",
		InsecureWebhooks: true, AllowPrivateWebhooks: true, RateLimits: map[parley.Plan]int{parley.PlanPro: 1 << 30}})
	if seed {
		w.seed()
	}
	return w, func() { cancel(); <-done; engine.Close(); db.Close() }
}

func TestWebhookExactlyOnceAcrossRestarts(t *testing.T) {
	dir, clock, recv := t.TempDir(), &testClock{now: epoch}, newReceiver(t)
	seen := map[string]int{}
	collect := func() {
		for _, hit := range recv.take() {
			seen[hit.ID]++
		}
	}
	// First life: a webhook and a write commit; the server stops before
	// any delivery (no dispatcher runs).
	w, stop := openWorldAt(t, dir, clock, true)
	h := &hooks{world: w, recv: recv}
	id := h.hook(map[string]any{"events": []string{"convo.created", "convo.note.created"}})
	conv := w.create(convJSON(nil))
	stop()

	// Second life: everything arrives once; a note is then expanded into
	// a delivery but the server stops before sending it.
	w, stop = openWorldAt(t, dir, clock, false)
	h = &hooks{world: w, d: newDispatcher(t, w), recv: recv}
	assert.Equal(t, 2, h.deliver())
	assert.Equal(t, 0, h.deliver())
	collect()
	w.send("POST", fmt.Sprintf("/v2/conversations/%d/notes", conv), `{"text":"later"}`, 201)
	n, err := h.d.FanOut(context.Background(), clock.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	stop()

	// Third life: only the note goes out.
	w, stop = openWorldAt(t, dir, clock, false)
	defer stop()
	h = &hooks{world: w, d: newDispatcher(t, w), recv: recv}
	assert.Equal(t, 1, h.deliver())
	assert.Equal(t, 0, h.deliver())
	collect()
	log := h.deliveries(id)
	require.Len(t, log, 3)
	want := map[string]int{}
	for _, d := range log {
		want[fmt.Sprint(d["id"])] = 1
		assert.Equal(t, "delivered", d["status"])
	}
	assert.Equal(t, want, seen, "every delivery id arrived exactly once")
}

func TestWebhookDispatcherRuns(t *testing.T) {
	h := newHooks(t)
	renderer, err := h.server.EventRenderer("")
	require.NoError(t, err)
	d := webhooks.New(webhooks.Config{DB: h.db, Renderer: renderer, Clock: h.clock, Tick: 10 * time.Millisecond, AllowPrivate: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	h.hook(map[string]any{"events": []string{"convo.created"}})
	h.create(convJSON(nil))
	deadline := time.Now().Add(5 * time.Second)
	var got []hit
	for len(got) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		got = append(got, h.recv.take()...)
	}
	matchEvents(t, []string{"helpscout.test *", "convo.created *"}, got)
}
