package pgstore

import (
	"context"
	"fmt"
)

// MinPredicateLocks is the max_pred_locks_per_transaction that nodes
// sharing a database need. Writes run SERIALIZABLE, and while one stays
// open (a node paused inside a write, until its session times out) the
// server keeps the predicate locks of every serializable write committed
// since; at the default, 64, the table filled after about 250 writes of
// another node and every node's writes failed with "out of shared
// memory" (cmd/parley's TestStopANodeWhileAnotherTakesWrites).
const MinPredicateLocks = 256

var sqlPredicateLocks = stmt(`SELECT current_setting('max_pred_locks_per_transaction')::int`)

// Advice lists the server's settings that a deployment of several nodes
// should change, each as a sentence for the log; none when all is well.
func (db *DB) Advice(ctx context.Context) ([]string, error) {
	var locks int
	if err := db.pool.QueryRow(ctx, sqlPredicateLocks).Scan(&locks); err != nil {
		return nil, fmt.Errorf("pgstore: read max_pred_locks_per_transaction: %w", err)
	}
	return predicateLockAdvice(locks), nil
}

// predicateLockAdvice is the advice on a server whose
// max_pred_locks_per_transaction is locks.
func predicateLockAdvice(locks int) []string {
	if locks >= MinPredicateLocks {
		return nil
	}
	return []string{fmt.Sprintf("max_pred_locks_per_transaction is %d; set it to at least %d when several nodes share the database (a node paused inside a write can otherwise make every node's writes fail with \"out of shared memory\")", locks, MinPredicateLocks)}
}
