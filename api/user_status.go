package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// userStatusResource renders a user's status (the family's shape: e-mail
// status with who changed it and when, and the chat status).
func (s *Server) userStatusResource(c *gin.Context, u *parley.User) *userStatusView {
	st := u.CurrentStatus()
	v := &userStatusView{UserID: u.ID}
	v.Email.Status, v.Email.UpdatedAt, v.Email.PerformedBy, v.Email.Source = st.Email, parley.FormatTime(st.UpdatedAt), st.PerformedBy, st.Source
	v.Chat.Status = st.Chat
	v.Links.Self, v.Links.User = link(s.url(c, "v2", "users", u.ID, "status")), link(s.url(c, "v2", "users", u.ID))
	return v
}

// userStatusView is a user's status. Parley keeps no per-mailbox chat
// status: mailboxStatuses is always {}.
type userStatusView struct {
	Links struct {
		Self halLink `json:"self"`
		User halLink `json:"user"`
	} `json:"_links"`
	Chat struct {
		MailboxStatuses struct{} `json:"mailboxStatuses"`
		Status          string   `json:"status"`
	} `json:"chat"`
	Email struct {
		PerformedBy int64  `json:"performedBy"`
		Source      string `json:"source"`
		Status      string `json:"status"`
		UpdatedAt   string `json:"updatedAt"`
	} `json:"email"`
	UserID int64 `json:"userId"`
}

// getUserStatus handles GET /v2/users/{userId}/status.
func (s *Server) getUserStatus(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "userId")
	if err != nil {
		return err
	}
	var u *parley.User
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) (err error) {
		u, err = tx.User(who.Company.ID, id)
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.userStatusResource(c, u))
	return nil
}

// listUserStatuses handles GET /v2/users/status, 50 a page.
func (s *Server) listUserStatuses(c *gin.Context) error {
	return listRecords(s, c, readParams(c, "page"), "userStatuses", (parley.Tx).Users, nil,
		func(u *parley.User) (*userStatusView, error) { return s.userStatusResource(c, u), nil })
}

// setUserStatus handles PUT /v2/users/{userId}/status: `status` (e-mail:
// active, away) and/or `chat` (available, unavailable); 204. A change
// records a user.status.changed event for webhooks.
func (s *Server) setUserStatus(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "userId")
	if err != nil {
		return err
	}
	var change parley.StatusChange
	if err := decodeJSON(c, &change); err != nil {
		return err
	}
	now := s.now()
	err = s.write(c, func(tx parley.Tx) error {
		u, err := tx.User(who.Company.ID, id)
		if err != nil {
			return err
		}
		ev, err := parley.SetUserStatus(who, u, change, now)
		if err != nil || ev == nil {
			return err
		}
		u.UpdatedAt = now
		if err := tx.PutUser(u); err != nil {
			return err
		}
		return tx.PutEvent(*ev)
	})
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
