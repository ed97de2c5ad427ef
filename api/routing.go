package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// getRouting handles GET /v2/mailboxes/{mailboxId}/routing: the routing
// configuration and the rotation, every active user who may see the
// mailbox in id order with their open conversations and eligibility.
func (s *Server) getRouting(c *gin.Context) error {
	m, err := s.loadMailbox(c)
	if err == nil {
		err = readParams(c).err()
	}
	var rotation []parley.RotationEntry
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			users, err := tx.Users(m.CompanyID)
			if err == nil {
				rotation = m.Routing.Rotation(parley.RoutingMembers(tx, users, m))
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	r := m.Routing
	if r == nil {
		r = &parley.Routing{State: parley.RoutingDisabled}
	}
	body := routingView{State: r.State, UserIDs: nonNil(r.UserIDs), Rotation: rotationItems(rotation),
		AssignmentMethod: r.AssignmentMethod, AssignmentLimit: r.AssignmentLimit}
	body.Links.Self, body.Links.Mailbox = link(s.url(c, "v2", "mailboxes", m.ID, "routing")), link(s.url(c, "v2", "mailboxes", m.ID))
	render(c, http.StatusOK, body)
	return nil
}

// routingView is a mailbox's routing with the rotation it would follow.
type routingView struct {
	Links struct {
		Mailbox halLink `json:"mailbox"`
		Self    halLink `json:"self"`
	} `json:"_links"`
	AssignmentLimit  int            `json:"assignmentLimit,omitempty"`
	AssignmentMethod string         `json:"assignmentMethod,omitempty"`
	Rotation         []rotationView `json:"rotation"`
	State            string         `json:"state"`
	UserIDs          []int64        `json:"userIds"`
}

// rotationView is a user's place in the rotation; reason says why an
// ineligible user is skipped.
type rotationView struct {
	ConversationsCount int    `json:"conversationsCount"`
	Eligible           bool   `json:"eligible"`
	Reason             string `json:"reason,omitempty"`
	UserID             int64  `json:"userId"`
}

func rotationItems(rotation []parley.RotationEntry) []rotationView {
	out := make([]rotationView, 0, len(rotation))
	for _, e := range rotation {
		out = append(out, rotationView{UserID: e.UserID, ConversationsCount: e.Open, Eligible: e.Eligible, Reason: e.Reason})
	}
	return out
}

// updateRouting handles PUT /v2/mailboxes/{mailboxId}/routing: owners and
// administrators replace the configuration.
func (s *Server) updateRouting(c *gin.Context) error {
	var in parley.RoutingInput
	m, err := s.loadMailbox(c)
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.ConfigureRouting(tx, caller(c), m.ID, &in)
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
