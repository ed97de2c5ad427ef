package duework

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStep(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	failed := errors.New("disk on fire")
	type next struct {
		at  time.Time
		ok  bool
		err error
	}
	tests := []struct {
		name     string
		roundErr error
		next     next
		tick     time.Duration
		want     time.Duration
		wantErr  string
	}{
		{"nothing waits, no tick: until signalled", nil, next{}, 0, -1, ""},
		{"nothing waits: the tick", nil, next{}, time.Minute, time.Minute, ""},
		{"due before the tick", nil, next{at: now.Add(5 * time.Second), ok: true}, time.Minute, 5 * time.Second, ""},
		{"due after the tick", nil, next{at: now.Add(time.Hour), ok: true}, time.Minute, time.Minute, ""},
		{"due, no tick", nil, next{at: now.Add(time.Hour), ok: true}, 0, time.Hour, ""},
		{"overdue: at once", nil, next{at: now.Add(-time.Hour), ok: true}, time.Minute, 0, ""},
		{"a failed round: retry", failed, next{at: now, ok: true}, time.Minute, 0, "disk on fire"},
		{"the next item unreadable: retry", nil, next{err: failed}, time.Minute, 0, "reading the next due item: disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var roundAt time.Time
			l := Loop{
				Name: "mail",
				Round: func(_ context.Context, at time.Time) error {
					roundAt = at
					return tt.roundErr
				},
				Next: func(context.Context) (time.Time, bool, error) { return tt.next.at, tt.next.ok, tt.next.err },
				Tick: tt.tick,
				Now:  func() time.Time { return now },
			}
			wait, err := l.Step(context.Background())
			assert.Equal(t, tt.want, wait)
			assert.Equal(t, now, roundAt, "the round runs at the clock's now")
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
		})
	}
}

// TestRunStopsWithContext runs the loop until its context ends: a failed
// round is logged and retried after Retry, with nothing due the loop waits
// for a signal, and a round that fails because the context ended is not
// logged.
func TestRunStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signal := make(chan struct{})
	second := make(chan struct{})
	rounds := 0
	var logged bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		Loop{
			Name: "mail",
			Round: func(ctx context.Context, _ time.Time) error {
				switch rounds++; rounds {
				case 1:
					return errors.New("relay down")
				case 2:
					close(second)
				case 3:
					cancel()
				}
				return ctx.Err()
			},
			Next:   func(context.Context) (time.Time, bool, error) { return time.Time{}, false, nil },
			Signal: signal,
			Retry:  time.Millisecond,
			Now:    time.Now,
			Log:    slog.New(slog.NewTextHandler(&logged, nil)),
		}.Run(ctx)
	}()
	<-second             // the retry after the failed round is over
	signal <- struct{}{} // received once the second round has run and the loop sleeps
	<-done
	assert.Equal(t, 3, rounds)
	assert.Equal(t, 1, strings.Count(logged.String(), "mail: failed; will retry"), logged.String())
	assert.Contains(t, logged.String(), "relay down")
}
