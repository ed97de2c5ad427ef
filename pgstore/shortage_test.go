package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/pgtest"
)

// TestShortOfAResource: a write PostgreSQL refuses for want of shared
// memory (a full predicate lock table) or of connections runs again, and
// commits once the shortage passes; a shortage that lasts, or one that
// waits on an operator (a full disk, a configured limit), ends the write
// with a parley.Unavailable that keeps PostgreSQL's error as its cause.
// Any other error stays internal.
func TestShortOfAResource(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      string
		failures  int
		commits   bool
		wantKind  parley.Kind // of the error, when the write does not commit
		wantTries int
	}{
		{"out of shared memory, then enough", "53200", 2, true, 0, 3},
		{"too many connections, then fewer", "53300", 2, true, 0, 3},
		{"out of shared memory for good", "53200", maxAttempts + 10, false, parley.KindUnavailable, maxAttempts},
		{"too many connections for good", "53300", maxAttempts + 10, false, parley.KindUnavailable, maxAttempts},
		{"disk full", "53100", 1, false, parley.KindUnavailable, 1},
		{"configuration limit exceeded", "53400", 1, false, parley.KindUnavailable, 1},
		{"another error", "XX000", 1, false, parley.KindInternal, 1},
		{"a serialization failure, then none", "40001", 2, true, 0, 3},
		{"serialization failures every time", "40001", maxAttempts + 10, false, parley.KindUnavailable, maxAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, url := open(t)
			tries := pgtest.FailInserts(t, url, "tags", tc.code, tc.failures)
			tag := &parley.Tag{CompanyID: 1, Name: "billing"}
			_, err := db.Store().Update(context.Background(), func(tx parley.Tx) error {
				tag.ID = 0 // the write may run again
				return tx.PutTag(tag)
			})
			assert.Equal(t, tc.wantTries, tries())
			var stored []parley.Tag
			require.NoError(t, db.Store().View(context.Background(), func(tx parley.Tx) (err error) {
				stored, err = tx.Tags(1)
				return err
			}))
			if tc.commits {
				require.NoError(t, err)
				assert.Equal(t, []parley.Tag{*tag}, stored)
				return
			}
			require.Error(t, err)
			assert.Empty(t, stored)
			assert.Equal(t, tc.wantKind, parley.KindOf(err), "%v", err)
			var pgErr *pgconn.PgError
			require.True(t, errors.As(err, &pgErr), "the cause is kept: %v", err)
			assert.Equal(t, tc.code, pgErr.Code)
		})
	}
}

// TestAWriteTheServerEndedForIdlingRunsAgain: a write whose session
// PostgreSQL ended for idling inside the transaction (a node paused past
// idle_in_transaction_session_timeout) was aborted by the server, so it
// runs again on another connection and commits, rather than failing.
func TestAWriteTheServerEndedForIdlingRunsAgain(t *testing.T) {
	ctx := context.Background()
	url := migrated(t) + "&idle_in_transaction_session_timeout=100"
	db, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer db.Close()
	runs := 0
	tag := &parley.Tag{CompanyID: 1, Name: "billing"}
	_, err = db.Store().Update(ctx, func(tx parley.Tx) error {
		runs++
		tag.ID = 0 // the write may run again
		if _, err := tx.Tags(1); err != nil {
			return err
		}
		if runs == 1 {
			time.Sleep(400 * time.Millisecond) // paused inside the transaction
		}
		return tx.PutTag(tag)
	})
	require.NoError(t, err)
	assert.Equal(t, 2, runs)
	var stored []parley.Tag
	require.NoError(t, db.Store().View(ctx, func(tx parley.Tx) (err error) {
		stored, err = tx.Tags(1)
		return err
	}))
	assert.Equal(t, []parley.Tag{*tag}, stored)
}
