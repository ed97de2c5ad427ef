// Package webhooks delivers Parley's domain events to the webhooks
// integrators configured.
//
// Writes record their events in the transaction of the change (the
// store's event queue, parley.EventQueue, is the outbox). The Dispatcher
// turns each recorded event into one delivery per webhook that wants it
// (in one transaction that also removes the event, so an event is expanded
// exactly once), then POSTs due deliveries, signed, retrying with backoff
// and jitter until they succeed or die (rules in the domain package:
// parley.Delivery.Record). Delivery is at least once; a delivery keeps its
// id (X-Parley-Delivery) across retries, restarts and replays, so
// receivers deduplicate by it.
package webhooks

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/parley/parley/internal/duework"

	parley "github.com/parley/parley"
)

// Renderer renders the resource an event concerns as the API does. The
// api package implements it (rendering is HTTP's business); cmd wires it.
type Renderer interface {
	// RenderEvent answers the payload of an event, and the resource's URI
	// for webhooks in notification mode ("" when there is none, as for
	// deletions, whose payload is only {"id"}).
	RenderEvent(tx parley.Tx, e parley.Event) (body []byte, uri string, err error)
}

// Config wires a Dispatcher.
type Config struct {
	DB       parley.WebhookSource
	Renderer Renderer
	Clock    parley.Clock
	// Client sends deliveries; default: parley.DeliveryTimeout, no
	// redirects, and a dialer that refuses private addresses unless
	// AllowPrivate (see newClient).
	Client *http.Client
	// AllowPrivate lets deliveries reach addresses parley.PrivateAddr
	// refuses (development and tests with local receivers); it should match
	// the API's api.Config.AllowPrivateWebhooks.
	AllowPrivate bool
	// Rand draws retry jitter; default seeded randomly. Tests seed it.
	Rand *rand.Rand
	Log  *slog.Logger
	// Tick is the longest Run sleeps between read-only looks for work when
	// nothing is due and no commit signals new work; default one minute.
	// Run wakes earlier at the next delivery's due time, or when a commit
	// records an event or stores a delivery (parley.WebhookSource).
	Tick time.Duration
	// Workers bounds concurrent POSTs; default 8.
	Workers int
	// Observe, when set, is told the status every recorded attempt left its
	// delivery in ("delivered", "retrying" or "dead"), for metrics.
	Observe func(status parley.DeliveryStatus)
	// MatchView says whether a conversation is in a saved view, for
	// webhooks filtered by one (workflow.MatchesView, which evaluates the
	// view as a search would; cmd wires it). Without it such a webhook
	// receives nothing: a filter that cannot be checked does not pass.
	MatchView func(tx parley.Tx, v *parley.SavedView, conversationID int64, now time.Time) (bool, error)
}

// Dispatcher turns events into deliveries and sends them.
type Dispatcher struct {
	cfg Config
	mu  sync.Mutex // guards cfg.Rand
}

