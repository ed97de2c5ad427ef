package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Rate limits counted in the database, so that every node of one spends
// from the same budgets: one row per company and budget holding the
// current window, moved to a new window by the first call in it. A node
// whose clock runs behind counts in the newer window it finds.

var _ parley.RateCounter = (*DB)(nil)

var (
	sqlTakeRate = stmt(`INSERT INTO rate_windows (company_id, budget, window_start, used) VALUES ($1, $2, $3, $4)
ON CONFLICT (company_id, budget) DO UPDATE SET
used = CASE WHEN rate_windows.window_start >= EXCLUDED.window_start THEN rate_windows.used + EXCLUDED.used ELSE EXCLUDED.used END,
window_start = greatest(rate_windows.window_start, EXCLUDED.window_start)
WHERE rate_windows.window_start < EXCLUDED.window_start OR rate_windows.used + EXCLUDED.used <= $5
RETURNING used`)
	sqlRateUsed   = stmt(`SELECT r.used FROM rate_windows r WHERE r.company_id = $1 AND r.budget = $2`)
	sqlRefundRate = stmt(`UPDATE rate_windows r SET used = greatest(r.used - $4, 0) WHERE r.company_id = $1 AND r.budget = $2 AND r.window_start = $3`)
	sqlPruneRates = stmt(`DELETE FROM rate_windows r WHERE r.company_id = $1 AND r.window_start < $2`)
)

// Take spends cost from a budget's window unless that would pass limit.
func (db *DB) Take(company int64, key string, window time.Time, limit, cost int) (bool, int, error) {
	ctx := context.Background()
	if cost > limit {
		return false, 0, nil
	}
	db.pruneRates(ctx, window)
	var used int
	err := db.pool.QueryRow(ctx, sqlTakeRate, company, key, window.Unix(), cost, limit).Scan(&used)
	if errors.Is(err, pgx.ErrNoRows) { // refused: nothing spent
		err = db.pool.QueryRow(ctx, sqlRateUsed, company, key).Scan(&used)
		if err == nil {
			return false, used, nil
		}
	}
	if err != nil {
		return false, 0, fmt.Errorf("pgstore: rate limit: %w", err)
	}
	return true, used, nil
}

// Refund gives back cost taken in the window.
func (db *DB) Refund(company int64, key string, window time.Time, cost int) error {
	if _, err := db.pool.Exec(context.Background(), sqlRefundRate, company, key, window.Unix(), cost); err != nil {
		return fmt.Errorf("pgstore: rate limit refund: %w", err)
	}
	return nil
}

// pruneRates drops, once a window per node, the rows of budgets of no
// company (client addresses, chats...) idle since before the window: they
// would otherwise pile up. A company has a few budgets, kept.
func (db *DB) pruneRates(ctx context.Context, window time.Time) {
	w := window.Unix()
	if prev := db.ratesPruned.Load(); prev >= w || !db.ratesPruned.CompareAndSwap(prev, w) {
		return
	}
	_, _ = db.pool.Exec(ctx, sqlPruneRates, int64(0), w) // best effort: the next window tries again
}
