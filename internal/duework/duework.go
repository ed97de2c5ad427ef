// Package duework is the loop of every background worker whose work comes
// due at a time: sending e-mail, delivering webhooks, and the scheduler's
// wake-ups (snoozes, scheduled replies, time workflows). Each worker says
// what a round does and when its next item is due; the loop runs a round,
// then sleeps until that item is due, until a commit signals new work, or
// for at most a tick, and after a failed round waits Retry before the next.
// A round with nothing due should read only, so an idle server writes
// nothing.
package duework

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Loop is one worker's schedule.
type Loop struct {
	// Name prefixes the loop's log lines ("email", "webhooks", "scheduler").
	Name string
	// Round does the work due at now. An error is logged and the loop
	// waits Retry; an error after ctx ended ends the loop quietly. A round
	// that wants to be run again soon without an item due (work another
	// node holds) says so through Next.
	Round func(ctx context.Context, now time.Time) error
	// Next is when the earliest waiting item is due; false when none waits.
	Next func(ctx context.Context) (time.Time, bool, error)
	// Signal wakes the loop early: a commit stored new work.
	Signal <-chan struct{}
	// Tick is the longest the loop sleeps between rounds; 0 means no limit
	// (it sleeps until the next item is due or Signal fires).
	Tick time.Duration
	// Retry is how long the loop waits after a failed round.
	Retry time.Duration
	// Now is the clock.
	Now func() time.Time
	// Log receives the failures.
	Log *slog.Logger
}

// Run runs rounds until ctx ends. A failed round is logged, and the next
// comes after Retry.
func (l Loop) Run(ctx context.Context) {
	for {
		wait, err := l.Step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			l.Log.Error(l.Name+": failed; will retry", "err", err)
			wait = l.Retry
		}
		if !sleep(ctx, wait, l.Signal) {
			return
		}
	}
}

// Step runs one round and says how long to wait before the next: until
// the next item is due, at most Tick; negative means until signalled. An
// error is the round's, or that of reading when the next item is due.
func (l Loop) Step(ctx context.Context) (time.Duration, error) {
	if err := l.Round(ctx, l.Now()); err != nil {
		return 0, err
	}
	next, ok, err := l.Next(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading the next due item: %w", err)
	}
	wait := time.Duration(-1)
	if l.Tick > 0 {
		wait = l.Tick
	}
	if ok {
		due := max(next.Sub(l.Now()), 0)
		if wait < 0 || due < wait {
			wait = due
		}
	}
	return wait, nil
}

// sleep waits for d (until signalled when d < 0), a signal, or the end of
// ctx; false means ctx ended.
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
