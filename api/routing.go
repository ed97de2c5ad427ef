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
		err = s.store.View(func(tx parley.Tx) error {
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
	body := gin.H{"state": r.State, "userIds": nonNil(r.UserIDs), "rotation": rotationItems(rotation),
		"_links": gin.H{"self": link(s.url(c, "v2", "mailboxes", m.ID, "routing")), "mailbox": link(s.url(c, "v2", "mailboxes", m.ID))}}
	if r.AssignmentMethod != "" {
		body["assignmentMethod"] = r.AssignmentMethod
	}
	if r.AssignmentLimit != 0 {
		body["assignmentLimit"] = r.AssignmentLimit
	}
	render(c, http.StatusOK, body)
	return nil
}

func rotationItems(rotation []parley.RotationEntry) []gin.H {
	out := make([]gin.H, 0, len(rotation))
	for _, e := range rotation {
		item := gin.H{"userId": e.UserID, "conversationsCount": e.Open, "eligible": e.Eligible}
		if e.Reason != "" {
			item["reason"] = e.Reason
		}
		out = append(out, item)
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
