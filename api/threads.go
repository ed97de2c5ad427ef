package api

import (
	"encoding/base64"
	"mime"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// ThreadPageSize is the page size of a conversation's thread list.
const ThreadPageSize = 25

// listThreads handles GET /v2/conversations/{conversationId}/threads:
// newest first, 25 a page.
func (s *Server) listThreads(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "conversationId")
	if err != nil {
		return err
	}
	p := readParams(c, "page")
	pg := page{size: ThreadPageSize, number: p.page()}
	if err := p.err(); err != nil {
		return err
	}
	var items []threadView
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		conv, err := parley.LoadConversation(tx, who, id, s.now())
		if err != nil {
			return err
		}
		threads, err := tx.Threads(conv.CompanyID, conv.ID)
		if err != nil {
			return err
		}
		pg.total = len(threads)
		all, err := newRenderer(s, c, tx).threads(conv, threads)
		items = pageOf(all, pg)
		return err
	})
	if err != nil {
		return err
	}
	renderPage(s, c, "threads", items, pg)
	return nil
}

// addThread handles POST /v2/conversations/{conversationId}/{reply,notes,
// customer,phones,chats}: one handler per thread type.
func (s *Server) addThread(kind parley.ThreadType) handler {
	return func(c *gin.Context) error {
		id, err := pathID(c, "conversationId")
		if err != nil {
			return err
		}
		var in parley.ThreadRequest
		if err := decodeJSONMax(c, &in, MaxAttachmentBodyBytes); err != nil {
			return err
		}
		if err := in.Validate(kind); err != nil {
			return err
		}
		var t *parley.Thread
		err = s.write(c, func(tx parley.Tx) error {
			var err error
			t, err = parley.AddThread(tx, caller(c), id, kind, &in, s.cfg.Scanner, s.now())
			return err
		})
		if err != nil {
			return err
		}
		c.Header("Resource-ID", strconv.FormatInt(t.ID, 10))
		c.Header("Location", s.url(c, "v2", "conversations", id, "threads"))
		c.Status(http.StatusCreated)
		return nil
	}
}

// patchThread handles PATCH /v2/conversations/{conversationId}/threads/{threadId}.
func (s *Server) patchThread(c *gin.Context) error {
	return s.conversationWrite(c, func(tx parley.Tx, convID int64, ops []parley.PatchOp) error {
		threadID, err := pathID(c, "threadId")
		if err != nil {
			return err
		}
		return parley.PatchThread(tx, caller(c), convID, threadID, ops, s.now())
	})
}

// scheduleThread handles PUT .../threads/{threadId}/schedule.
func (s *Server) scheduleThread(c *gin.Context) error {
	var in parley.ScheduleRequest
	return s.conversationJSONWrite(c, &in, func(tx parley.Tx, convID int64) error {
		threadID, err := pathID(c, "threadId")
		if err != nil {
			return err
		}
		return parley.ScheduleThread(tx, caller(c), convID, threadID, &in, s.now())
	})
}

// publishSchedule handles PATCH .../threads/{threadId}/schedule: send a
// scheduled reply now.
func (s *Server) publishSchedule(c *gin.Context) error {
	return s.conversationWrite(c, func(tx parley.Tx, convID int64, ops []parley.PatchOp) error {
		threadID, err := pathID(c, "threadId")
		if err != nil {
			return err
		}
		return parley.PublishSchedule(tx, caller(c), convID, threadID, ops, s.now())
	})
}

// unscheduleThread handles DELETE .../threads/{threadId}/schedule.
func (s *Server) unscheduleThread(c *gin.Context) error {
	return s.conversationDelete(c, func(tx parley.Tx, convID int64) error {
		threadID, err := pathID(c, "threadId")
		if err != nil {
			return err
		}
		return parley.UnscheduleThread(tx, caller(c), convID, threadID, s.now())
	})
}

// addAttachment handles POST .../threads/{threadId}/attachments: one
// attachment `{fileName, mimeType, data}` per request.
func (s *Server) addAttachment(c *gin.Context) error {
	convID, err := pathID(c, "conversationId")
	var threadID int64
	if err == nil {
		threadID, err = pathID(c, "threadId")
	}
	var in parley.AttachmentInput
	if err == nil {
		err = decodeJSONMax(c, &in, MaxAttachmentBodyBytes)
	}
	if err != nil {
		return err
	}
	var ids []int64
	err = s.write(c, func(tx parley.Tx) error {
		var err error
		ids, err = parley.AddAttachments(tx, caller(c), convID, threadID, []parley.AttachmentInput{in}, s.cfg.Scanner, s.now())
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Resource-ID", strconv.FormatInt(ids[0], 10))
	c.Header("Location", s.url(c, "v2", "conversations", convID, "attachments", ids[0], "data"))
	c.Status(http.StatusCreated)
	return nil
}

// readAttachment loads an attachment of the path for the two downloads.
func (s *Server) readAttachment(c *gin.Context) (*parley.Attachment, []byte, error) {
	convID, err := pathID(c, "conversationId")
	if err != nil {
		return nil, nil, err
	}
	attachmentID, err := pathID(c, "attachmentId")
	if err != nil {
		return nil, nil, err
	}
	var a *parley.Attachment
	var data []byte
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		a, data, err = parley.ReadAttachment(tx, caller(c), convID, attachmentID, s.now())
		return err
	})
	return a, data, err
}

// attachmentData handles GET .../attachments/{attachmentId}/data: the file
// as Base64 in `data`.
func (s *Server) attachmentData(c *gin.Context) error {
	_, data, err := s.readAttachment(c)
	if err != nil {
		return err
	}
	render(c, http.StatusOK, struct {
		Data string `json:"data"`
	}{base64.StdEncoding.EncodeToString(data)})
	return nil
}

// attachmentDownload handles GET .../attachments/{attachmentId}/download:
// the raw file with its MIME type.
func (s *Server) attachmentDownload(c *gin.Context) error {
	a, data, err := s.readAttachment(c)
	if err != nil {
		return err
	}
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.FileName}))
	c.Data(http.StatusOK, a.MimeType, data)
	return nil
}

// deleteAttachment handles DELETE /v2/conversations/{conversationId}/attachments/{attachmentId}.
func (s *Server) deleteAttachment(c *gin.Context) error {
	return s.conversationDelete(c, func(tx parley.Tx, convID int64) error {
		attachmentID, err := pathID(c, "attachmentId")
		if err != nil {
			return err
		}
		return parley.DeleteAttachment(tx, caller(c), convID, attachmentID, s.now())
	})
}

// rateThread handles PUT .../threads/{threadId}/rating: the customer's
// satisfaction rating of a reply, relayed by an integration.
func (s *Server) rateThread(c *gin.Context) error {
	var in parley.RatingInput
	return s.conversationJSONWrite(c, &in, func(tx parley.Tx, convID int64) error {
		threadID, err := pathID(c, "threadId")
		if err != nil {
			return err
		}
		return parley.RateThread(tx, caller(c), convID, threadID, &in, s.now())
	})
}
