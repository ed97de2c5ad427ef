package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// conversationWrite runs a PATCH of a conversation path: it reads the
// patch (one operation object or an array), applies fn in one write, and
// answers 204.
func (s *Server) conversationWrite(c *gin.Context, fn func(tx parley.Tx, convID int64, ops []parley.PatchOp) error) error {
	id, err := pathID(c, "conversationId")
	var body []byte
	if err == nil {
		body, err = readJSON(c, MaxBodyBytes)
	}
	if err == nil {
		err = checkControlChars(body)
	}
	var ops []parley.PatchOp
	if err == nil {
		ops, err = parley.ParsePatch(body)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return fn(tx, id, ops) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// conversationJSONWrite runs a PUT or POST with a JSON body on a
// conversation path and answers 204.
func (s *Server) conversationJSONWrite(c *gin.Context, in any, fn func(tx parley.Tx, convID int64) error) error {
	id, err := pathID(c, "conversationId")
	if err == nil {
		err = decodeJSON(c, in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return fn(tx, id) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// conversationDelete runs a DELETE on a conversation path and answers 204.
func (s *Server) conversationDelete(c *gin.Context, fn func(tx parley.Tx, convID int64) error) error {
	id, err := pathID(c, "conversationId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return fn(tx, id) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// patchConversation handles PATCH /v2/conversations/{conversationId}.
func (s *Server) patchConversation(c *gin.Context) error {
	return s.conversationWrite(c, func(tx parley.Tx, id int64, ops []parley.PatchOp) error {
		return parley.PatchConversation(tx, caller(c), id, ops, s.now())
	})
}

// replaceTags handles PUT /v2/conversations/{conversationId}/tags.
func (s *Server) replaceTags(c *gin.Context) error {
	var in struct {
		Tags []string `json:"tags"`
	}
	return s.conversationJSONWrite(c, &in, func(tx parley.Tx, id int64) error {
		return parley.ReplaceTags(tx, caller(c), id, in.Tags, s.now())
	})
}

// replaceFields handles PUT /v2/conversations/{conversationId}/fields.
func (s *Server) replaceFields(c *gin.Context) error {
	var in struct {
		Fields []parley.FieldValueInput `json:"fields"`
	}
	return s.conversationJSONWrite(c, &in, func(tx parley.Tx, id int64) error {
		return parley.ReplaceFields(tx, caller(c), id, in.Fields, s.now())
	})
}

// deleteConversation handles DELETE /v2/conversations/{conversationId}.
func (s *Server) deleteConversation(c *gin.Context) error {
	return s.conversationDelete(c, func(tx parley.Tx, id int64) error {
		return parley.DeleteConversation(tx, caller(c), id, s.now())
	})
}

// snooze handles PUT /v2/conversations/{conversationId}/snooze.
func (s *Server) snooze(c *gin.Context) error {
	var in parley.SnoozeRequest
	return s.conversationJSONWrite(c, &in, func(tx parley.Tx, id int64) error {
		return parley.SnoozeConversation(tx, caller(c), id, &in, s.now())
	})
}

// unsnooze handles DELETE /v2/conversations/{conversationId}/snooze.
func (s *Server) unsnooze(c *gin.Context) error {
	return s.conversationDelete(c, func(tx parley.Tx, id int64) error {
		return parley.UnsnoozeConversation(tx, caller(c), id, s.now())
	})
}

// merge handles POST /v2/conversations/{conversationId}/merge with
// `{"targetId": N}`: 204 with the Location of the target.
func (s *Server) merge(c *gin.Context) error {
	var in parley.MergeRequest
	var target *parley.Conversation
	err := s.conversationJSONWrite(c, &in, func(tx parley.Tx, id int64) error {
		var err error
		target, err = parley.Merge(tx, caller(c), id, &in, s.now())
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Location", s.url(c, "v2", "conversations", target.ID))
	return nil
}
