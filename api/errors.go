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
	parley.KindUnavailable:     http.StatusServiceUnavailable,
}

// unavailableRetryAfter is the Retry-After (seconds) of a 503: the
// shortages behind one (a database's full lock table, its connections)
// pass as other transactions end, within moments.
const unavailableRetryAfter = "1"

// errorDocsPath is where the error reference lives, relative to the base URL.
const errorDocsPath = "/docs/errors"

// errorFormat is the error body a route group answers with: each group's
// adapter carries one, and writeError picks the body by it.
type errorFormat int

const (
	apiErrors   errorFormat = iota // the API's error body, every API route's
	oauthErrors                    // RFC 6749's {error, error_description}: the token endpoint's
	v1Errors                       // {status, message}: the V1 key exchange's
)

// handler is what a route runs: it writes its answer, or returns the error
// its adapter turns into one.
type handler func(*gin.Context) error

// handle is the one adapter from handler to gin: an error the handler
// returns is written in the route group's error format.
func (s *Server) handle(format errorFormat, h handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			s.writeError(c, format, err)
		}
	}
}

// writeError is the only place an error becomes an HTTP answer: it writes
// err in format and aborts the request. Internal causes are logged, never
// shown.
func (s *Server) writeError(c *gin.Context, format errorFormat, err error) {
	if parley.KindOf(err) == parley.KindUnavailable {
		// Not a bug (no internal error): the operator sees the cause, the
		// client is told when to try again.
		s.cfg.Log.Warn("service unavailable", "logRef", requestIDOf(c), "err", err)
		c.Header("Retry-After", unavailableRetryAfter)
	}
	switch format {
	case oauthErrors:
		s.writeOAuthError(c, err)
	case v1Errors:
		s.writeV1Error(c, err)
	default:
		s.writeAPIError(c, err)
	}
}

// apiError is the API's error body.
type apiError struct {
	Embedded struct {
		Errors []apiFieldError `json:"errors"`
	} `json:"_embedded"`
	Links   aboutLinks `json:"_links"`
	LogRef  string     `json:"logRef"`
	Message string     `json:"message"`
}

// apiFieldError is one item of an error body's _embedded.errors.
type apiFieldError struct {
	Links         aboutLinks `json:"_links"`
	Code          string     `json:"code"`
	Message       string     `json:"message"`
	Path          string     `json:"path"`
	RejectedValue any        `json:"rejectedValue,omitempty"`
	Source        string     `json:"source"`
}

// aboutLinks point an error at its entry in the error reference.
type aboutLinks struct {
	About halLink `json:"about"`
}

// writeAPIError writes err as the API's error body.
func (s *Server) writeAPIError(c *gin.Context, err error) {
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
	body := apiError{LogRef: requestIDOf(c), Message: e.Message, Links: aboutLinks{link(base + errorDocsPath)}}
	body.Embedded.Errors = make([]apiFieldError, 0, len(e.Errors))
	for _, f := range e.Errors {
		item := apiFieldError{Path: f.Path, Message: f.Message, Code: f.Code, Source: sourceOf(f),
			Links: aboutLinks{link(base + errorDocsPath + "#" + anchor(f.Code))}}
		if f.RejectedValue != nil {
			item.RejectedValue = shortened(f.RejectedValue)
		}
		body.Embedded.Errors = append(body.Embedded.Errors, item)
	}
	c.Header("Content-Type", "application/json;charset=UTF-8")
	c.AbortWithStatusJSON(status, body)
}

// originSources name where api reads each input the domain's problems
// concern.
var originSources = map[parley.Origin]string{
	parley.OriginBody:       "JSON",
	parley.OriginSubject:    "path",
	parley.OriginCredential: "header",
	parley.OriginParameter:  "query",
}

// sourceOf is where in the request a problem's value was read: as the
// layer that read it named it, else where api reads the input the
// domain's problem concerns.
func sourceOf(f parley.FieldError) string {
	if f.Source != "" {
		return f.Source
	}
	return originSources[f.Origin]
}

// anchor turns an error code into its anchor in the error reference.
func anchor(code string) string {
	return strings.ToLower(strings.Join(strings.FieldsFunc(code, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}), "-"))
}

// methodNotAllowed answers 405 with the methods the path allows.
func (s *Server) methodNotAllowed(c *gin.Context) error {
	var allowed []string
	for _, r := range s.router.Routes() {
		if matchPath(r.Path, c.Request.URL.Path) {
			allowed = append(allowed, r.Method)
		}
	}
	c.Header("Allow", strings.Join(allowed, ", "))
	return &parley.Error{Kind: kindMethod, Message: "Invalid HTTP method", Errors: []parley.FieldError{{
		Code: parley.CodeMethod, Message: "method " + c.Request.Method + " is not supported by this endpoint",
		RejectedValue: c.Request.Method, Source: "method"}}}
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

// internalTimeout is the 504 of a request past its deadline (Help Scout's docs).
func internalTimeout() *parley.Error {
	return &parley.Error{Kind: kindTimeout, Message: "Internal Timeout", Errors: []parley.FieldError{{
		Code: parley.CodeInternalTimeout, Message: "an internal call timed out; retry after a short delay"}}}
}

// oauthError is RFC 6749's error body (section 5.2).
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// writeOAuthError writes err as an OAuth 2.0 error body: the token
// endpoint's form.
func (s *Server) writeOAuthError(c *gin.Context, err error) {
	c.Header("Cache-Control", "no-store")
	if e, ok := parley.AsOAuthError(err); ok {
		if e.Kind == parley.KindUnauthorized {
			c.Header("WWW-Authenticate", `Basic realm="parley"`)
		}
		c.AbortWithStatusJSON(statusOf[e.Kind], oauthError{Error: e.Errors[0].Code, Description: e.Message})
		return
	}
	var e *parley.Error
	if errors.As(err, &e) && e.Kind == parley.KindUnavailable {
		c.AbortWithStatusJSON(http.StatusServiceUnavailable, oauthError{Error: parley.OAuthTemporarilyUnavailable,
			Description: e.Errors[0].Message})
		return
	}
	s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
	c.AbortWithStatusJSON(http.StatusInternalServerError, oauthError{Error: "server_error",
		Description: "internal error; quote " + requestIDOf(c)})
}

// v1Error is the V1 exchange's error body.
type v1Error struct {
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// writeV1Error writes err as the V1 exchange's error body {status, message}.
func (s *Server) writeV1Error(c *gin.Context, err error) {
	var e *parley.Error
	if !errors.As(err, &e) || e.Kind == parley.KindInternal {
		s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, v1Error{Status: http.StatusInternalServerError,
			Message: "internal error; quote " + requestIDOf(c)})
		return
	}
	msg := e.Message
	if len(e.Errors) > 0 && e.Errors[0].Code != parley.CodeInvalidV1Exchange {
		msg = e.Errors[0].Path + ": " + e.Errors[0].Message
	}
	c.AbortWithStatusJSON(statusOf[e.Kind], v1Error{Status: statusOf[e.Kind], Message: strings.TrimPrefix(msg, ": ")})
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
