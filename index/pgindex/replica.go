package pgindex

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/parley/parley/index"
)

// Replicated is the engine with its reads (searches, facets, suggestions)
// sent to a streaming replica of the database, while keeping
// read-your-writes: a read first asks the primary the position its
// write-ahead log reached (one statement, reading no table), then waits,
// for at most Wait, until the replica has replayed up to it, and else
// reads the primary. Search rows are written in the transaction of the
// write that changed the records, on any node (pgstore.Indexer), so the
// primary's position covers every write committed before the read,
// whichever node made it.
type Replicated struct {
	*Engine // the primary's: every write, and the reads the replica is too far behind for
	replica *Engine
	// Wait bounds how long a read waits for the replica.
	Wait time.Duration
	// written is the primary's WAL position after the last batch applied;
	// replayed is the replica's replay position last seen.
	written, replayed atomic.Uint64
	// ReplicaReads and PrimaryReads count where reads went.
	ReplicaReads, PrimaryReads atomic.Int64
}

var (
	_ index.Engine     = (*Replicated)(nil)
	_ index.Faceter    = (*Replicated)(nil)
	_ index.Aggregator = (*Replicated)(nil)
	_ index.Suggester  = (*Replicated)(nil)
)

// ErrNotReplica refuses a read database that is not a streaming replica:
// its replay position would never tell whether a write has reached it.
var ErrNotReplica = errors.New("pgindex: the read database is not a streaming replica (pg_is_in_recovery() is false)")

// DefaultReplicaWait is how long a read waits for the replica by default:
// about a replica's lag under load, far below a request's deadline.
const DefaultReplicaWait = 500 * time.Millisecond

// A WAL position as a number: its distance from 0/0, in bytes.
const (
	sqlWritten  = `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`
	sqlReplayed = `SELECT pg_is_in_recovery(), coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)`
)

// OpenReplicated sends the reads of primary to the replica at url (a
// standby of primary's database, made by pg_basebackup -R or the like),
// whose schema the primary's migrations reach by replication: nothing is
// migrated there.
func OpenReplicated(ctx context.Context, primary *Engine, url string) (*Replicated, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgindex: read database: %w", err)
	}
	replica, err := connect(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgindex: read database: %w", err)
	}
	r := &Replicated{Engine: primary, replica: replica, Wait: DefaultReplicaWait}
	var standby bool
	var replayed, written int64
	err = replica.pool.QueryRow(ctx, sqlReplayed).Scan(&standby, &replayed)
	if err == nil && !standby {
		err = ErrNotReplica
	}
	if err == nil {
		// Writes made before this process started count too: a client
		// may read after a restart what it wrote before.
		err = primary.pool.QueryRow(ctx, sqlWritten).Scan(&written)
	}
	if err != nil {
		replica.Close()
		return nil, fmt.Errorf("pgindex: read database: %w", err)
	}
	r.written.Store(uint64(written))
	r.replayed.Store(uint64(replayed))
	return r, nil
}

// Close closes both pools.
func (r *Replicated) Close() error {
	return errors.Join(r.replica.Close(), r.Engine.Close())
}

// Apply applies the batch on the primary, then raises the mark reads wait
// for to the primary's WAL position, past the batch's commit.
func (r *Replicated) Apply(ctx context.Context, b index.Batch, durable func(error)) error {
	if err := r.Engine.Apply(ctx, b, durable); err != nil {
		return err
	}
	return r.MarkWritten(ctx)
}

// MarkWritten raises the position reads wait for to the primary's
// current one.
func (r *Replicated) MarkWritten(ctx context.Context) error {
	var at int64
	if err := r.Engine.pool.QueryRow(ctx, sqlWritten).Scan(&at); err != nil {
		return fmt.Errorf("pgindex: the primary's WAL position: %w", err)
	}
	raise(&r.written, uint64(at))
	return nil
}

// raise moves v up to at, never down (batches finish in any order).
func raise(v *atomic.Uint64, at uint64) {
	for old := v.Load(); old < at && !v.CompareAndSwap(old, at); old = v.Load() {
	}
}

// reader is the engine a read goes to: the replica once it replayed
// everything committed on the primary before the read, polled for at
// most Wait; else the primary.
func (r *Replicated) reader(ctx context.Context) *Engine {
	if err := r.MarkWritten(ctx); err != nil {
		r.PrimaryReads.Add(1)
		return r.Engine
	}
	target := r.written.Load()
	deadline := time.Now().Add(r.Wait)
	pause := time.Millisecond
	for {
		if r.replayed.Load() >= target {
			r.ReplicaReads.Add(1)
			return r.replica
		}
		var standby bool
		var at int64
		if err := r.replica.pool.QueryRow(ctx, sqlReplayed).Scan(&standby, &at); err != nil || !standby {
			break // unreachable, or promoted: the primary answers
		}
		raise(&r.replayed, uint64(at))
		if r.replayed.Load() >= target {
			continue
		}
		if time.Now().Add(pause).After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			r.PrimaryReads.Add(1)
			return r.Engine
		case <-time.After(pause):
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
	r.PrimaryReads.Add(1)
	return r.Engine
}

// Search runs the request where reader says.
func (r *Replicated) Search(ctx context.Context, req index.Request) (index.Result, error) {
	return r.reader(ctx).Search(ctx, req)
}

// Facets counts where reader says.
func (r *Replicated) Facets(ctx context.Context, req index.FacetRequest) (index.FacetResult, error) {
	return r.reader(ctx).Facets(ctx, req)
}

// Aggregate aggregates where reader says.
func (r *Replicated) Aggregate(ctx context.Context, req index.AggregateRequest) (index.AggregateResult, error) {
	return r.reader(ctx).Aggregate(ctx, req)
}

// Words lists the words where reader says.
func (r *Replicated) Words(ctx context.Context, kind index.Kind, company int64, word string, maxEdits int) ([]string, error) {
	return r.reader(ctx).Words(ctx, kind, company, word, maxEdits)
}
