package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/internal/pgtest/pgserver"
)

// peerSettings configure the PostgreSQL peer as one would a small
// dedicated server for a bulk load and reads: memory for the buffer cache
// and index builds, no WAL for tables created in the loading transaction
// (nothing replicates), durability left on, as Parley's is. The same
// server holds Parley on PostgreSQL.
var peerSettings = []string{
	"shared_buffers=512MB", "effective_cache_size=2GB", "work_mem=32MB", "maintenance_work_mem=256MB",
	"wal_level=minimal", "max_wal_senders=0", "max_wal_size=4GB", "max_connections=20", "TimeZone=UTC",
}

// PeerLoad is what the PostgreSQL peer's bulk load measured.
type PeerLoad struct {
	Version                string        `json:"version"`
	Rows                   int           `json:"rows"` // every table's, conversations included
	Conversations          int           `json:"conversations"`
	Duration               time.Duration `json:"duration"` // COPY, the tsvectors, the index builds and ANALYZE
	RowsPerSecond          float64       `json:"rowsPerSecond"`
	ConversationsPerSecond float64       `json:"conversationsPerSecond"`
	BytesPerConversation   float64       `json:"bytesPerConversation"` // the tables' size, with their indexes and TOAST
	// LoadedBy is set when this run reused a database that the run of
	// that clock loaded (-reuse with -dir): the figures are that load's.
	LoadedBy string `json:"loadedBy,omitempty"`
}

// peer is the PostgreSQL server the bench measures Parley against, with
// one connection to the database holding the bench's data.
type peer struct {
	server *pgserver.Server
	conn   *pgx.Conn
	url    string    // the database's, for the HTTP service's pool
	kept   *keptLoad // with -dir: the server and its databases outlive the run
}

// startPeer starts a PostgreSQL server and creates the database: a
// throwaway server, or with dir (the bench's -dir) the one kept in it.
// Without PostgreSQL installed it returns pgserver.ErrNotInstalled.
func startPeer(ctx context.Context, dir string) (*peer, error) {
	s, err := startServer(dir)
	if err != nil {
		return nil, err
	}
	p := &peer{server: s}
	if dir == "" {
		p.url, err = s.NewDatabase(ctx)
	} else {
		p.url, _, err = s.Database(ctx, peerDatabase)
		p.kept = &keptLoad{server: s, name: peerDatabase}
	}
	if err == nil {
		if p.conn, err = pgx.Connect(ctx, p.url); err == nil {
			return p, nil
		}
	}
	return nil, errors.Join(err, s.Stop())
}

func (p *peer) close() error {
	p.conn.Close(context.Background())
	return p.server.Stop()
}

// load copies the exported tables into the peer's schema and times the
// load: the rows were written to CSV files beforehand (untimed), so the
// clock runs on PostgreSQL's work alone.
func (p *peer) load(ctx context.Context, tables []*peerTable, n int) (*PeerLoad, error) {
	res := &PeerLoad{}
	if err := p.conn.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&res.Version); err != nil {
		return nil, err
	}
	start := time.Now()
	tx, err := p.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	if err := execScript(ctx, p.conn, peerSchema); err != nil {
		return nil, fmt.Errorf("peer schema: %w", err)
	}
	for _, t := range tables {
		if err := t.copyInto(ctx, p.conn); err != nil {
			return nil, err
		}
		res.Rows += t.rows
		if t.name == "conversation_load" {
			res.Conversations = t.rows
		}
	}
	if err := execScript(ctx, p.conn, peerConversations); err != nil {
		return nil, fmt.Errorf("peer conversations: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	if err := execScript(ctx, p.conn, peerIndexes); err != nil {
		return nil, fmt.Errorf("peer indexes: %w", err)
	}
	res.Duration = time.Since(start)
	res.RowsPerSecond = float64(res.Rows) / res.Duration.Seconds()
	res.ConversationsPerSecond = float64(res.Conversations) / res.Duration.Seconds()
	var size int64
	if err := p.conn.QueryRow(ctx, `SELECT sum(pg_total_relation_size(oid))::bigint FROM pg_class
		WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`).Scan(&size); err != nil {
		return nil, err
	}
	res.BytesPerConversation = float64(size) / float64(max(n, 1))
	return res, nil
}

// execScript runs statements separated by semicolons in one round trip
// (the simple protocol allows several).
func execScript(ctx context.Context, conn *pgx.Conn, sql string) error {
	_, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	return err
}

// peerTable is one table's rows in a CSV file, ready for COPY.
type peerTable struct {
	name string
	cols []string
	path string
	rows int
}

func (t *peerTable) copyInto(ctx context.Context, conn *pgx.Conn) error {
	f, err := os.Open(t.path)
	if err != nil {
		return err
	}
	defer f.Close()
	sql := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT csv)", t.name, joinColumns(t.cols))
	if _, err := conn.PgConn().CopyFrom(ctx, f, sql); err != nil {
		return fmt.Errorf("copy %s: %w", t.name, err)
	}
	return nil
}

func joinColumns(cols []string) string {
	out := ""
	for i, c := range cols {
		if i > 0 {
			out += ", "
		}
		out += pgx.Identifier{c}.Sanitize()
	}
	return out
}

func removeTables(tables []*peerTable) {
	for _, t := range tables {
		os.Remove(t.path)
	}
}

// peerPath names a table's CSV file in dir.
func peerPath(dir, table string) string { return filepath.Join(dir, "peer-"+table+".csv") }

// csvID writes an id, or NULL (an unquoted empty field) for 0.
func csvID(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

func csvTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
