package api

import (
	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// The three ways a handler writes: wait until the write is searchable
// (write), answer at commit (writeImport), or commit even what a refused
// request wrote (writeCommittingRefusal).

// writeCommittingRefusal runs fn like write, but when fn refuses the
// request (any error but an internal one) what fn wrote is committed all
// the same: revoking the chain of a replayed refresh token must stick even
// though the request is refused. The refusal is returned.
func (s *Server) writeCommittingRefusal(c *gin.Context, fn func(parley.Tx) error) error {
	var refusal error
	err := s.write(c, func(tx parley.Tx) error {
		refusal = nil // fn may run again in a retried batch
		err := fn(tx)
		if err != nil && !parley.IsFailure(err) {
			refusal, err = err, nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return refusal
}

// writeImport runs fn in a write transaction and answers at its commit,
// without waiting for the index: imports (imported: true) are history a
// loader sends by the thousand, whose rate would otherwise be the index's,
// one request at a time. The commit holds the outbox entry, so the record
// is searchable moments later, in the large batches a backlog makes.
func (s *Server) writeImport(c *gin.Context, fn func(parley.Tx) error) error {
	_, err := s.store.Update(c.Request.Context(), fn)
	return err
}

// write runs fn in a write transaction and waits (bounded) until what it
// queued for indexing is searchable, so a client that writes then lists
// sees its write.
func (s *Server) write(c *gin.Context, fn func(parley.Tx) error) error {
	seq, err := s.store.Update(c.Request.Context(), fn)
	if err != nil {
		return err
	}
	if s.cfg.Syncer != nil && seq != 0 {
		if !s.cfg.Syncer.Wait(c.Request.Context(), seq, s.cfg.WriteWait) {
			s.cfg.Log.Warn("write committed but not yet searchable", "request_id", requestIDOf(c), "seq", seq)
		}
	}
	return nil
}
