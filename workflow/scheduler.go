package workflow

import (
	"context"
	"log/slog"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/duework"
)

// retryWait is how long the scheduler waits after a failed round, or
// after one that found what is due held by another node's scheduler.
const retryWait = time.Second

// Scheduler wakes snoozed conversations, publishes scheduled threads and
// runs automatic workflows whose time conditions came true, when they are
// due, on the due-work loop the e-mail and webhook workers use
// (internal/duework). It sleeps until the earliest wake-up (read in a
// read-only transaction) or until a commit stores a new one
// (parley.LaterSource), so an idle server opens no write transaction. Each
// due item is woken in a write of its own (Engine.Wake): one that fails is
// logged and moved later or dropped, and the others wake all the same.
type Scheduler struct {
	Source parley.LaterSource
	Clock  parley.Clock
	Engine *Engine
	Log    *slog.Logger
	// held is set by a round that found what is due held by another
	// node's scheduler: the next round comes after retryWait, not at once.
	held bool
}

// Run wakes due items until ctx ends.
func (s *Scheduler) Run(ctx context.Context) { s.loop().Run(ctx) }

// Step runs one round and says how long to sleep before the next (-1:
// until a new wake-up is stored).
func (s *Scheduler) Step(ctx context.Context) (time.Duration, error) { return s.loop().Step(ctx) }

func (s *Scheduler) loop() duework.Loop {
	return duework.Loop{Name: "scheduler", Round: s.round, Next: s.next, Signal: s.Source.LaterChanged(),
		Retry: retryWait, Now: s.Clock.Now, Log: s.Log}
}

// next is when the earliest wake-up is due; a round that found its items
// held asks again after retryWait.
func (s *Scheduler) next(ctx context.Context) (next time.Time, pending bool, err error) {
	if s.held {
		return s.Clock.Now().Add(retryWait), true, nil
	}
	err = s.Source.Store().View(ctx, func(tx parley.Tx) error {
		next, pending = tx.NextLater()
		return nil
	})
	return next, pending, err
}

// round wakes what is due at now, if anything (to the second, as
// NextLater compares): nothing due is a read only.
func (s *Scheduler) round(ctx context.Context, now time.Time) error {
	s.held = false
	next, pending, err := s.next(ctx)
	if err != nil || !pending || next.Unix() > now.Unix() {
		return err
	}
	report, err := s.Engine.Wake(ctx, s.Source.Store(), now)
	for _, f := range report.Failed {
		s.logFailure(f)
	}
	if err == nil && report.Woken == 0 && len(report.Failed) == 0 {
		s.held = true // another node's scheduler fires it
	}
	return err
}

// logFailure says which wake-up failed, why, and what became of it.
func (s *Scheduler) logFailure(f WakeFailure) {
	attrs := []any{"kind", f.Item.Kind, "id", f.Item.ID, "company", f.Item.CompanyID, "conversation", f.Item.ConversationID, "err", f.Err}
	switch {
	case f.Dropped:
		s.Log.Error("scheduler: a wake-up failed; dropped it, with a line item on its conversation", attrs...)
	case !f.RetryAt.IsZero():
		s.Log.Warn("scheduler: a wake-up failed; will retry it", append(attrs, "retryAt", f.RetryAt)...)
	default:
		s.Log.Warn("scheduler: a wake-up failed; it was moved or removed meanwhile", attrs...)
	}
}
