package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/parley/parley/internal/pgtest/pgserver"
)

// With -dir, the bench's PostgreSQL server keeps its files in the data
// directory (keptServerDir), and its two databases have fixed names: the
// peer's and Parley-on-PostgreSQL's. A later -reuse run on the same
// directory finds them loaded and measures them again without loading:
// at 1M, loading the peer takes about half an hour and Parley on
// PostgreSQL longer. Which run loaded a database is recorded in the
// maintenance database (loadedTable), written once its load completed, so
// a load cut short is never taken for a loaded one.
const (
	keptServerDir   = "postgres"
	peerDatabase    = "bench_peer"
	backendDatabase = "bench_backend"
	loadedTable     = `CREATE TABLE IF NOT EXISTS bench_loaded (db text PRIMARY KEY, n int NOT NULL, run text NOT NULL, load jsonb NOT NULL)`
)

// startServer starts the bench's PostgreSQL server: in dir/postgres, kept
// for a later run, when dir is the bench's -dir; else a throwaway one.
func startServer(dir string) (*pgserver.Server, error) {
	if dir == "" {
		return pgserver.Start(peerSettings...)
	}
	return pgserver.StartIn(filepath.Join(dir, keptServerDir), peerSettings...)
}

// keptLoad is a database of a kept server and what its load measured.
type keptLoad struct {
	server *pgserver.Server
	name   string
}

// loadedBy returns what the load of this database by the run of run, of n
// conversations, measured into load; found is false when no such load
// completed (another run, another size, or none).
func (k keptLoad) loadedBy(ctx context.Context, run string, n int, load any) (found bool, err error) {
	err = k.admin(ctx, func(conn *pgx.Conn) error {
		var data []byte
		err := conn.QueryRow(ctx, `SELECT load FROM bench_loaded WHERE db = $1 AND n = $2 AND run = $3`, k.name, n, run).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return json.Unmarshal(data, load)
	})
	return found, err
}

// reset empties the database and forgets its load, before a new one.
func (k keptLoad) reset(ctx context.Context, url string) error {
	if err := k.admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `DELETE FROM bench_loaded WHERE db = $1`, k.name)
		return err
	}); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP SCHEMA public CASCADE; CREATE SCHEMA public`)
	return err
}

// loaded records that the run of run completed the load of n
// conversations into the database, and what it measured.
func (k keptLoad) loaded(ctx context.Context, run string, n int, load any) error {
	data, err := json.Marshal(load)
	if err != nil {
		return err
	}
	return k.admin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `INSERT INTO bench_loaded (db, n, run, load) VALUES ($1, $2, $3, $4)
			ON CONFLICT (db) DO UPDATE SET n = excluded.n, run = excluded.run, load = excluded.load`, k.name, n, run, data)
		return err
	})
}

func (k keptLoad) admin(ctx context.Context, fn func(*pgx.Conn) error) error {
	return k.server.Admin(ctx, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, loadedTable); err != nil {
			return fmt.Errorf("bench_loaded: %w", err)
		}
		return fn(conn)
	})
}
