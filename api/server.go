// Package api is Parley's HTTP layer: gin routes, bearer authentication,
// parameter parsing, HAL rendering and the one error writer. Handlers
// parse, call the domain and storage, and render; *gin.Context never
// leaves this package.
package api

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/indexer"
)

// Database is what the API needs of a storage backend: its transactions
// through the domain's seam, and the figures an operator asks for.
// *storage.DB and *pgstore.DB are two. A backend that can write a
// consistent copy of itself as one file (io.WriterTo: bbolt) serves GET
// /admin/backup; PostgreSQL's copy is pg_dump's, not Parley's.
type Database interface {
	// Store hands out the backend's transactions as parley.Tx.
	Store() parley.Store
	// OutboxDepth counts the writes the search index has not taken yet;
	// LastOutboxSeq is the sequence of the newest.
	OutboxDepth() (int, error)
	LastOutboxSeq() (uint64, error)
	// OnTx registers the function told the kind and duration of each
	// transaction (metrics).
	OnTx(f func(write bool, took time.Duration))
}

// Config wires a server.
type Config struct {
	DB     Database
	Engine index.Engine
	Syncer *indexer.Syncer
	Clock  parley.Clock
	Log    *slog.Logger
	// BaseURL is the absolute URL clients reach the API at (no trailing
	// slash). Empty derives it from each request's Host.
	BaseURL string
	// WebURL is where the web application opens a conversation
	// (Web-Location, _links.web). Empty uses BaseURL.
	WebURL string
	// NewRequestID names each request (the logRef of error bodies);
	// default random UUIDs. Tests fix it.
	NewRequestID func() string
	// Scanner inspects uploaded attachments; default parley.EICARScanner.
	Scanner parley.Scanner
	// NewID makes the UUIDs of chats and chat events; default random.
	NewID func() string
	// ChatPollWait bounds a visitor's long-poll for chat events.
	ChatPollWait time.Duration
	// ChatStartsPerMinute and ChatMessagesPerMinute bound the public
	// widget: chats started per client address, and visitor messages per chat.
	ChatStartsPerMinute, ChatMessagesPerMinute int
	// ChatPageViewsPerMinute and WidgetPageViewsPerMinute bound the page
	// views visitors record in chat timelines: per chat, and per widget
	// for all its chats together.
	ChatPageViewsPerMinute, WidgetPageViewsPerMinute int
	// WriteWait bounds how long a write waits for its record to become
	// searchable before answering.
	WriteWait time.Duration
	// RateLimits overrides the calls a company may make per minute, by
	// plan; a plan absent or 0 uses parley.DefaultRateLimit (200/400/800).
	RateLimits map[parley.Plan]int
	// RateCounter counts every rate-limited budget; nil counts in memory
	// (NewMemoryCounter). Nodes sharing a database share one (pgstore's).
	RateCounter parley.RateCounter
	// TokenRateLimit is the calls per minute one client may make to the
	// token, V1 exchange and sign-in endpoints; 0 means DefaultTokenRateLimit.
	TokenRateLimit int
	// TransitionPath is where the V1 key exchange is served; default
	// "/transition".
	TransitionPath string
	// RequestTimeout bounds each request's internal calls: past it the
	// answer is 504 Internal Timeout. 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Metrics receives the server's Prometheus metrics (served at
	// /metrics); nil creates a fresh registry. One Metrics per Server.
	Metrics *Metrics
	// ReadyMaxOutbox is how many outbox entries may wait for the index
	// while /readyz still answers 200; 0 means DefaultReadyMaxOutbox.
	ReadyMaxOutbox int
	// AdminToken, when set, is the operator's bearer token for the admin
	// API under /admin/ and for /metrics (which span every company); unset,
	// those answer 401 (GET /admin/backup still takes an owner's token on
	// a single-company database).
	AdminToken string
	// HeaderTimeout bounds reading a request's headers, BodyTimeout its
	// body, and IdleTimeout a keep-alive connection's wait for its next
	// request; 0 means the Default of each. They apply to HTTPServer.
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// MaxConnsPerAddress and MaxConns cap open connections per client
	// address and in all (see Listener); 0 means the Default of each.
	MaxConnsPerAddress, MaxConns int
	// TrustedProxies are the peers whose X-Forwarded-For and X-Real-IP
	// headers name the client address (per-address limits use it); from
	// any other peer the headers are ignored. Default none: the TCP peer
	// is the client.
	TrustedProxies []netip.Prefix
	// InsecureWebhooks lets webhooks use http:// URLs to a loopback
	// address (a server run in insecure mode: local receivers, tests);
	// otherwise webhook URLs must be https.
	InsecureWebhooks bool
	// AllowPrivateWebhooks lets webhook URLs name private, loopback,
	// link-local, unspecified and multicast addresses (parley.PrivateAddr),
	// refused otherwise; the dispatcher must be told the same
	// (webhooks.Config.AllowPrivate). For development and tests.
	AllowPrivateWebhooks bool
}

