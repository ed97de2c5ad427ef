package main

import (
	"context"
	"log/slog"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/workflow"
)

// schedulerRetry is how long the scheduler waits after a failed wake-up
// before trying again.
const schedulerRetry = time.Second

// scheduler wakes snoozed conversations, publishes scheduled threads and
// runs automatic workflows whose time conditions came true, when they are
// due. It sleeps until the earliest wake-up (read in a read-only
// transaction) or until a commit stores a new one (parley.LaterSource), so
// an idle server opens no write transaction.
type scheduler struct {
	db        parley.LaterSource
	clock     parley.Clock
	workflows *workflow.Engine
	log       *slog.Logger
}

// run wakes due items until ctx ends.
func (s *scheduler) run(ctx context.Context) {
	for {
		wait, err := s.step()
		if err != nil {
			s.log.Error("scheduler: waking due items failed; will retry", "err", err)
			wait = schedulerRetry
		}
		if !sleep(ctx, wait, s.db.LaterChanged()) {
			return
		}
	}
}

// step wakes what is due now, if anything, and returns how long to sleep
// until the next wake-up; -1 means none is pending (sleep until signalled).
// Nothing due means a read-only transaction only. Each due item is woken
// in a write of its own (workflow.Engine.Wake): one that fails is logged
// and moved later or dropped, and the others wake all the same.
func (s *scheduler) step() (time.Duration, error) {
	for {
		now := s.clock.Now()
		var next time.Time
		var pending bool
		if err := s.db.Store().View(func(tx parley.Tx) error {
			next, pending = tx.NextLater()
			return nil
		}); err != nil {
			return 0, err
		}
		if !pending {
			return -1, nil
		}
		if next.Unix() > now.Unix() {
			return next.Sub(now), nil
		}
		report, err := s.workflows.Wake(s.db.Store(), now)
		for _, f := range report.Failed {
			s.logFailure(f)
		}
		if err != nil {
			return 0, err
		}
		if report.Woken == 0 && len(report.Failed) == 0 {
			// What is due is held by another node's scheduler, which
			// fires it: look again shortly rather than spin.
			return schedulerRetry, nil
		}
	}
}

// logFailure says which wake-up failed, why, and what became of it.
func (s *scheduler) logFailure(f workflow.WakeFailure) {
	attrs := []any{"kind", f.Item.Kind, "id", f.Item.ID, "company", f.Item.CompanyID, "conversation", f.Item.ConversationID, "err", f.Err}
	switch {
	case f.Dropped:
		s.log.Error("scheduler: a wake-up failed; dropped it, with a line item on its conversation", attrs...)
	case !f.RetryAt.IsZero():
		s.log.Warn("scheduler: a wake-up failed; will retry it", append(attrs, "retryAt", f.RetryAt)...)
	default:
		s.log.Warn("scheduler: a wake-up failed; it was moved or removed meanwhile", attrs...)
	}
}

// sleep waits for d (forever when d < 0), a signal, or the end of ctx;
// false means ctx ended.
func sleep(ctx context.Context, d time.Duration, signal <-chan struct{}) bool {
	var timer <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-signal:
	case <-timer:
	}
	return true
}