// New builds a Dispatcher.
func New(cfg Config) *Dispatcher {
	if cfg.Clock == nil {
		cfg.Clock = parley.SystemClock
	}
	if cfg.Client == nil {
		cfg.Client = newClient(cfg.AllowPrivate)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Tick == 0 {
		cfg.Tick = time.Minute
	}
	if cfg.Workers == 0 {
		cfg.Workers = 8
	}
	return &Dispatcher{cfg: cfg}
}

// Run delivers until ctx ends. Between rounds it sleeps until the next
// delivery is due, a commit signals new work, or Tick passes (the loop
// of internal/duework); with nothing to do, a round is read-only
// transactions only, so an idle server writes nothing.
func (d *Dispatcher) Run(ctx context.Context) {
	duework.Loop{
		Name:   "webhooks",
		Round:  func(ctx context.Context, now time.Time) error { _, err := d.DeliverDue(ctx, now); return err },
		Next:   d.NextDue,
		Signal: d.cfg.DB.WebhookWork(),
		Tick:   d.cfg.Tick,
		Retry:  time.Second,
		Now:    d.cfg.Clock.Now,
		Log:    d.cfg.Log,
	}.Run(ctx)
}

// NextDue is when the earliest delivery that can go is due; false when
// none waits.
func (d *Dispatcher) NextDue(ctx context.Context) (next time.Time, ok bool, err error) {
	err = d.cfg.DB.Store().View(ctx, func(tx parley.Tx) (err error) {
		next, ok, err = tx.NextDeliveryAt()
		return err
	})
	return next, ok, err
}

// fanOutBatch bounds the events expanded per transaction.
const fanOutBatch = 100

// FanOut turns every recorded event into deliveries, due at now, and
// returns how many deliveries it made.
func (d *Dispatcher) FanOut(ctx context.Context, now time.Time) (int, error) {
	total := 0
	var pending bool
	if err := d.cfg.DB.Store().View(ctx, func(tx parley.Tx) error { pending = tx.HasPendingEvents(); return nil }); err != nil || !pending {
		return 0, err // nothing recorded: no write transaction
	}
	for {
		var n, seen int
		_, err := d.cfg.DB.Store().Update(ctx, func(tx parley.Tx) error {
			n, seen = 0, 0
			events, err := tx.PendingEvents(fanOutBatch)
			if err != nil {
				return err
			}
			seen = len(events)
			hooks := companyWebhooks{}
			for _, e := range events {
				made, err := d.expand(tx, hooks, e.Event, now)
				if err != nil {
					return err
				}
				n += made
				if err := tx.DeleteEvent(e.CompanyID, e.Seq); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("webhooks: fan out: %w", err)
		}
		total += n
		if seen < fanOutBatch {
			return total, nil
		}
	}
}

// companyWebhooks holds the webhooks of the companies whose events a
// fan-out transaction expanded so far: a batch of a company's events reads
// its webhooks once, not once per event (after a load, one read per
// conversation written).
type companyWebhooks map[int64][]parley.Webhook

func (c companyWebhooks) of(tx parley.Tx, company int64) ([]parley.Webhook, error) {
	if hooks, ok := c[company]; ok {
		return hooks, nil
	}
	hooks, err := tx.Webhooks(company)
	if err != nil {
		return nil, err
	}
	c[company] = hooks
	return hooks, nil
}

// expand stores the deliveries of one event.
func (d *Dispatcher) expand(tx parley.Tx, known companyWebhooks, e parley.Event, now time.Time) (int, error) {
	hooks, err := known.of(tx, e.CompanyID)
	if err != nil || len(hooks) == 0 {
		return 0, err
	}
	mailboxID, scoped, err := parley.EventMailbox(tx, e)
	if err != nil {
		return 0, err
	}
	var body []byte
	var uri string
	n := 0
	for i := range hooks {
		w := &hooks[i]
		switch {
		case e.WebhookID != 0: // aimed at one webhook, which takes it whatever it subscribes to
			if w.ID != e.WebhookID {
				continue
			}
		case !w.Wants(e.Kind, mailboxID, scoped):
			continue
		case w.ViewID != 0:
			in, err := d.inView(tx, w, e, now)
			if err != nil {
				return 0, err
			}
			if !in {
				continue
			}
		}
		if body == nil {
			if body, uri, err = d.cfg.Renderer.RenderEvent(tx, e); err != nil {
				return 0, fmt.Errorf("render %s %s: %w", e.Kind, e.ResourceID, err)
			}
		}
		payload := body
		if w.Notification && uri != "" {
			payload, _ = json.Marshal(map[string]string{"uri": uri})
		}
		if err := tx.PutDelivery(parley.NewDelivery(w, e, payload, now)); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// inView reports whether an event of a webhook filtered by a view
// concerns a conversation in the view, as it is when the event is
// expanded (a rating's event concerns the rated conversation); events
// about anything but a conversation are not.
func (d *Dispatcher) inView(tx parley.Tx, w *parley.Webhook, e parley.Event, now time.Time) (bool, error) {
	if d.cfg.MatchView == nil {
		return false, nil
	}
	conv, err := parley.EventConversation(tx, e)
	if err != nil || conv == nil {
		return false, err
	}
	v, err := tx.SavedView(w.CompanyID, w.ViewID)
	if parley.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.cfg.MatchView(tx, v, conv.ID, now)
}

// dueBatch bounds the deliveries attempted per round.
const dueBatch = 256

// DeliverDue expands recorded events, then attempts every delivery due at
// now, round after round while attempts free the next delivery of an
// order key. It returns how many attempts it made. Tests call it directly
// with the fixed clock's time.
func (d *Dispatcher) DeliverDue(ctx context.Context, now time.Time) (int, error) {
	if _, err := d.FanOut(ctx, now); err != nil {
		return 0, err
	}
	attempts := 0
	for ctx.Err() == nil {
		var due []parley.Delivery
		if err := d.cfg.DB.Store().View(ctx, func(tx parley.Tx) (err error) {
			due, err = tx.DueDeliveries(now, dueBatch)
			return err
		}); err != nil {
			return attempts, fmt.Errorf("webhooks: due deliveries: %w", err)
		}
		if len(due) == 0 {
			break
		}
		n, err := d.attemptAll(ctx, due, now)
		attempts += n
		if err != nil {
			return attempts, err
		}
	}
	return attempts, ctx.Err()
}

// claimLease is how long a delivery claimed on a database shared by
// several nodes stays this node's (parley.Claims): its attempt takes at
// most parley.DeliveryTimeout, and recording it ends the claim sooner.
const claimLease = parley.DeliveryTimeout + time.Minute

// attemptAll sends deliveries (each the head of its own queue, so they may
// go concurrently) and records their outcomes; on a database shared by
// several nodes, only those it claims. It returns how many it attempted.
func (d *Dispatcher) attemptAll(ctx context.Context, due []parley.Delivery, now time.Time) (int, error) {
	results := make([]parley.Attempt, len(due))
	attempted := make([]bool, len(due))
	claims, shared := d.cfg.DB.(parley.Claims)
	sem := make(chan struct{}, d.cfg.Workers)
	var wg sync.WaitGroup
	var claimErr error
	var claimMu sync.Mutex
	for i := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if shared {
				got, err := claims.ClaimDelivery(&due[i], now.Add(claimLease))
				if err != nil {
					claimMu.Lock()
					claimErr = cmp.Or(claimErr, err)
					claimMu.Unlock()
				}
				if !got {
					return // another node attempts it
				}
			}
			results[i], attempted[i] = d.attempt(ctx, &due[i], now), true
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err // stopping: attempts cut short are not failures; they go again
	}
	n := 0
	for i := range due {
		if !attempted[i] {
			continue
		}
		if err := d.record(ctx, &due[i], results[i], now); err != nil {
			return n, err
		}
		n++
	}
	if claimErr != nil {
		return n, fmt.Errorf("webhooks: %w", claimErr)
	}
	return n, nil
}

// attempt POSTs one delivery to its webhook.
func (d *Dispatcher) attempt(ctx context.Context, del *parley.Delivery, now time.Time) parley.Attempt {
	var w *parley.Webhook
	err := d.cfg.DB.Store().View(ctx, func(tx parley.Tx) (err error) {
		w, err = tx.Webhook(del.CompanyID, del.WebhookID)
		return err
	})
	if err != nil {
		return parley.Attempt{Err: "webhook: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(del.Body))
	if err != nil {
		return parley.Attempt{Err: err.Error()}
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Parley-Webhooks/1")
	req.Header.Set("X-HelpScout-Event", del.Event)
	req.Header.Set("X-HelpScout-Signature", parley.HelpScoutSignature(w.Secret, del.Body))
	req.Header.Set("X-Parley-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Parley-Signature", parley.ParleySignature(w.Secret, ts, del.Body))
	req.Header.Set("X-Parley-Delivery", strconv.FormatInt(del.ID, 10))
	start := time.Now()
	resp, err := d.cfg.Client.Do(req)
	latency := time.Since(start)
	if err != nil {
		msg := "request failed"
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			msg = "timed out"
		}
		return parley.Attempt{Latency: latency, Err: msg + ": " + err.Error()}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return parley.Attempt{Code: resp.StatusCode, Latency: latency}
}

// record stores an attempt's outcome, unless the delivery changed
// meanwhile (replayed, or its webhook deleted). It is recorded even when
// ctx ends meanwhile: the delivery was made, and must not be made twice.
func (d *Dispatcher) record(ctx context.Context, sent *parley.Delivery, a parley.Attempt, now time.Time) error {
	d.mu.Lock()
	jitter := d.cfg.Rand.Float64()
	d.mu.Unlock()
	var status parley.DeliveryStatus
	_, err := d.cfg.DB.Store().Update(context.WithoutCancel(ctx), func(tx parley.Tx) error {
		status = ""
		del, err := tx.Delivery(sent.CompanyID, sent.WebhookID, sent.ID)
		if parley.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if del.Replays != sent.Replays || del.Attempts != sent.Attempts || del.Final() {
			return nil
		}
		w, err := tx.Webhook(del.CompanyID, del.WebhookID)
		if err != nil {
			return err
		}
		disabled := del.Record(w, a, now, jitter)
		if err := tx.PutDelivery(del); err != nil {
			return err
		}
		status = del.Status
		if disabled {
			d.cfg.Log.Warn("webhooks: webhook disabled", "webhook", w.ID, "reason", w.DisabledReason)
			if err := tx.SetDeliveriesPaused(w.CompanyID, w.ID, true, now); err != nil {
				return err
			}
		}
		return tx.PutWebhook(w)
	})
	if err != nil {
		return fmt.Errorf("webhooks: record delivery %d: %w", sent.ID, err)
	}
	if status != "" && d.cfg.Observe != nil {
		d.cfg.Observe(status)
	}
	return nil
}
