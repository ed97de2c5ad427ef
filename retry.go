package parley

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Jitter draws the jitter of retry delays (RetryDelay) from a random
// source, safe for concurrent use. Outboxes (webhook deliveries, outgoing
// e-mail) share it; tests seed the source.
type Jitter struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewJitter draws from r; nil seeds a source randomly.
func NewJitter(r *rand.Rand) *Jitter {
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return &Jitter{r: r}
}

// Draw is a number in [0, 1).
func (j *Jitter) Draw() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.r.Float64()
}

// Repeat calls work at once and then every interval until ctx ends; the
// outboxes' dispatchers run this way. An error is logged by logf (unless
// ctx ended) and the work goes again at the next tick.
func Repeat(ctx context.Context, every time.Duration, work func(context.Context) error, logf func(err error)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := work(ctx); err != nil && ctx.Err() == nil {
			logf(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
