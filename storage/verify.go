package storage

import (
	"errors"
	"fmt"
	"os"
	"time"

	"go.etcd.io/bbolt"
)

// ErrNotBackup is returned by Verify for a file that is not a whole Parley
// database: missing, of another format, truncated or inconsistent.
var ErrNotBackup = errors.New("storage: not a whole Parley database")

// Verify proves, without writing to it, that the file at path is a whole
// Parley database: bbolt opens it read-only, the file holds every page its
// meta page counts (a truncated copy does not), bbolt's consistency check
// walks every page without a fault, and every bucket Parley declares is
// there. Restore calls it before touching the data directory.
func Verify(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotBackup, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotBackup, path)
	}
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if errors.Is(err, bbolt.ErrTimeout) {
		return ErrLocked
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotBackup, path, err)
	}
	defer b.Close()
	return b.View(func(tx *bbolt.Tx) error {
		if want := tx.Size(); fi.Size() < want {
			return fmt.Errorf("%w: %s is truncated: %d bytes of %d", ErrNotBackup, path, fi.Size(), want)
		}
		var bad error
		for err := range tx.Check() { // drained: the checker stops when the channel closes
			if bad == nil {
				bad = fmt.Errorf("%w: %s is inconsistent: %w", ErrNotBackup, path, err)
			}
		}
		if bad != nil {
			return bad
		}
		// Buckets every Parley database has held since its first version
		// (Open adds later ones, so an older backup still restores).
		for _, name := range [][]byte{bucketCompanies, bucketUsers, bucketConversations, bucketSequences} {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("%w: %s has no %q bucket (not a Parley database)", ErrNotBackup, path, name)
			}
		}
		return nil
	})
}
