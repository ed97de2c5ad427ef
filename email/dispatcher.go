// Package email is Parley's e-mail channel: it sends the replies agents
// publish and the mailboxes' auto replies, and receives customers' mail.
//
// Sending follows the webhooks' outbox: the domain queues an outgoing
// e-mail (parley.Mail) in the transaction that publishes its thread, so a
// reply exists exactly when its e-mail is queued. The Dispatcher builds
// each queued e-mail's MIME message once and stores it before the first
// attempt (retries send the same bytes), hands it to a Sender (an SMTP
// relay, or a folder of .eml files), and records the outcome in a
// transaction: sent, retried with the webhooks' backoff, or bounced, which
// marks the thread bounced. Delivery is at least once: a crash between the
// relay's acceptance and the record sends the message again, with the same
// Message-ID, which mail clients use to show it once.
package email

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/parley/parley/internal/duework"

	parley "github.com/parley/parley"
)

// Config wires a Dispatcher.
type Config struct {
	DB     parley.MailSource
	Sender Sender
	Clock  parley.Clock
	// Rand draws retry jitter; default seeded randomly. Tests seed it.
	Rand *rand.Rand
	Log  *slog.Logger
	// Tick is the longest Run sleeps between read-only looks for work when
	// nothing is due; default one minute. Run also wakes when a commit
	// stores an e-mail to send (parley.MailSource).
	Tick time.Duration
}

// Dispatcher sends the outbox's e-mails.
type Dispatcher struct {
	cfg Config
	mu  sync.Mutex // guards cfg.Rand
}

// NewDispatcher builds a Dispatcher.
func NewDispatcher(cfg Config) *Dispatcher {
	if cfg.Clock == nil {
		cfg.Clock = parley.SystemClock
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Tick == 0 {
		cfg.Tick = time.Minute
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return &Dispatcher{cfg: cfg}
}

// Run sends due e-mails until ctx ends. Between rounds it sleeps until the
// next e-mail is due, a commit signals a new one, or Tick passes (the
// loop of internal/duework): with nothing to send it only reads.
func (d *Dispatcher) Run(ctx context.Context) {
	duework.Loop{
		Name:   "email",
		Round:  func(ctx context.Context, now time.Time) error { _, err := d.SendDue(ctx, now); return err },
		Next:   d.NextDue,
		Signal: d.cfg.DB.MailWork(),
		Tick:   d.cfg.Tick,
		Retry:  time.Second,
		Now:    d.cfg.Clock.Now,
		Log:    d.cfg.Log,
	}.Run(ctx)
}

// NextDue is when the earliest e-mail waiting is due; false when none waits.
func (d *Dispatcher) NextDue(ctx context.Context) (next time.Time, ok bool, err error) {
	err = d.cfg.DB.Store().View(ctx, func(tx parley.Tx) error {
		next, ok = tx.NextMailAt()
		return nil
	})
	return next, ok, err
}

// dueBatch bounds the e-mails attempted per round.
const dueBatch = 64

// SendDue attempts every e-mail due at now, one at a time (a relay takes
// one message per transaction anyway), and returns how many attempts it
// made. Tests call it directly with the fixed clock's time.
func (d *Dispatcher) SendDue(ctx context.Context, now time.Time) (int, error) {
	attempts := 0
	for ctx.Err() == nil {
		var due []parley.Mail
		if err := d.cfg.DB.Store().View(ctx, func(tx parley.Tx) (err error) {
			due, err = tx.DueMail(now, dueBatch)
			return err
		}); err != nil {
			return attempts, fmt.Errorf("email: due mail: %w", err)
		}
		if len(due) == 0 {
			break
		}
		for i := range due {
			if err := d.attempt(ctx, &due[i], now); err != nil {
				return attempts, err
			}
			attempts++
		}
	}
	return attempts, ctx.Err()
}

// attempt builds the message if it was not yet, sends it, and records the
// outcome.
func (d *Dispatcher) attempt(ctx context.Context, m *parley.Mail, now time.Time) error {
	if m.Raw == nil {
		if err := d.prepare(ctx, m, now); err != nil {
			return err
		}
		if m.Final() {
			return nil
		}
	}
	if claims, shared := d.cfg.DB.(parley.Claims); shared {
		got, err := claims.ClaimMail(m, now.Add(claimLease))
		if err != nil {
			return fmt.Errorf("email: %w", err)
		}
		if !got {
			return nil // another node sends it
		}
	}
	a := d.cfg.Sender.Send(ctx, m.MessageID, m.From, m.Recipients, m.Raw)
	if ctx.Err() != nil {
		return ctx.Err() // stopping: an attempt cut short is not a failure; it goes again
	}
	return d.record(ctx, m, a, now)
}

// claimLease is how long an e-mail claimed on a database shared by several
// nodes stays this node's (parley.Claims): its attempt takes at most
// sendTimeout, and recording it ends the claim sooner.
const claimLease = sendTimeout + time.Minute

// prepare builds an e-mail's message and stores it (on the e-mail, and as
// the thread's original source) before its first attempt. An e-mail that
// cannot be built (its customer has no address, its thread was deleted)
// bounces at once.
func (d *Dispatcher) prepare(ctx context.Context, m *parley.Mail, now time.Time) error {
	_, err := d.cfg.DB.Store().Update(ctx, func(tx parley.Tx) error {
		cur, err := tx.Mail(m.CompanyID, m.ID)
		if err != nil {
			return err
		}
		*m = *cur
		if m.Raw != nil || m.Final() {
			return nil
		}
		b, err := build(tx, m)
		if err != nil {
			m.Record(parley.MailAttempt{Err: "cannot build the message: " + err.Error(), Permanent: true}, now, 0)
			if err := parley.BounceThread(tx, m, now); err != nil {
				return err
			}
			return tx.PutMail(m)
		}
		m.From, m.Recipients, m.Raw = b.from, b.recipients, b.raw
		if m.Kind == parley.MailReply {
			if err := tx.PutThreadSource(m.CompanyID, m.ThreadID, b.raw); err != nil {
				return err
			}
		}
		return tx.PutMail(m)
	})
	if err != nil {
		return fmt.Errorf("email: build mail %d: %w", m.ID, err)
	}
	return nil
}

// record stores an attempt's outcome and, when the e-mail bounced, marks
// its thread bounced in the same transaction. It is recorded even when
// ctx ends meanwhile: the e-mail went, and must not go twice.
func (d *Dispatcher) record(ctx context.Context, sent *parley.Mail, a parley.MailAttempt, now time.Time) error {
	d.mu.Lock()
	jitter := d.cfg.Rand.Float64()
	d.mu.Unlock()
	_, err := d.cfg.DB.Store().Update(context.WithoutCancel(ctx), func(tx parley.Tx) error {
		m, err := tx.Mail(sent.CompanyID, sent.ID)
		if err != nil {
			return err
		}
		if m.Final() || m.Attempts != sent.Attempts {
			return nil
		}
		if m.Record(a, now, jitter) {
			d.cfg.Log.Warn("email: bounced", "mail", m.ID, "conversation", m.ConversationID, "reason", m.LastError)
			if err := parley.BounceThread(tx, m, now); err != nil {
				return err
			}
		}
		return tx.PutMail(m)
	})
	if err != nil {
		return fmt.Errorf("email: record mail %d: %w", sent.ID, err)
	}
	return nil
}
