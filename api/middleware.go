package api

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

const (
	keyRequestID = "parley.requestID"
	keyCaller    = "parley.caller"
)

// requestID gives every request an id: the logRef of error bodies, the
// X-Request-ID header and the log line's id.
func (s *Server) requestID(c *gin.Context) {
	id := s.cfg.NewRequestID()
	c.Set(keyRequestID, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(keyRequestID) }

// logRequests writes one structured line per request and observes its
// metrics. It never logs headers or bodies, so tokens and secrets stay out
// of logs.
func (s *Server) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	s.cfg.Metrics.observe(c.Request.Method, c.FullPath(), c.Writer.Status(), time.Since(start))
	attrs := []any{
		"method", c.Request.Method, "route", c.FullPath(), "status", c.Writer.Status(),
		"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "request_id", requestIDOf(c),
	}
	if caller, ok := callerOf(c); ok {
		attrs = append(attrs, "company_id", caller.Company.ID)
	}
	s.cfg.Log.Info("request", attrs...)
}

// recoverPanic turns a panic into a logged internal error, never a crash.
// The error carries the goroutine's stack: a panic is a bug, and the log
// line is all an operator will have to find it.
func (s *Server) recoverPanic(c *gin.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = parley.Internal(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	c.Next()
	return nil
}

func callerOf(c *gin.Context) (parley.Caller, bool) {
	v, ok := c.Get(keyCaller)
	if !ok {
		return parley.Caller{}, false
	}
	return v.(parley.Caller), true
}

// caller returns the authenticated caller; routes under authenticate have one.
func caller(c *gin.Context) parley.Caller {
	v, _ := callerOf(c)
	return v
}
