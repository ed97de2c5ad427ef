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
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
	"github.com/parley/parley/internal/gcpolicy"
	"github.com/parley/parley/webhooks"
	"github.com/parley/parley/workflow"
)

// shutdownGrace is how long in-flight requests may take after a signal.
const shutdownGrace = 30 * time.Second

func serveCommand(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (PARLEY_ADDR)")
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA); with --database it holds only the mail folders (mail-outbox, mail-spool)")
	database := addDatabaseFlag(fs)
	readDatabase := addReadDatabaseFlag(fs)
	baseURL := fs.String("base-url", "", "absolute URL of the API for links (PARLEY_BASE_URL); default: from each request")
	certFile := fs.String("tls-cert", "", "TLS certificate file, PEM (PARLEY_TLS_CERT)")
	keyFile := fs.String("tls-key", "", "TLS private key file, PEM (PARLEY_TLS_KEY)")
	selfSigned := fs.Bool("tls-self-signed", false, "serve HTTPS with a generated self-signed certificate (PARLEY_TLS_SELF_SIGNED)")
	insecure := fs.Bool("insecure-http", false, "allow plain HTTP on a non-loopback address (PARLEY_INSECURE_HTTP)")
	transition := fs.String("transition-path", "/transition", "path of the V1 key exchange (PARLEY_TRANSITION_PATH)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error (PARLEY_LOG_LEVEL)")
	logFormat := fs.String("log-format", "json", "log format: json or text (PARLEY_LOG_FORMAT)")
	adminToken := fs.String("admin-token", "", "operator bearer token for GET /admin/backup (PARLEY_ADMIN_TOKEN)")
	limits := map[parley.Plan]*int{}
	for _, plan := range []parley.Plan{parley.PlanStandard, parley.PlanPlus, parley.PlanPro} {
		name := "PARLEY_RATE_LIMIT_" + strings.ToUpper(string(plan))
		limits[plan] = fs.Int("rate-limit-"+string(plan), 0,
			fmt.Sprintf("API calls per minute of a %s company; 0 is the default %d (%s)", plan, parley.DefaultRateLimit(plan), name))
	}
	tokenLimit := fs.Int("token-rate-limit", 0, "per minute: failed token-endpoint authentications and V1 exchanges per address, tokens and V1 exchanges per client, sign-ins per e-mail; 0 is the default 60 (PARLEY_TOKEN_RATE_LIMIT)")
	timeout := fs.Duration("request-timeout", 0, "deadline of each request; 0 is the default 60s (PARLEY_REQUEST_TIMEOUT)")
	headerTimeout := fs.Duration("header-timeout", 0,
		fmt.Sprintf("time to read a request's headers; 0 is the default %s (PARLEY_HEADER_TIMEOUT)", api.DefaultHeaderTimeout))
	bodyTimeout := fs.Duration("body-timeout", 0,
		fmt.Sprintf("time to read a request's body; 0 is the default %s (PARLEY_BODY_TIMEOUT)", api.DefaultBodyTimeout))
	idleTimeout := fs.Duration("idle-timeout", 0,
		fmt.Sprintf("how long an idle keep-alive connection stays open; 0 is the default %s (PARLEY_IDLE_TIMEOUT)", api.DefaultIdleTimeout))
	maxConnsPerAddr := fs.Int("max-conns-per-address", 0,
		fmt.Sprintf("open connections one client address may hold; 0 is the default %d (PARLEY_MAX_CONNS_PER_ADDRESS)", api.DefaultMaxConnsPerAddress))
	maxConns := fs.Int("max-conns", 0,
		fmt.Sprintf("open connections in all; 0 is the default %d (PARLEY_MAX_CONNS)", api.DefaultMaxConns))
	trustedProxies := fs.String("trusted-proxies", "",
		"comma-separated IPs or CIDR blocks of reverse proxies whose X-Forwarded-For is believed; default none (PARLEY_TRUSTED_PROXIES)")
	allowPrivateHooks := fs.Bool("allow-private-webhooks", false,
		"let webhooks reach private, loopback and link-local addresses, for development (PARLEY_ALLOW_PRIVATE_WEBHOOKS)")
	demo := fs.Bool("demo", false, "load the demo data into an empty data directory (PARLEY_DEMO)")
	metricsAddr := fs.String("metrics-addr", "", "serve GET /metrics on this address, without a token (PARLEY_METRICS_ADDR); default: on the API address, behind the admin token")
	mail := addMailFlags(fs)
	env := everyFlag(fs)
	env["database"] = databaseEnv
	env["read-database"] = readDatabaseEnv
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if err := mail.check(); err != nil {
		return err
	}
	at, err := location{dir: *data, url: *database}.withReplica(*readDatabase)
	if err != nil {
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
	log.Info("garbage collector", "policy", gcpolicy.Apply(os.Getenv, os.DirFS("/")).Reason)
	proxies, err := api.ParseTrustedProxies(*trustedProxies)
	if err != nil {
		return fmt.Errorf("%w: --trusted-proxies: %v", errUsage, err)
	}
	rateLimits := map[parley.Plan]int{}
	for plan, n := range limits {
		rateLimits[plan] = *n
	}
	in, err := open(ctx, at, *demo, parley.SystemClock, log, rebuildProgress(stderr, log))
	if err != nil {
		return err
	}
	defer in.close()
	if err := sayIfEmpty(in.db.Store(), at, log); err != nil {
		return err
	}

	syncCtx, stopSync := context.WithCancel(context.Background())
	synced, woken := make(chan struct{}), make(chan struct{})
	go func() { in.runSyncer(syncCtx); close(synced) }()
	go func() {
		(&workflow.Scheduler{Source: in.db, Clock: parley.SystemClock, Engine: in.workflows, Log: log}).Run(syncCtx)
		close(woken)
	}()
	defer func() { stopSync(); <-synced; <-woken }()

	handler := api.New(api.Config{DB: in.db, Engine: in.search, Syncer: in.syncer, Clock: parley.SystemClock, Log: log, BaseURL: *baseURL,
		TransitionPath: *transition, InsecureWebhooks: tlsConfig == nil,
		RateLimits: rateLimits, RateCounter: in.rateCounter(), TokenRateLimit: *tokenLimit, RequestTimeout: *timeout, AdminToken: *adminToken,
		HeaderTimeout: *headerTimeout, BodyTimeout: *bodyTimeout, IdleTimeout: *idleTimeout,
		MaxConnsPerAddress: *maxConnsPerAddr, MaxConns: *maxConns, TrustedProxies: proxies,
		AllowPrivateWebhooks: *allowPrivateHooks})
	listenCtx, stopListening := context.WithCancel(context.Background())
	listened := in.listen(listenCtx, log, handler.ChatChanged)
	defer func() { stopListening(); <-listened }()
	// Metrics and mail listen first: the "parley serving" line says
	// everything listens, and where.
	if *metricsAddr != "" {
		stopMetrics, err := serveMetrics(*metricsAddr, handler.Metrics().Handler(), log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	stopMail, smtpAddr, err := startMail(mail, in.db, *data, log)
	if err != nil {
		return err
	}
	defer stopMail()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := handler.HTTPServer(tlsConfig)
	served := make(chan error, 1)
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
		go func() { served <- srv.ServeTLS(handler.Listener(ln), "", "") }()
	} else {
		go func() { served <- srv.Serve(handler.Listener(ln)) }()
	}
	serving := []any{"addr", ln.Addr().String(), "data", at.String(), "scheme", scheme}
	if smtpAddr != "" {
		serving = append(serving, "smtp", smtpAddr)
	}
	log.Info("parley serving", serving...)

	stopHooks, err := startWebhooks(handler, in.db, *baseURL, scheme+"://"+ln.Addr().String(), *allowPrivateHooks, log)
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

// startWebhooks runs the webhook dispatcher beside the syncer and the
// scheduler; payload links start with baseURL, else with the listen URL;
// allowPrivate lets deliveries reach private addresses.
// The returned function stops it and waits.
func startWebhooks(handler *api.Server, db parley.WebhookSource, baseURL, listenURL string, allowPrivate bool, log *slog.Logger) (func(), error) {
	if baseURL == "" {
		baseURL = listenURL
	}
	renderer, err := handler.EventRenderer(baseURL)
	if err != nil {
		return nil, err
	}
	outcomes := map[parley.DeliveryStatus]string{parley.DeliveryDelivered: api.WebhookDelivered,
		parley.DeliveryRetrying: api.WebhookFailed, parley.DeliveryDead: api.WebhookDropped}
	d := webhooks.New(webhooks.Config{DB: db, Renderer: renderer, Clock: parley.SystemClock, Log: log, AllowPrivate: allowPrivate,
		Observe:   func(s parley.DeliveryStatus) { handler.Metrics().WebhookDelivery(outcomes[s]) },
		MatchView: workflow.MatchesView})
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
