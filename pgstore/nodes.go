package pgstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Several `parley serve` nodes share one database. What they coordinate
// the database does for them:
//
//   - The search tables are written by one node at a time, the holder of
//     the indexing role: a session advisory lock on a connection of its
//     own, which PostgreSQL releases when that connection ends (the node
//     died or lost the database), so another node takes the role at its
//     next look. The holder advances the shared cursor 'applied' (every
//     outbox entry up to it is in the search tables).
//   - Every node follows the outbox by sequence into its own list engine;
//     entries stay until they are applied and older than a retention
//     window (pruned by the holder), and 'pruned' tells a node that fell
//     further behind that it must reload.
//   - Commits announce themselves with NOTIFY on one channel, so every
//     node's workers and followers wake at once (see listen).

// indexerLock is the session advisory lock of the indexing role.
const indexerLock = 0x696e6465786572 // "indexer"

// channel is the NOTIFY channel of every announcement: "outbox" (entries
// committed), "applied" (the search tables advanced), "later", "webhooks",
// "mail" (work for those workers), "chat:<id>" (a chat changed).
const channel = "parley"

var (
	sqlTryIndexer       = stmt(`SELECT pg_try_advisory_lock($1)`)
	sqlAlive            = stmt(`SELECT 1`)
	sqlOutboxCursors    = stmt(`SELECT max(c.seq) FILTER (WHERE c.name = 'applied'), max(c.seq) FILTER (WHERE c.name = 'pruned') FROM outbox_cursors c`)
	sqlSetOutboxApplied = stmt(`WITH moved AS (UPDATE outbox_cursors c SET seq = $1 WHERE c.name = 'applied' AND c.seq < $1 RETURNING c.seq)
SELECT pg_notify('` + channel + `', 'applied') FROM moved`)
	sqlPruneOutbox = stmt(`WITH gone AS (DELETE FROM outbox o WHERE o.seq <= $1 AND o.queued_at < clock_timestamp() - make_interval(secs => $2) RETURNING o.seq)
UPDATE outbox_cursors c SET seq = greatest(c.seq, (SELECT coalesce(max(g.seq), 0) FROM gone g)) WHERE c.name = 'pruned' ` + AllCompanies)
	sqlNotify = stmt(`SELECT pg_notify('` + channel + `', n) FROM unnest($1::text[]) AS n`)
	sqlListen = stmt(`LISTEN ` + channel)
)

// HoldIndexing reports whether this node holds the indexing role, taking
// it when no node does. The role lives as long as the connection that
// holds its lock, which each call checks.
func (db *DB) HoldIndexing(ctx context.Context) (bool, error) {
	db.leaseMu.Lock()
	defer db.leaseMu.Unlock()
	if db.lease != nil && db.holding {
		if _, err := db.lease.Exec(ctx, sqlAlive); err == nil {
			return true, nil
		}
		db.dropLease() // the lock went with the connection
	}
	if db.lease == nil {
		conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
		if err != nil {
			return false, fmt.Errorf("pgstore: indexing role: %w", err)
		}
		db.lease = conn
	}
	if err := db.lease.QueryRow(ctx, sqlTryIndexer, indexerLock).Scan(&db.holding); err != nil {
		db.dropLease()
		return false, fmt.Errorf("pgstore: indexing role: %w", err)
	}
	return db.holding, nil
}

// dropLease closes the role's connection (which releases the lock).
func (db *DB) dropLease() {
	if db.lease != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = db.lease.Close(ctx)
	}
	db.lease, db.holding = nil, false
}

// OutboxCursors returns the shared cursors: every entry up to applied is
// in the search tables, and entries up to pruned may be gone.
func (db *DB) OutboxCursors(ctx context.Context) (applied, pruned uint64, err error) {
	var a, p int64
	if err := db.pool.QueryRow(ctx, sqlOutboxCursors).Scan(&a, &p); err != nil {
		return 0, 0, fmt.Errorf("pgstore: outbox cursors: %w", err)
	}
	return uint64(a), uint64(p), nil
}

