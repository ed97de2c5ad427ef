package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
	"github.com/parley/parley/webhooks"
	"github.com/parley/parley/workflow"
)

// hookSecret signs every test webhook's deliveries.
const hookSecret = "s3cret-of-the-receiver"

// hit is one delivery a receiver accepted, its signatures verified.
type hit struct {
	ID, Event string
	Body      map[string]any
	Raw       string
	Header    http.Header
}

// receiver is a real local HTTP endpoint that verifies both signatures
// the way an integrator would (without Parley's code) and records what it
// accepts. failures[event] answers 503 to that many deliveries of an
// event first; failAll answers 503 to everything.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	failures map[string]int
	failAll  bool
	calls    int
	hits     []hit
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, failures: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	mac := hmac.New(sha1.New, []byte(hookSecret))
	mac.Write(raw)
	okHS := hmac.Equal([]byte(req.Header.Get("X-HelpScout-Signature")), []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	ts := req.Header.Get("X-Parley-Timestamp")
	mac = hmac.New(sha256.New, []byte(hookSecret))
	mac.Write([]byte(ts + "." + string(raw)))
	okParley := hmac.Equal([]byte(req.Header.Get("X-Parley-Signature")), []byte(hex.EncodeToString(mac.Sum(nil))))
	_, tsErr := strconv.ParseInt(ts, 10, 64)
	assert.True(r.t, okHS, "X-HelpScout-Signature of %s", raw)
	assert.True(r.t, okParley && tsErr == nil, "X-Parley-Signature of %s", raw)
	assert.Equal(r.t, "application/json", req.Header.Get("Content-Type"))
	event := req.Header.Get("X-HelpScout-Event")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if !okHS || !okParley {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.failAll || r.failures[event] > 0 {
		r.failures[event]--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var body map[string]any
	assert.NoError(r.t, json.Unmarshal(raw, &body))
	r.hits = append(r.hits, hit{ID: req.Header.Get("X-Parley-Delivery"), Event: event, Body: body, Raw: string(raw), Header: req.Header.Clone()})
	w.WriteHeader(http.StatusOK)
}

// take returns the accepted deliveries since the last take.
func (r *receiver) take() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.hits
	r.hits = nil
	return out
}

func (r *receiver) setFailAll(v bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failAll = v
}

func (r *receiver) failFirst(event string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures[event] = n
}

func (r *receiver) callCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// hooks is a world with webhooks in insecure mode, a receiver, and a
// dispatcher driven synchronously with the world's clock.
type hooks struct {
	*world
	d    *webhooks.Dispatcher
	recv *receiver
}

// insecureWebhooks lets webhooks reach the local receiver: http to a
// loopback address, and private addresses.
func insecureWebhooks(c *api.Config) { c.InsecureWebhooks, c.AllowPrivateWebhooks = true, true }

func newHooks(t *testing.T) *hooks {
	w := newWorld(t, insecureWebhooks)
	return &hooks{world: w, d: newDispatcher(t, w), recv: newReceiver(t)}
}

// newDispatcher builds a dispatcher over a world, with seeded jitter,
// allowed to reach the local receiver.
func newDispatcher(t *testing.T, w *world) *webhooks.Dispatcher {
	return newDispatcherTo(t, w, true)
}

// newDispatcherTo is newDispatcher with or without private addresses.
func newDispatcherTo(t *testing.T, w *world, allowPrivate bool) *webhooks.Dispatcher {
	renderer, err := w.server.EventRenderer("")
	require.NoError(t, err)
	return webhooks.New(webhooks.Config{DB: w.db, Renderer: renderer, Clock: w.clock, Rand: rand.New(rand.NewPCG(9, 9)), AllowPrivate: allowPrivate,
		MatchView: workflow.MatchesView})
}

// hook creates a webhook to the receiver as the owner; fields override
// the defaults (every event, the test secret).
func (h *hooks) hook(fields map[string]any) int64 {
	h.t.Helper()
	body := map[string]any{"url": h.recv.srv.URL + "/hook", "secret": hookSecret, "events": allEvents}
	for k, v := range fields {
		body[k] = v
	}
	return resourceID(h.t, h.call(ownerToken, http.MethodPost, "/v2/webhooks", body))
}

// deliver runs the dispatcher once at the clock's time.
func (h *hooks) deliver() int {
	h.t.Helper()
	n, err := h.d.DeliverDue(context.Background(), h.clock.Now())
	require.NoError(h.t, err)
	return n
}

// deliveries reads a webhook's delivery log (first page).
func (h *hooks) deliveries(webhookID int64) []map[string]any {
	h.t.Helper()
	rec := h.get(fmt.Sprintf("/v2/webhooks/%d/deliveries", webhookID))
	require.Equal(h.t, http.StatusOK, rec.Code, rec.Body.String())
	var out []map[string]any
	for _, it := range decode(h.t, rec)["_embedded"].(map[string]any)["deliveries"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// events lists the event names of hits, with their resource ids.
func events(hits []hit) []string {
	var out []string
	for _, h := range hits {
		id := ""
		if v, ok := h.Body["id"]; ok {
			id = fmt.Sprint(v)
		} else if v, ok := h.Body["userId"]; ok {
			id = fmt.Sprint(v)
		}
		out = append(out, h.Event+" "+id)
	}
	return out
}

var allEvents = []string{"convo.created", "convo.assigned", "convo.moved", "convo.status", "convo.tags",
	"convo.custom-fields", "convo.merged", "convo.deleted", "convo.agent.reply.created",
	"convo.customer.reply.created", "convo.note.created", "customer.created", "customer.updated",
	"customer.deleted", "organization.created", "organization.updated", "organization.deleted",
	"tag.created", "tag.updated", "tag.deleted", "satisfaction.ratings", "message.survey.response.received", "user.status.changed",
	"widget.chat.ended", "beacon.chat.created", "beacon.chat.customer.replied"}
