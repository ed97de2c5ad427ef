package pgstore

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	parley "github.com/parley/parley"
)

// Several `parley serve` nodes share one database. What they coordinate
// the database does for them:
//
//   - Each write writes the search rows of the records it touched in its
//     own transaction (see search.go): no node indexes for the others,
//     and a read on any node sees every committed write.
//   - Writes announce the work they left for the workers with NOTIFY on
//     one channel, just after they commit (see announce), so every node's
//     workers wake at once (see listen), and chat changes, so every
//     node's visitors' long-polls answer.

// channel is the NOTIFY channel of every announcement: "later",
// "webhooks", "mail" (work for those workers), "chat:<id>" (a chat
// changed).
const channel = "parley"

var (
	sqlNotify = stmt(`SELECT pg_notify('` + channel + `', n) FROM unnest($1::text[]) AS n`)
	sqlListen = stmt(`LISTEN ` + channel)
)

// announcements are what a committed write tells every node (see channel).
func (t *Tx) announcements() []string {
	var out []string
	for _, e := range t.touched {
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

// announceTimeout bounds the NOTIFY after a commit.
const announceTimeout = 5 * time.Second

// announce tells every node what a committed write left, in a statement
// of its own after the commit: a transaction that notifies takes
// PostgreSQL's NOTIFY queue lock as it commits, which would queue the
// commits of every write behind one another. It is best effort, even once
// the request is gone: a node that misses an announcement (the statement
// failed, or its listening connection was down) finds the work on its
// workers' timers, and Listen wakes everything when it listens again.
func (db *DB) announce(ctx context.Context, t *Tx) {
	news := t.announcements()
	if len(news) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), announceTimeout)
	defer cancel()
	_, _ = db.pool.Exec(ctx, sqlNotify, news)
}

// OnChat registers the function told of each chat changed on any node
// (the visitors' long-polls wait for it). Set it before Listen.
func (db *DB) OnChat(f func(chatID string)) { db.onChat = f }

// listenRetry is the pause before listening again after the connection
// failed.
const listenRetry = time.Second

// Listen hears every node's announcements until ctx ends, and passes each
// on: work for the workers to their signals, chat changes to OnChat's
// function. When the
// connection fails it listens again, and wakes everything once, as an
// announcement may have been missed meanwhile.
func (db *DB) Listen(ctx context.Context, log *slog.Logger) {
	for ctx.Err() == nil {
		err := db.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		log.Warn("listening for other nodes failed; listening again", "err", err)
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
	onChat func(chatID string)
	// ratesPruned is the window (Unix seconds) whose stale rate rows this
	// node last pruned.
	ratesPruned atomic.Int64
}
