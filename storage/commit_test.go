package storage

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/bbolt"
)

var bucketTest = []byte("test")

func openCommitter(t *testing.T) *committer {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(t.TempDir(), "commit.db"), 0o600, &bbolt.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketTest)
		return err
	}))
	return &committer{bolt: db}
}

// put is a write of one key.
func put(key string) func(*bbolt.Tx) error {
	return func(tx *bbolt.Tx) error { return tx.Bucket(bucketTest).Put([]byte(key), []byte("v")) }
}

func keys(t *testing.T, c *committer) []string {
	t.Helper()
	var out []string
	require.NoError(t, c.bolt.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketTest).ForEach(func(k, _ []byte) error { out = append(out, string(k)); return nil })
	}))
	return out
}

// queued waits until a commit is under way and n writers wait behind it.
func queued(t *testing.T, c *committer, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.running && len(c.queue) == n
	}, 10*time.Second, time.Millisecond)
}

func TestConcurrentWritesAllCommit(t *testing.T) {
	c := openCommitter(t)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() { assert.NoError(t, c.update(put(fmt.Sprintf("k%02d", i)))) })
	}
	wg.Wait()
	assert.Len(t, keys(t, c), 64)
	assert.Eventually(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return !c.running }, 10*time.Second, time.Millisecond,
		"the last commit hands nothing on")
}

// The writers queued behind a commit share the next one; one that fails,
// or panics, rolls it back, and is run again alone: it gets its own error
// or panic, and the others commit.
func TestAFailingWriterFailsAlone(t *testing.T) {
	broken := errors.New("broken")
	for name, bad := range map[string]func(*bbolt.Tx) error{
		"error": func(tx *bbolt.Tx) error {
			if err := put("bad")(tx); err != nil {
				return err
			}
			return broken
		},
		"panic": func(tx *bbolt.Tx) error {
			if err := put("bad")(tx); err != nil {
				return err
			}
			panic("broken")
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := openCommitter(t)
			release := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() { // leads the first commit, held until the others queue
				assert.NoError(t, c.update(func(tx *bbolt.Tx) error { <-release; return put("first")(tx) }))
			})
			queued(t, c, 0)
			runs := map[string]int{}
			var mu sync.Mutex
			counted := func(key string) func(*bbolt.Tx) error {
				return func(tx *bbolt.Tx) error {
					mu.Lock()
					runs[key]++
					mu.Unlock()
					return put(key)(tx)
				}
			}
			wg.Go(func() { assert.NoError(t, c.update(counted("before"))) })
			queued(t, c, 1)
			var got error
			var recovered any
			wg.Go(func() {
				defer func() { recovered = recover() }()
				got = c.update(bad)
			})
			queued(t, c, 2)
			wg.Go(func() { assert.NoError(t, c.update(counted("after"))) })
			queued(t, c, 3)
			close(release)
			wg.Wait()

			assert.Equal(t, []string{"after", "before", "first"}, keys(t, c))
			assert.Equal(t, map[string]int{"before": 2, "after": 1}, runs, "the writer before the failed one ran again")
			if name == "error" {
				assert.Equal(t, broken, got)
			} else {
				assert.Equal(t, "broken", recovered)
			}
		})
	}
}
