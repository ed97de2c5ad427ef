package storage_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/storetest"
	"github.com/parley/parley/storage"
)

// TestConformance holds the bbolt store to the seam's conformance suite,
// which the PostgreSQL store runs too.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		db, err := storage.Open(filepath.Join(t.TempDir(), "parley.db"), storage.Options{NoSync: true})
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return storetest.Outboxed{Source: db}
	})
}
