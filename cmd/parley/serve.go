package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/storage"
	"github.com/parley/parley/webhooks"
)

// shutdownGrace is how long in-flight requests may take after a signal.
const shutdownGrace = 30 * time.Second

func serveCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("PARLEY_ADDR", "127.0.0.1:8080"), "listen address (PARLEY_ADDR)")
	data := fs.String("data", envOr("PARLEY_DATA", "./parley-data"), "data directory (PARLEY_DATA)")
	baseURL := fs.String("base-url", envOr("PARLEY_BASE_URL", ""), "absolute URL of the API for links (PARLEY_BASE_URL); default: from each request")
	certFile := fs.String("tls-cert", envOr("PARLEY_TLS_CERT", ""), "TLS certificate file, PEM (PARLEY_TLS_CERT)")
	keyFile := fs.String("tls-key", envOr("PARLEY_TLS_KEY", ""), "TLS private key file, PEM (PARLEY_TLS_KEY)")
	selfSigned := fs.Bool("tls-self-signed", envBool("PARLEY_TLS_SELF_SIGNED"), "serve HTTPS with a generated self-signed certificate (PARLEY_TLS_SELF_SIGNED)")
	insecure := fs.Bool("insecure-http", envBool("PARLEY_INSECURE_HTTP"), "allow plain HTTP on a non-loopback address (PARLEY_INSECURE_HTTP)")
	transition := fs.String("transition-path", envOr("PARLEY_TRANSITION_PATH", "/transition"), "path of the V1 key exchange (PARLEY_TRANSITION_PATH)")
	logLevel := fs.String("log-level", envOr("PARLEY_LOG_LEVEL", "info"), "log level: debug, info, warn, error (PARLEY_LOG_LEVEL)")
	logFormat := fs.String("log-format", envOr("PARLEY_LOG_FORMAT", "json"), "log format: json or text (PARLEY_LOG_FORMAT)")
	adminToken := fs.String("admin-token", envOr("PARLEY_ADMIN_TOKEN", ""), "operator bearer token for GET /admin/backup (PARLEY_ADMIN_TOKEN)")
	limits := map[parley.Plan]*int{}
	for _, plan := range []parley.Plan{parley.PlanStandard, parley.PlanPlus, parley.PlanPro} {
		name := "PARLEY_RATE_LIMIT_" + strings.ToUpper(string(plan))
		limits[plan] = fs.Int("rate-limit-"+string(plan), envInt(name, 0),
			fmt.Sprintf("API calls per minute of a %s company; 0 is the default %d (%s)", plan, parley.DefaultRateLimit(plan), name))
	}
	tokenLimit := fs.Int("token-rate-limit", envInt("PARLEY_TOKEN_RATE_LIMIT", 0), "token-endpoint calls per minute per client; 0 is the default 60 (PARLEY_TOKEN_RATE_LIMIT)")
	timeout := fs.Duration("request-timeout", envDuration("PARLEY_REQUEST_TIMEOUT", 0), "deadline of each request; 0 is the default 60s (PARLEY_REQUEST_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tlsConfig, err := serverTLS(*addr, *certFile, *keyFile, *selfSigned, *insecure, parley.SystemClock.Now())
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel, *logFormat)
	if err != nil {
		return err
	}
	rateLimits := map[parley.Plan]int{}
	for plan, n := range limits {
		rateLimits[plan] = *n
	}
	in, err := open(ctx, *data, true, parley.SystemClock, log, rebuildProgress(stderr, log))
	if err != nil {
		return err
	}
	defer in.close()

	syncCtx, stopSync := context.WithCancel(context.Background())
	synced, woken := make(chan struct{}), make(chan struct{})
	go func() { in.syncer.Run(syncCtx); close(synced) }()
	go func() { runScheduler(syncCtx, in.db, parley.SystemClock, log); close(woken) }()
	defer func() { stopSync(); <-synced; <-woken }()

	handler := api.New(api.Config{DB: in.db, Engine: in.search, Syncer: in.syncer, Clock: parley.SystemClock, Log: log, BaseURL: *baseURL,
		TransitionPath: *transition, InsecureWebhooks: tlsConfig == nil,
		RateLimits: rateLimits, TokenRateLimit: *tokenLimit, RequestTimeout: *timeout, AdminToken: *adminToken})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsConfig}
	served := make(chan error, 1)
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
		go func() { served <- srv.ServeTLS(ln, "", "") }()
	} else {
		go func() { served <- srv.Serve(ln) }()
	}
	log.Info("parley serving", "addr", ln.Addr().String(), "data", *data, "scheme", scheme)

	stopHooks, err := startWebhooks(handler, in.db, *baseURL, scheme+"://"+ln.Addr().String(), log)
	if err != nil {
		return err
	}
	defer stopHooks()

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

// serverTLS builds the TLS configuration of serve: from certificate and key
// files, or a generated self-signed certificate; nil serves plain HTTP,
// which only a loopback address may do unless insecure is set.
func serverTLS(addr, certFile, keyFile string, selfSigned, insecure bool, now time.Time) (*tls.Config, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("%w: --tls-cert and --tls-key go together", errUsage)
	}
	if selfSigned && certFile != "" {
		return nil, fmt.Errorf("%w: give --tls-cert/--tls-key or --tls-self-signed, not both", errUsage)
	}
	var cert tls.Certificate
	var err error
	switch {
	case certFile != "":
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	case selfSigned:
		host, _, _ := net.SplitHostPort(addr)
		cert, err = selfSignedCert(host, now)
	default:
		if !insecure && !isLoopback(addr) {
			return nil, fmt.Errorf("%w: plain HTTP is only served on a loopback address; give --tls-cert and --tls-key, "+
				"--tls-self-signed, or --insecure-http (behind a TLS-terminating proxy)", errUsage)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, nil
}

// isLoopback reports whether a listen address only accepts local
// connections ("" or an unspecified host listens on every interface).
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// selfSignedCert generates an ECDSA P-256 certificate valid for a year,
// for localhost, the loopback addresses and host.
func selfSignedCert(host string, now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{Organization: []string{"Parley (self-signed)"}, CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	} else if host != "" && ip == nil && host != "localhost" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
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

// startWebhooks runs the webhook dispatcher beside the syncer and the
// scheduler; payload links start with baseURL, else with the listen URL.
// The returned function stops it and waits.
func startWebhooks(handler *api.Server, db *storage.DB, baseURL, listenURL string, log *slog.Logger) (func(), error) {
	if baseURL == "" {
		baseURL = listenURL
	}
	renderer, err := handler.EventRenderer(baseURL)
	if err != nil {
		return nil, err
	}
	outcomes := map[parley.DeliveryStatus]string{parley.DeliveryDelivered: api.WebhookDelivered,
		parley.DeliveryRetrying: api.WebhookFailed, parley.DeliveryDead: api.WebhookDropped}
	d := webhooks.New(webhooks.Config{DB: db, Renderer: renderer, Clock: parley.SystemClock, Log: log,
		Observe: func(s parley.DeliveryStatus) { handler.Metrics().WebhookDelivery(outcomes[s]) }})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	return func() { stop(); <-done }, nil
}

// newLogger builds the structured logger of serve: JSON or text, at a level.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("%w: --log-level must be debug, info, warn or error", errUsage)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("%w: --log-format must be json or text", errUsage)
}

// envBool, envInt and envDuration read PARLEY_* defaults of flags; a
// malformed value is ignored (the flag's own default applies).
func envBool(name string) bool {
	v, _ := strconv.ParseBool(os.Getenv(name))
	return v
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
