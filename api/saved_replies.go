package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// listSavedReplies handles GET /v2/mailboxes/{mailboxId}/saved-replies: a
// bare array, as the real API answers it, of {id, name, preview} and
// chatPreview when the reply has chat text; chat-only replies only with
// includeChatReplies=true.
func (s *Server) listSavedReplies(c *gin.Context) error {
	mailboxID, err := pathID(c, "mailboxId")
	p := readParams(c, "includeChatReplies")
	includeChat := boolParam(p, "includeChatReplies")
	if err == nil {
		err = p.err()
	}
	var replies []parley.SavedReply
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			replies, err = parley.SavedRepliesOf(tx, caller(c), mailboxID, includeChat)
			return err
		})
	}
	if err != nil {
		return err
	}
	type savedReplyItem struct {
		ChatPreview *string `json:"chatPreview,omitempty"`
		ID          int64   `json:"id"`
		Name        string  `json:"name"`
		Preview     string  `json:"preview"`
	}
	items := make([]savedReplyItem, 0, len(replies))
	for _, r := range replies {
		item := savedReplyItem{ID: r.ID, Name: r.Name, Preview: parley.SavedReplyPreview(r.Text)}
		if r.ChatText != "" {
			preview := parley.SavedReplyPreview(r.ChatText)
			item.ChatPreview = &preview
		}
		items = append(items, item)
	}
	render(c, http.StatusOK, items)
	return nil
}

// getSavedReply handles GET /v2/mailboxes/{mailboxId}/saved-replies/{id}.
func (s *Server) getSavedReply(c *gin.Context) error {
	mailboxID, id, err := savedReplyPath(c)
	if err == nil {
		err = readParams(c).err()
	}
	var r *parley.SavedReply
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
			r, err = parley.LoadSavedReply(tx, caller(c), mailboxID, id)
			return err
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, struct {
		ChatText string `json:"chatText"`
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		Text     string `json:"text"`
	}{r.ChatText, r.ID, r.Name, r.Text})
	return nil
}

// createSavedReply handles POST /v2/mailboxes/{mailboxId}/saved-replies.
func (s *Server) createSavedReply(c *gin.Context) error {
	mailboxID, err := pathID(c, "mailboxId")
	var in parley.SavedReplyInput
	if err == nil {
		err = decodeJSON(c, &in)
	}
	var r *parley.SavedReply
	if err == nil {
		err = s.write(c, func(tx parley.Tx) (err error) {
			r, err = parley.CreateSavedReply(tx, caller(c), mailboxID, &in, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	s.created(c, r.ID, s.url(c, "v2", "mailboxes", mailboxID, "saved-replies", r.ID))
	return nil
}

// updateSavedReply handles PUT /v2/mailboxes/{mailboxId}/saved-replies/{id}.
func (s *Server) updateSavedReply(c *gin.Context) error {
	mailboxID, id, err := savedReplyPath(c)
	var in parley.SavedReplyInput
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.UpdateSavedReply(tx, caller(c), mailboxID, id, &in, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deleteSavedReply handles DELETE /v2/mailboxes/{mailboxId}/saved-replies/{id}.
func (s *Server) deleteSavedReply(c *gin.Context) error {
	mailboxID, id, err := savedReplyPath(c)
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.DeleteSavedReply(tx, caller(c), mailboxID, id)
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

func savedReplyPath(c *gin.Context) (mailboxID, id int64, err error) {
	if mailboxID, err = pathID(c, "mailboxId"); err == nil {
		id, err = pathID(c, "savedReplyId")
	}
	return mailboxID, id, err
}
