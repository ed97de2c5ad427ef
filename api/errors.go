package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// statusOf is the one mapping from error Kind to HTTP status.
var statusOf = map[parley.Kind]int{
	parley.KindInternal:        http.StatusInternalServerError,
	parley.KindInvalid:         http.StatusBadRequest,
	parley.KindUnauthorized:    http.StatusUnauthorized,
	parley.KindForbidden:       http.StatusForbidden,
	parley.KindNotFound:        http.StatusNotFound,
	kindMethod:                 http.StatusMethodNotAllowed,
	parley.KindConflict:        http.StatusConflict,
	parley.KindLocked:          http.StatusPreconditionFailed,
	kindTooLarge:               http.StatusRequestEntityTooLarge,
	kindMediaType:              http.StatusUnsupportedMediaType,
	parley.KindUnprocessable:   http.StatusUnprocessableEntity,
	parley.KindCustomerLocked:  http.StatusLocked,
	parley.KindTooManyRequests: http.StatusTooManyRequests,
	kindTimeout:                http.StatusGatewayTimeout,
	parley.KindMoved:           http.StatusMovedPermanently,
	parley.KindGone:            http.StatusGone,
	kindRequestTimeout:         http.StatusRequestTimeout,
}

// errorDocsPath is where the error reference lives, relative to the base URL.
const errorDocsPath = "/docs/errors"

// fail writes err as SPEC's error body and aborts the request. It is the
// only place an error becomes an HTTP answer. Internal causes are logged,
// never shown.
func (s *Server) fail(c *gin.Context, err error) {
	var e *parley.Error
	if !errors.As(err, &e) {
		e = parley.Internal(err)
	}
	if e.Kind == parley.KindInternal && errors.Is(err, context.Canceled) && c.Request.Context().Err() != nil {
		// The client went away: nobody reads an answer; logRequests logs it.
		c.AbortWithStatus(statusClientClosed)
		return
	}
	if e.Kind == parley.KindInternal && errors.Is(err, context.DeadlineExceeded) {
		s.cfg.Log.Warn("internal timeout", "logRef", requestIDOf(c), "err", err)
		e = internalTimeout()
	}
	status := statusOf[e.Kind]
	if e.Kind == parley.KindInternal {
		s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
	}
	base := s.baseURL(c)
	if e.Kind == parley.KindMoved {
		c.Header("Location", s.url(c, "v2", "conversations", e.MergedInto))
	}
	items := make([]gin.H, 0, len(e.Errors))
	for _, f := range e.Errors {
		item := gin.H{
			"path":    f.Path,
			"message": f.Message,
			"code":    f.Code,
			"source":  f.Source,
			"_links":  gin.H{"about": gin.H{"href": base + errorDocsPath + "#" + anchor(f.Code)}},
		}
		if f.RejectedValue != nil {
			item["rejectedValue"] = shortened(f.RejectedValue)
		}
		items = append(items, item)
	}
	c.Header("Content-Type", "application/json;charset=UTF-8")
	c.AbortWithStatusJSON(status, gin.H{
		"logRef":    requestIDOf(c),
		"message":   e.Message,
		"_embedded": gin.H{"errors": items},
		"_links":    gin.H{"about": gin.H{"href": base + errorDocsPath}},
	})
}

// anchor turns an error code into its anchor in the error reference.
func anchor(code string) string {
	return strings.ToLower(strings.Join(strings.FieldsFunc(code, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}), "-"))
}

// methodNotAllowed answers 405 with the methods the path allows.
func (s *Server) methodNotAllowed(c *gin.Context) {
	var allowed []string
	for _, r := range s.router.Routes() {
		if matchPath(r.Path, c.Request.URL.Path) {
			allowed = append(allowed, r.Method)
		}
	}
	c.Header("Allow", strings.Join(allowed, ", "))
	s.fail(c, &parley.Error{Kind: kindMethod, Message: "Invalid HTTP method", Errors: []parley.FieldError{{
		Code: parley.CodeMethod, Message: "method " + c.Request.Method + " is not supported by this endpoint",
		RejectedValue: c.Request.Method, Source: "method"}}})
}

// matchPath reports whether a gin route pattern matches a concrete path.
func matchPath(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if !strings.HasPrefix(ps[i], ":") && ps[i] != xs[i] {
			return false
		}
	}
	return true
}

// statusClientClosed is logged for a request whose client went away.
const statusClientClosed = 499

// internalTimeout is the 504 of a request past its deadline (SPEC).
func internalTimeout() *parley.Error {
	return &parley.Error{Kind: kindTimeout, Message: "Internal Timeout", Errors: []parley.FieldError{{
		Code: parley.CodeInternalTimeout, Message: "an internal call timed out; retry after a short delay"}}}
}

// failOAuth writes err as an OAuth 2.0 error body {error,
// error_description} (RFC 6749 section 5.2): the token endpoint's form.
func (s *Server) failOAuth(c *gin.Context, err error) {
	var e *parley.Error
	c.Header("Cache-Control", "no-store")
	if errors.As(err, &e) && len(e.Errors) > 0 && e.Errors[0].Source == "oauth" {
		if e.Kind == parley.KindUnauthorized {
			c.Header("WWW-Authenticate", `Basic realm="parley"`)
		}
		c.AbortWithStatusJSON(statusOf[e.Kind], gin.H{"error": e.Errors[0].Code, "error_description": e.Message})
		return
	}
	s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
	c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "server_error",
		"error_description": "internal error; quote " + requestIDOf(c)})
}

// failV1 writes err as the V1 exchange's error body {status, message}.
func (s *Server) failV1(c *gin.Context, err error) {
	var e *parley.Error
	if !errors.As(err, &e) || e.Kind == parley.KindInternal {
		s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"status": http.StatusInternalServerError,
			"message": "internal error; quote " + requestIDOf(c)})
		return
	}
	msg := e.Message
	if len(e.Errors) > 0 && e.Errors[0].Code != parley.CodeInvalidV1Exchange {
		msg = e.Errors[0].Path + ": " + e.Errors[0].Message
	}
	c.AbortWithStatusJSON(statusOf[e.Kind], gin.H{"status": statusOf[e.Kind], "message": strings.TrimPrefix(msg, ": ")})
}

// MaxRejectedValue bounds a rejected text echoed in an error body: a
// 40,000-character value refused for its length is not sent back whole.
const MaxRejectedValue = 256

// shortened cuts a long rejected string, marking the cut.
func shortened(v any) any {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case *string:
		if x == nil {
			return v
		}
		s = *x
	default:
		return v
	}
	if r := []rune(s); len(r) > MaxRejectedValue {
		return string(r[:MaxRejectedValue]) + "…"
	}
	return s
}