// SetOutboxApplied moves the applied cursor forward to seq (never back)
// and tells every node.
func (db *DB) SetOutboxApplied(ctx context.Context, seq uint64) error {
	if _, err := db.pool.Exec(ctx, sqlSetOutboxApplied, int64(seq)); err != nil {
		return fmt.Errorf("pgstore: outbox applied: %w", err)
	}
	return nil
}

// PruneOutbox removes the entries up to applied that are older than
// retention: every node's list engine has followed them by then, or
// reloads (it finds its cursor behind 'pruned').
func (db *DB) PruneOutbox(ctx context.Context, applied uint64, retention time.Duration) error {
	if _, err := db.pool.Exec(ctx, sqlPruneOutbox, int64(applied), retention.Seconds()); err != nil {
		return fmt.Errorf("pgstore: prune outbox: %w", err)
	}
	return nil
}

// announcements are what a committed write tells every node (see channel).
func (t *Tx) announcements() []string {
	var out []string
	for _, e := range t.outbox {
		if len(out) == 0 {
			out = append(out, "outbox")
		}
		if e.Kind == parley.OutboxChat {
			out = append(out, "chat:"+e.Ref)
		}
	}
	for _, a := range []struct {
		set  bool
		name string
	}{{t.laterChanged, "later"}, {t.webhookWork, "webhooks"}, {t.mailWork, "mail"}} {
		if a.set {
			out = append(out, a.name)
		}
	}
	return out
}

// announce queues the transaction's announcements, which PostgreSQL
// delivers to every listening node when (and only if) it commits.
func (t *Tx) announce() error {
	if news := t.announcements(); len(news) > 0 {
		return t.exec(sqlNotify, news)
	}
	return nil
}

// OnChat registers the function told of each chat changed on any node
// (the visitors' long-polls wait for it). Set it before Listen.
func (db *DB) OnChat(f func(chatID string)) { db.onChat = f }

// listenRetry is the pause before listening again after the connection
// failed.
const listenRetry = time.Second

// Listen hears every node's announcements until ctx ends, and passes each
// on: commits wake the index follower (OnCommit's function) and the
// workers' signals, chat changes go to OnChat's function. When the
// connection fails it listens again, and wakes everything once, as an
// announcement may have been missed meanwhile.
func (db *DB) Listen(ctx context.Context, log *slog.Logger) {
	for ctx.Err() == nil {
		err := db.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		log.Warn("listening for other nodes failed; listening again", "err", err)
		db.hear("outbox")
		db.hear("later")
		db.hear("webhooks")
		db.hear("mail")
		select {
		case <-ctx.Done():
		case <-time.After(listenRetry):
		}
	}
}

func (db *DB) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, sqlListen); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		db.hear(n.Payload)
	}
}

// hear acts on one announcement.
func (db *DB) hear(news string) {
	switch {
	case news == "outbox" || news == "applied":
		if db.onCommit != nil {
			db.onCommit(0)
		}
	case news == "later":
		signal(db.later)
	case news == "webhooks":
		signal(db.webhooks)
	case news == "mail":
		signal(db.mail)
	case strings.HasPrefix(news, "chat:"):
		if db.onChat != nil {
			db.onChat(strings.TrimPrefix(news, "chat:"))
		}
	}
}

// nodeState is what a DB keeps for sharing the database with other nodes.
type nodeState struct {
	leaseMu sync.Mutex
	lease   *pgx.Conn // holds (or tries for) the indexing role's lock
	holding bool
	onChat  func(chatID string)
	// ratesPruned is the window (Unix seconds) whose stale rate rows this
	// node last pruned.
	ratesPruned atomic.Int64
}

// closeNode releases the indexing role.
func (db *DB) closeNode() error {
	db.leaseMu.Lock()
	defer db.leaseMu.Unlock()
	db.dropLease()
	return nil
}
