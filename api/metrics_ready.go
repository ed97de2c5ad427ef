package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/parley/parley/indexer"
)

// DefaultReadyMaxOutbox is how many outbox entries may wait for the index
// while the server still reports ready: one drain batch, so steady write
// traffic does not make readiness flap, while a backlog (a replay after a
// crash, a stuck index) does.
const DefaultReadyMaxOutbox = indexer.DrainBatch

// readyz handles GET /readyz: 200 when storage answers and the index has
// caught up with the outbox, else 503. No authentication; it shows counts
// only.
func (s *Server) readyz(c *gin.Context) error {
	body := struct {
		IndexApplied uint64 `json:"indexApplied"`
		OutboxDepth  int    `json:"outboxDepth"`
		OutboxLast   uint64 `json:"outboxLast"`
		Status       string `json:"status"`
		Storage      string `json:"storage"`
	}{Status: "ready", Storage: "ok"}
	depth, err := s.cfg.DB.OutboxDepth()
	last, err2 := s.cfg.DB.LastOutboxSeq()
	if err != nil || err2 != nil {
		body.Storage = "error"
	}
	applied := last
	if s.cfg.Syncer != nil {
		applied = s.cfg.Syncer.Applied()
	}
	body.OutboxDepth, body.OutboxLast, body.IndexApplied = depth, last, applied
	status := http.StatusOK
	if body.Storage != "ok" || depth > s.cfg.ReadyMaxOutbox {
		body.Status, status = "not ready", http.StatusServiceUnavailable
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(status, body)
	return nil
}
