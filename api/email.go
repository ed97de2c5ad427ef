package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// threadSource handles GET
// /v2/conversations/{conversationId}/threads/{threadId}/original-source:
// the thread's original e-mail, as `{"original": ...}`, or raw as
// message/rfc822 when the client accepts that (as Help Scout answers).
func (s *Server) threadSource(c *gin.Context) error {
	convID, err := pathID(c, "conversationId")
	if err != nil {
		return err
	}
	threadID, err := pathID(c, "threadId")
	if err != nil {
		return err
	}
	var raw []byte
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		raw, err = parley.ReadThreadSource(tx, caller(c), convID, threadID, s.now())
		return err
	})
	if err != nil {
		return err
	}
	if strings.Contains(c.GetHeader("Accept"), "message/rfc822") {
		c.Data(http.StatusOK, "message/rfc822", raw)
		return nil
	}
	render(c, http.StatusOK, struct {
		Original string `json:"original"`
	}{string(raw)})
	return nil
}
