package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/bbolt"
)

// compactTxSize bounds the bytes Compact writes in one transaction of the
// copy, so its memory stays flat however large the file.
const compactTxSize = 64 << 20

// Compact rewrites the database file at path with its pages filled whole,
// for the end of a bulk load (`parley import`). Buckets whose keys arrive
// out of order (customers by e-mail, conversations by customer, chats,
// events) split their pages in halves as they grow, so after a load about
// a sixth of the file is empty space; the copy bbolt's Compact makes puts
// every key in order into full pages. Sequences come along, so ids and
// the outbox's numbering go on where they were.
//
// No process may have the file open. The copy is written beside it,
// synced, and renamed over it: a crash leaves the old file or the new
// one, whole. The file's identity (its inode) changes, which is what a
// list snapshot is marked with (lists.Engine.SaveAt). It returns the file's
// sizes before and after.
func Compact(path string) (before, after int64, err error) {
	src, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if errors.Is(err, bbolt.ErrTimeout) {
		return 0, 0, ErrLocked
	}
	if err != nil {
		return 0, 0, fmt.Errorf("storage: compact %s: %w", path, err)
	}
	tmp := path + ".compact"
	err = compactInto(tmp, src)
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		before, after, err = sizes(path, tmp)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
		return 0, 0, fmt.Errorf("storage: compact %s: %w", path, err)
	}
	return before, after, nil
}

// compactInto writes src's compacted copy to a new file at path and syncs
// it. The copy's commits skip fsync: the one sync at the end makes it
// durable before it is renamed into place. bbolt grows a file ahead of its
// pages (to the next power of two, then 16 MiB at a time), so the copy is
// cut back to its last page: at 20,000 conversations that slack made the
// compacted file larger than the one it replaced. bbolt grows the file
// again before it writes past the end.
func compactInto(path string, src *bbolt.DB) error {
	os.Remove(path) // a copy a crash left behind
	dst, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second, NoSync: true, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return err
	}
	var used int64
	err = bbolt.Compact(dst, src, compactTxSize)
	if err == nil {
		err = dst.View(func(tx *bbolt.Tx) error { used = tx.Size(); return nil })
	}
	if err = errors.Join(err, dst.Close()); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(used)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func sizes(a, b string) (int64, int64, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return 0, 0, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return 0, 0, err
	}
	return fa.Size(), fb.Size(), nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
