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
	synced := make(chan struct{})
	go func() { in.syncer.Run(syncCtx); close(synced) }()
	defer func() { stopSync(); <-synced }()

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
