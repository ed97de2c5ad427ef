package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/parley/parley/index"
	"github.com/parley/parley/indexer"
)

// Metrics are Parley's Prometheus metrics, in a registry of their own (not
// the global default), so every Server, and every test, has its own. One
// Metrics serves one Server; other parts of the process (the webhook
// deliverer) report through its methods.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	rateLimited   *prometheus.CounterVec
	webhooks      *prometheus.CounterVec
	batchDocs     *prometheus.HistogramVec
	batchDuration *prometheus.HistogramVec
	txDuration    *prometheus.HistogramVec
	connRefused   prometheus.Counter
}

// NewMetrics creates the metrics and their registry, with the Go runtime
// and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_http_requests_total", Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "parley_http_request_duration_seconds", Help: "Time to answer HTTP requests, by method and route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"method", "route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_rate_limit_rejections_total", Help: "Requests refused with 429 by a rate limit, by route pattern.",
		}, []string{"route"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parley_webhook_deliveries_total", Help: "Webhook delivery attempts, by outcome.",
		}, []string{"outcome"}),
		batchDocs: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "parley_index_batch_documents", Help: "Documents (upserts and deletes) per search-engine batch, by document kind.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 8), // 1 .. 16384
		}, []string{"kind"}),
		batchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "parley_index_batch_duration_seconds", Help: "Time to apply one search-engine batch (indexing latency), by document kind.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"kind"}),
		txDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "parley_bbolt_transaction_duration_seconds", Help: "bbolt transaction times as callers see them (writes include the batch wait and fsync), by type.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"type"}),
		connRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parley_connections_refused_total", Help: "Connections closed on accept: their client address had too many open.",
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.rateLimited, m.webhooks, m.batchDocs, m.batchDuration, m.txDuration, m.connRefused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// connectionRefused counts a connection over its address's cap.
func (m *Metrics) connectionRefused() { m.connRefused.Inc() }

// Webhook delivery outcomes for WebhookDelivery.
const (
	WebhookDelivered = "delivered" // the receiver answered 2xx
	WebhookFailed    = "failed"    // an error or non-2xx answer; will be retried
	WebhookDropped   = "dropped"   // given up after the last retry
)

// WebhookDelivery counts one webhook delivery attempt by outcome
// (WebhookDelivered, WebhookFailed, WebhookDropped, or another short
// word). It is safe for concurrent use.
func (m *Metrics) WebhookDelivery(outcome string) { m.webhooks.WithLabelValues(outcome).Inc() }

// Registry is the registry the metrics live in, for collectors of other
// parts of the process.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// watch registers the gauges read from storage and the syncer, and hooks
// the transaction and batch timings. Called once by New.
func (m *Metrics) watch(db Database, syncer *indexer.Syncer) {
	if db != nil {
		db.OnTx(func(write bool, took time.Duration) {
			kind := "read"
			if write {
				kind = "write"
			}
			m.txDuration.WithLabelValues(kind).Observe(took.Seconds())
		})
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "parley_index_outbox_depth", Help: "Outbox entries waiting to be applied to the search index.",
		}, func() float64 {
			n, err := db.OutboxDepth()
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
	if syncer != nil {
		syncer.OnBatch(func(kind index.Kind, docs int, took time.Duration) {
			m.batchDocs.WithLabelValues(string(kind)).Observe(float64(docs))
			m.batchDuration.WithLabelValues(string(kind)).Observe(took.Seconds())
		})
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "parley_index_applied_sequence", Help: "Highest outbox sequence the search index holds.",
		}, func() float64 { return float64(syncer.Applied()) }))
	}
}

// observe records one answered request.
func (m *Metrics) observe(method, route string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched" // bounded cardinality: never the raw path
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(took.Seconds())
	if status == http.StatusTooManyRequests {
		m.rateLimited.WithLabelValues(route).Inc()
	}
}

// metrics handles GET /metrics, behind the operator's admin token (serve
// --metrics-addr also serves them, without a token, on an address of
// their own).
func (s *Server) metrics(c *gin.Context) error {
	s.cfg.Metrics.Handler().ServeHTTP(c.Writer, c.Request)
	return nil
}

// Metrics returns the server's metrics, for the parts of the process that
// report into them (webhook deliveries).
func (s *Server) Metrics() *Metrics { return s.cfg.Metrics }
