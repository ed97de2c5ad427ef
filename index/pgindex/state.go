package pgindex

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/index"
)

// ReferenceTables are the engine's tables that belong to no company (one
// row for the whole database), replicated to every node under Citus.
var ReferenceTables = []string{"search_state"}

// rebuildLock is the session advisory lock held while the search tables
// are checked and rebuilt, so that of several nodes starting together on
// one database, one rebuilds and the others wait, then find them current.
const rebuildLock = 0x72656275696c64 // "rebuild"

// Stale reports whether the search tables were built with another
// index.MappingVersion than this binary's, or never marked as built (a
// database from before the engine recorded it): their documents may not
// be the ones this binary's indexer makes, and must be rebuilt.
func (e *Engine) Stale(ctx context.Context) (bool, error) {
	var version string
	err := e.pool.QueryRow(ctx, `SELECT s.mapping_version FROM search_state s`).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("pgindex: read the mapping version: %w", err)
	}
	return version != index.MappingVersion, nil
}

// MarkBuilt records that the search tables hold documents of this
// binary's index.MappingVersion.
func (e *Engine) MarkBuilt(ctx context.Context) error {
	_, err := e.pool.Exec(ctx, `INSERT INTO search_state (singleton, mapping_version, built_at) VALUES (true, $1, now())
ON CONFLICT (singleton) DO UPDATE SET mapping_version = excluded.mapping_version, built_at = excluded.built_at`, index.MappingVersion)
	if err != nil {
		return fmt.Errorf("pgindex: record the mapping version: %w", err)
	}
	return nil
}

// MarkStale forgets the version the search tables were built with, so
// that the next node to open them rebuilds them (`parley reindex`).
func (e *Engine) MarkStale(ctx context.Context) error {
	if _, err := e.pool.Exec(ctx, `DELETE FROM search_state`); err != nil {
		return fmt.Errorf("pgindex: forget the mapping version: %w", err)
	}
	return nil
}

// Truncate empties the search tables of every company at once, before a
// rebuild. It is the one statement that spans companies by design (Citus
// truncates every shard); callers hold LockRebuild.
func (e *Engine) Truncate(ctx context.Context) error {
	if _, err := e.pool.Exec(ctx, "TRUNCATE "+strings.Join(Tables, ", ")); err != nil {
		return fmt.Errorf("pgindex: empty the search tables: %w", err)
	}
	return nil
}

// LockRebuild waits until this node alone may check and rebuild the search
// tables, and returns the function that lets the next node in. The lock
// lives on a connection of its own, which PostgreSQL releases if the node
// dies mid-rebuild; the next node then finds the tables still stale (they
// are marked built last) and rebuilds them.
//
// It waits by asking again (pg_try_advisory_lock), never inside
// pg_advisory_lock: a statement blocked there keeps its snapshot, and the
// holder's Settle runs REINDEX CONCURRENTLY, which waits for every older
// snapshot to end, so the waiting node and the rebuilding one waited on
// each other for ever.
func (e *Engine) LockRebuild(ctx context.Context) (unlock func(), err error) {
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgindex: rebuild lock: %w", err)
	}
	for wait := rebuildLockPoll; ; wait = min(2*wait, rebuildLockPollMax) {
		var held bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, rebuildLock).Scan(&held); err != nil {
			conn.Release()
			return nil, fmt.Errorf("pgindex: rebuild lock: %w", err)
		}
		if held {
			break
		}
		select {
		case <-ctx.Done():
			conn.Release()
			return nil, fmt.Errorf("pgindex: rebuild lock: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
	return func() {
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, rebuildLock); err != nil {
			// Closing the session is what releases the lock then.
			_ = conn.Conn().Close(context.Background())
		}
		conn.Release()
	}, nil
}

// rebuildLockPoll is the first pause between two asks for the rebuild
// lock; each pause doubles up to rebuildLockPollMax. A rebuild takes
// seconds to hours, so a waiting node starts at most a second late.
const (
	rebuildLockPoll    = 10 * time.Millisecond
	rebuildLockPollMax = time.Second
)
