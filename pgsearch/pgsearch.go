// Package pgsearch joins the PostgreSQL store (pgstore) to the search
// tables in the same database (pgindex): Write is the store's indexer
// (pgstore.Indexer), which writes the search rows of the records a write
// touched on the write's own transaction, so they commit with the
// records. Every process that writes a PostgreSQL store whose searches
// pgindex answers (`parley`, its bench, the API's tests) opens the store
// with it (pgstore.Options.Indexer).
package pgsearch

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index/pgindex"
	"github.com/parley/parley/indexer"
	"github.com/parley/parley/pgstore"
)

var _ pgstore.Indexer = Write

// Write builds the documents of the records touched names, reading
// through the write's own transaction tx (so they hold what it changed),
// and writes their rows on conn, the same transaction.
func Write(ctx context.Context, tx *pgstore.Tx, conn pgx.Tx, touched []parley.OutboxEntry) error {
	batches, err := indexer.Batches(tx, touched)
	if err != nil {
		return fmt.Errorf("pgsearch: build the documents: %w", err)
	}
	for _, b := range batches {
		if err := pgindex.Write(ctx, conn, b); err != nil {
			return err
		}
	}
	return nil
}
