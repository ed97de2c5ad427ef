package pgstore

import (
	"testing"

	"github.com/parley/parley/internal/storetest"
)

// TestConformance holds the PostgreSQL store to the seam's conformance
// suite, which the bbolt store runs too.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		db, _ := open(t)
		return db
	})
}
