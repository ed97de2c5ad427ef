package api

import (
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

const keyOperator = "parley.operator"

// operatorOrUser lets the operator's admin token (Config.AdminToken)
// through; anything else goes through the normal bearer authentication.
func (s *Server) operatorOrUser(c *gin.Context) error {
	if s.isOperator(c) {
		c.Set(keyOperator, true)
		c.Next()
		return nil
	}
	return s.authenticate(c)
}

// backup handles GET /admin/backup: a consistent hot copy of the whole
// database (bbolt Tx.WriteTo), streamed while the server keeps serving;
// on PostgreSQL, 422 naming pg_dump.
// The file holds every company's records, so it is for the operator's
// admin token, or for an owner or administrator when the database holds
// their company alone (a single-tenant installation).
func (s *Server) backup(c *gin.Context) error {
	if !c.GetBool(keyOperator) {
		who := caller(c)
		if !who.User.IsAdmin() {
			return parley.Forbidden(parley.CodeAccessDenied, "only owners and administrators may download a backup")
		}
		var companies int
		err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			all, err := tx.Companies()
			companies = len(all)
			return err
		})
		if err != nil {
			return err
		}
		if companies != 1 {
			return parley.Forbidden(parley.CodeAccessDenied,
				"the database holds several companies; a backup needs the operator's admin token (PARLEY_ADMIN_TOKEN)")
		}
	}
	copier, ok := s.cfg.DB.(io.WriterTo)
	if !ok {
		msg := "this server runs on PostgreSQL: back it up with pg_dump, not through Parley"
		return &parley.Error{Kind: parley.KindUnprocessable, Message: msg,
			Errors: []parley.FieldError{{Code: parley.CodeValueNotSupported, Message: msg}}}
	}
	c.Header("Content-Type", "application/octet-stream")
	c.Header("Content-Disposition", fmt.Sprintf(`attachment; filename="parley-%s.db"`, s.now().Format("20060102T150405Z")))
	c.Status(http.StatusOK)
	n, err := copier.WriteTo(c.Writer)
	if err != nil {
		// Headers are gone: the client sees a short body; log it.
		s.cfg.Log.Error("backup failed", "request_id", requestIDOf(c), "bytes", n, "err", err)
		return nil
	}
	s.cfg.Log.Info("backup written", "request_id", requestIDOf(c), "bytes", n)
	return nil
}
