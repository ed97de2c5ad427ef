package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// isOperator reports whether the request carries the operator's admin
// token (Config.AdminToken); never when no admin token is configured.
// The comparison is constant-time over SHA-256 digests, so neither the
// token's content nor its length leaks through timing.
func (s *Server) isOperator(c *gin.Context) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	scheme, token, _ := strings.Cut(c.GetHeader("Authorization"), " ")
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.cfg.AdminToken))
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// operator lets only the operator's admin token through: the admin API
// and /metrics, which span every company. Without a configured admin token
// every request is refused, so an installation without one exposes none of it.
func (s *Server) operator(c *gin.Context) {
	if !s.isOperator(c) {
		c.Header("WWW-Authenticate", `Bearer realm="parley-admin"`)
		msg := "the operator's admin token is required"
		if s.cfg.AdminToken == "" {
			msg += "; start the server with --admin-token (PARLEY_ADMIN_TOKEN)"
		}
		s.fail(c, parley.Unauthorized(msg))
		return
	}
	c.Set(keyOperator, true)
	c.Next()
}
