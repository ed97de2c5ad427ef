package api

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/net/netutil"

	parley "github.com/parley/parley"
	"github.com/parley/parley/internal/conncap"
)

// Connection bounds: the defaults of Config's HeaderTimeout, BodyTimeout,
// IdleTimeout, MaxConnsPerAddress and MaxConns.
const (
	// DefaultHeaderTimeout bounds reading a request's headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds reading a request's body, from the end of
	// its headers: a 14 MB attachment upload needs about 4 Mbit/s.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a keep-alive connection may wait for
	// its next request; it matches the chat long-poll's Keep-Alive header.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConnsPerAddress bounds the open connections of one client
	// address (trusted proxies excepted).
	DefaultMaxConnsPerAddress = 64
	// DefaultMaxConns bounds all open connections; past it new ones wait
	// in the kernel's backlog.
	DefaultMaxConns = 4096
)

// HTTPServer builds the http.Server that serves s, with the connection
// timeouts of its Config: headers (HeaderTimeout), idle keep-alive
// connections (IdleTimeout). The body is bounded per request by the edge
// (BodyTimeout), not by http.Server.ReadTimeout, which would also cut the
// chat long-poll. Serve it on Listener(ln) to apply the connection caps.
func (s *Server) HTTPServer(tlsConfig *tls.Config) *http.Server {
	return &http.Server{Handler: s, TLSConfig: tlsConfig,
		ReadHeaderTimeout: s.cfg.HeaderTimeout, IdleTimeout: s.cfg.IdleTimeout}
}

// Listener wraps ln with the connection caps of the Config: at most
// MaxConns open connections (past it Accept waits), and at most
// MaxConnsPerAddress from one client address. A connection over the
// per-address cap is closed at once, before anything is read (a TLS
// handshake included); trusted proxies are not capped per address.
func (s *Server) Listener(ln net.Listener) net.Listener {
	if s.cfg.MaxConns > 0 {
		ln = netutil.LimitListener(ln, s.cfg.MaxConns)
	}
	if s.cfg.MaxConnsPerAddress <= 0 {
		return ln
	}
	exempt := func(addr netip.Addr) bool { return trusted(s.cfg.TrustedProxies, addr) }
	return conncap.PerAddress(ln, s.cfg.MaxConnsPerAddress, exempt, func(net.Conn) { s.cfg.Metrics.connectionRefused() })
}

// limitBodyRead bounds reading the request body to BodyTimeout by setting
// the connection's read deadline. net/http clears it once the body has
// been read to its end (it then watches the connection for the client
// going away), so the wait of a handler that has its body, and the
// connection's next request, are not cut. A body still unread at the
// deadline fails to read (408 Request timeout, see readJSON) and the
// connection is closed. Requests without a body leave the deadline alone:
// the server already watches their connection, and the chat long-poll has
// none.
func (s *Server) limitBodyRead(c *gin.Context) {
	r := c.Request
	if s.cfg.BodyTimeout <= 0 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return
	}
	// Not supported by test recorders calling ServeHTTP: nothing to bound.
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
}

// isBodyTimeout reports whether a body read failed at its deadline.
func isBodyTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// bodyTimeout is the 408 of a body not sent within BodyTimeout.
func bodyTimeout() *parley.Error {
	return &parley.Error{Kind: kindRequestTimeout, Message: "Request timeout", Errors: []parley.FieldError{{
		Code: parley.CodeRequestTimeout, Message: "the request body was not received in time", Source: "JSON"}}}
}