// Server holds the dependencies of the handlers.
type Server struct {
	cfg    Config
	store  parley.Store // cfg.DB's transactions, as the domain's seam
	router *gin.Engine
	chats  chatWaiters
	limits *limiter // every per-minute budget, by key (see ratelimit.go)
}

// PageSize of the conversation list (as Help Scout's docs give it); other lists use
// DefaultPageSize.
const (
	ConversationPageSize = 25
	DefaultPageSize      = 50
)

// New builds the HTTP handler.
func New(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = parley.SystemClock
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Scanner == nil {
		cfg.Scanner = parley.EICARScanner{}
	}
	if cfg.NewRequestID == nil {
		cfg.NewRequestID = uuid.NewString
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	if cfg.ChatPollWait == 0 {
		cfg.ChatPollWait = 55 * time.Second
	}
	if cfg.ChatStartsPerMinute == 0 {
		cfg.ChatStartsPerMinute = 5
	}
	if cfg.ChatMessagesPerMinute == 0 {
		cfg.ChatMessagesPerMinute = 30
	}
	if cfg.ChatPageViewsPerMinute == 0 {
		cfg.ChatPageViewsPerMinute = 30
	}
	if cfg.WidgetPageViewsPerMinute == 0 {
		cfg.WidgetPageViewsPerMinute = 600
	}
	if cfg.WriteWait == 0 {
		cfg.WriteWait = 5 * time.Second
	}
	if cfg.TokenRateLimit == 0 {
		cfg.TokenRateLimit = DefaultTokenRateLimit
	}
	if cfg.TransitionPath == "" {
		cfg.TransitionPath = "/transition"
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.HeaderTimeout == 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConnsPerAddress == 0 {
		cfg.MaxConnsPerAddress = DefaultMaxConnsPerAddress
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	if cfg.ReadyMaxOutbox == 0 {
		cfg.ReadyMaxOutbox = DefaultReadyMaxOutbox
	}
	cfg.Metrics.watch(cfg.DB, cfg.Syncer)
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.RemoveExtraSlash = true
	proxies := make([]string, len(cfg.TrustedProxies))
	for i, p := range cfg.TrustedProxies {
		proxies[i] = p.String()
	}
	if err := r.SetTrustedProxies(proxies); err != nil {
		panic(err) // unreachable: every netip.Prefix prints as a valid CIDR
	}
	if cfg.RateCounter == nil {
		cfg.RateCounter = NewMemoryCounter()
	}
	s := &Server{cfg: cfg, router: r, limits: &limiter{counter: cfg.RateCounter, log: cfg.Log}}
	if cfg.DB != nil { // tests of the edge alone run without a database
		s.store = cfg.DB.Store()
	}
	s.routes()
	return s
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// Routes lists the registered routes (method and path), for tests that
// sweep every route.
func (s *Server) Routes() gin.RoutesInfo { return s.router.Routes() }

// healthz handles GET /healthz: alive once the server is serving.
func (s *Server) healthz(c *gin.Context) error {
	c.JSON(http.StatusOK, struct {
		Status string `json:"status"`
	}{"ok"})
	return nil
}

// webhookPolicy is what webhook URLs may reach on this server.
func (s *Server) webhookPolicy() parley.WebhookPolicy {
	return parley.WebhookPolicy{InsecureHTTP: s.cfg.InsecureWebhooks, AllowPrivate: s.cfg.AllowPrivateWebhooks}
}

func (s *Server) now() time.Time { return s.cfg.Clock.Now().UTC() }
