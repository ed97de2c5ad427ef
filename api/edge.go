package api

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// Bounds of the HTTP edge.
const (
	// DefaultRequestTimeout bounds a request's internal calls. It exceeds
	// the chat long-poll (55 s), the longest wait a handler makes on purpose.
	DefaultRequestTimeout = 60 * time.Second
	// MaxURIBytes bounds the request URI.
	MaxURIBytes = 8 << 10
	// hstsHeader tells browsers to use HTTPS only, for a year.
	hstsHeader = "max-age=31536000"
)

// edge applies the rules every request passes: HSTS on TLS, a well-formed
// URI (400 `Invalid URI`), a deadline for reading the body (408, see
// limitBodyRead), a deadline (504 `Internal Timeout` past it), and a
// `Client Abort` log line when the client goes away before the answer.
func (s *Server) edge(c *gin.Context) error {
	if c.Request.TLS != nil {
		c.Header("Strict-Transport-Security", hstsHeader)
	}
	if err := checkURI(c.Request.RequestURI, c.Request.URL); err != nil {
		return err
	}
	s.limitBodyRead(c)
	parent := c.Request.Context()
	ctx, cancel := context.WithTimeout(parent, s.cfg.RequestTimeout)
	defer cancel()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		s.cfg.Log.Warn("Client Abort", "code", parley.CodeClientAbort, "request_id", requestIDOf(c),
			"method", c.Request.Method, "route", c.FullPath())
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && !c.Writer.Written():
		return internalTimeout()
	}
	return nil
}

// checkURI refuses request URIs that are too long, hold invalid escapes or
// invalid UTF-8, or control characters.
func checkURI(raw string, u *url.URL) error {
	bad := func(msg string) error {
		return parley.Invalid("path", "", parley.CodeInvalidURI, msg, nil)
	}
	if len(raw) > MaxURIBytes {
		return bad(fmt.Sprintf("the URI is longer than %d bytes", MaxURIBytes))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return bad("the query string is malformed: " + err.Error())
	}
	if !utf8.ValidString(u.Path) || strings.ContainsFunc(u.Path, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return bad("the path holds invalid characters")
	}
	return nil
}
