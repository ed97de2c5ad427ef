package storage

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.etcd.io/bbolt"
)

// committer groups concurrent writes into shared bbolt transactions (group
// commit: one fsync for many writers). A writer that finds no commit under
// way starts one at once with what is queued; writers that arrive while it
// runs queue, and commit together in the next.
//
// bbolt's own Batch starts a timer at a batch's first writer and commits
// when it fires (MaxBatchDelay, 10 ms) or when MaxBatchSize (1,000)
// writers have joined: every write waited those 10 ms, and writers came
// in rounds of 10 ms plus a commit whatever the disk could do.
type committer struct {
	bolt *bbolt.DB

	mu      sync.Mutex
	queue   []commitCall
	running bool // a goroutine is committing the queue
}

type commitCall struct {
	fn   func(*bbolt.Tx) error
	done chan error
}

// errAlone tells a writer whose function failed in a shared transaction
// to run it again in a transaction of its own: its error, or its panic, is
// then its own, and the others commit without it.
var errAlone = errors.New("storage: write again alone")

// panicked carries a panic out of a shared transaction.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// update runs fn in a write transaction shared with concurrent writers. fn
// may run more than once: again after another writer's failure rolled
// their shared transaction back, and alone after its own.
func (c *committer) update(fn func(*bbolt.Tx) error) error {
	done := make(chan error, 1)
	c.mu.Lock()
	c.queue = append(c.queue, commitCall{fn: fn, done: done})
	lead := !c.running
	c.running = true
	c.mu.Unlock()
	if lead {
		c.commitQueued()
	}
	if err := <-done; err != errAlone {
		return err
	}
	return c.bolt.Update(fn)
}

// commitQueued commits what is queued in one transaction. Writers that
// queued meanwhile are committed by a new goroutine, so that the leader's
// own write returns without waiting for theirs.
func (c *committer) commitQueued() {
	c.mu.Lock()
	calls := c.queue
	c.queue = nil
	c.mu.Unlock()
	commit(c.bolt, calls)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.running = false
		return
	}
	go c.commitQueued()
}

// commit runs calls in one transaction. When one fails, the transaction is
// rolled back, that writer is told to run alone, and the others run again
// without it.
func commit(db *bbolt.DB, calls []commitCall) {
	for len(calls) > 0 {
		failed := -1
		err := db.Update(func(tx *bbolt.Tx) error {
			for i, call := range calls {
				if err := safely(call.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 {
			calls[failed].done <- errAlone
			calls = slices.Delete(calls, failed, failed+1)
			continue
		}
		for _, call := range calls {
			call.done <- err
		}
		return
	}
}

// safely runs fn, returning a panic as an error so that it rolls back the
// shared transaction instead of unwinding the goroutine committing it.
func safely(fn func(*bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked{p}
		}
	}()
	return fn(tx)
}
