package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/storage"
)

// shutdownGrace is how long in-flight requests may take after a signal.
const shutdownGrace = 30 * time.Second

func serveCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("PARLEY_ADDR", "127.0.0.1:8080"), "listen address (PARLEY_ADDR)")
	data := fs.String("data", envOr("PARLEY_DATA", "./parley-data"), "data directory (PARLEY_DATA)")
	baseURL := fs.String("base-url", envOr("PARLEY_BASE_URL", ""), "absolute URL of the API for links (PARLEY_BASE_URL); default: from each request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	in, err := open(ctx, *data, true, parley.SystemClock, log, nil)
	if err != nil {
		return err
	}
	defer in.close()

	syncCtx, stopSync := context.WithCancel(context.Background())
	synced, woken := make(chan struct{}), make(chan struct{})
	go func() { in.syncer.Run(syncCtx); close(synced) }()
	go func() { runScheduler(syncCtx, in.db, parley.SystemClock, log); close(woken) }()
	defer func() { stopSync(); <-synced; <-woken }()

	handler := api.New(api.Config{DB: in.db, Engine: in.engine, Syncer: in.syncer, Clock: parley.SystemClock, Log: log, BaseURL: *baseURL})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("parley serving", "addr", ln.Addr().String(), "data", *data)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// schedulerTick is how often snoozes and scheduled threads are checked.
const schedulerTick = time.Second

// runScheduler wakes snoozed conversations and publishes scheduled threads
// when due, until ctx ends.
func runScheduler(ctx context.Context, db *storage.DB, clock parley.Clock, log *slog.Logger) {
	tick := time.NewTicker(schedulerTick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		_, err := db.Update(func(tx *storage.Tx) error {
			_, err := parley.WakeDue(tx, clock.Now())
			return err
		})
		if err != nil {
			log.Error("scheduler: waking due items failed; will retry", "err", err)
		}
	}
}
