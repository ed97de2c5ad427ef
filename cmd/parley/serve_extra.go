package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	parley "github.com/parley/parley"
)

// sayIfEmpty logs, when the database holds no company, that nothing can
// sign in yet and how to create the first company: a plain serve never
// invents credentials (the demo data loads only with --demo).
func sayIfEmpty(store parley.Store, at location, log *slog.Logger) error {
	var n int
	err := store.View(context.Background(), func(tx parley.Tx) error {
		companies, err := tx.Companies()
		n = len(companies)
		return err
	})
	if err != nil || n > 0 {
		return err
	}
	where := "--data " + at.dir + " --company NAME --owner EMAIL` (with the server stopped)"
	if at.postgres() {
		where = "--database URL --company NAME --owner EMAIL`"
	}
	log.Warn("the database holds no company, so no one can sign in yet; create one with `parley init "+where+", "+
		"through POST /admin/companies with the admin token, or restart with --demo for the demo data",
		"data", at.String())
	return nil
}

// serveMetrics serves the Prometheus metrics, without a token, on their
// own address (--metrics-addr: a private interface the scraper reaches).
// The returned function stops it.
func serveMetrics(addr string, metrics http.Handler, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	log.Info("metrics serving", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
