package api

import (
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
	parley.KindMethod:          http.StatusMethodNotAllowed,
	parley.KindConflict:        http.StatusConflict,
	parley.KindLocked:          http.StatusPreconditionFailed,
	parley.KindTooLarge:        http.StatusRequestEntityTooLarge,
	parley.KindMediaType:       http.StatusUnsupportedMediaType,
	parley.KindUnprocessable:   http.StatusUnprocessableEntity,
	parley.KindCustomerLocked:  http.StatusLocked,
	parley.KindTooManyRequests: http.StatusTooManyRequests,
	parley.KindTimeout:         http.StatusGatewayTimeout,
	parley.KindMoved:           http.StatusMovedPermanently,
	parley.KindGone:            http.StatusGone,
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
	status := statusOf[e.Kind]
	if e.Kind == parley.KindInternal {
		s.cfg.Log.Error("internal error", "logRef", requestIDOf(c), "err", err)
	}
	base := s.baseURL(c)
	if e.Kind == parley.KindMoved {
		c.Header("Location", base+e.Location)
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
			item["rejectedValue"] = f.RejectedValue
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
	s.fail(c, &parley.Error{Kind: parley.KindMethod, Message: "Invalid HTTP method", Errors: []parley.FieldError{{
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
