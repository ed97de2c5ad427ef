package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// userResource renders the User resource of SPEC.
func (s *Server) userResource(c *gin.Context, u *parley.User) gin.H {
	return gin.H{
		"id": u.ID, "firstName": u.FirstName, "lastName": u.LastName, "email": u.Email,
		"role": u.Role, "timezone": u.Timezone, "type": "user", "photoUrl": u.PhotoURL,
		"initials": u.Initials(), "mention": u.Mention(), "jobTitle": u.JobTitle, "phone": u.Phone,
		"alternateEmails": nonNil(u.AlternateEmails),
		"createdAt":       parley.FormatTime(u.CreatedAt), "updatedAt": parley.FormatTime(u.UpdatedAt),
		"_links": gin.H{"self": link(s.url(c, "v2", "users", u.ID))},
	}
}

// getUser handles GET /v2/users/{userId} and GET /v2/users/me (the token's user).
func (s *Server) getUser(c *gin.Context) {
	who := caller(c)
	if c.Param("userId") == "me" {
		render(c, http.StatusOK, s.userResource(c, who.User))
		return
	}
	id, err := pathID(c, "userId")
	if err != nil {
		s.fail(c, err)
		return
	}
	var u *parley.User
	err = s.cfg.DB.View(func(tx *storage.Tx) error {
		u, err = tx.User(who.Company.ID, id)
		return err
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	render(c, http.StatusOK, s.userResource(c, u))
}

// listUsers handles GET /v2/users: filters `email` (exact, case-insensitive)
// and `mailbox` (users with access to it), 50 a page.
func (s *Server) listUsers(c *gin.Context) {
	who := caller(c)
	p := readParams(c, "page", "email", "mailbox")
	pg := page{size: DefaultPageSize, number: p.page()}
	email, _ := p.raw("email")
	mailbox := p.id("mailbox")
	if err := p.err(); err != nil {
		s.fail(c, err)
		return
	}
	var users []parley.User
	err := s.cfg.DB.View(func(tx *storage.Tx) error {
		all, err := tx.Users(who.Company.ID)
		for _, u := range all {
			if email != "" && parley.NormalizeEmail(u.Email) != parley.NormalizeEmail(email) {
				continue
			}
			if mailbox != nil && !u.CanAccessMailbox(*mailbox) {
				continue
			}
			users = append(users, u)
		}
		return err
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	s.renderUsers(c, users, pg)
}

func (s *Server) renderUsers(c *gin.Context, users []parley.User, pg page) {
	pg.total = len(users)
	var items []gin.H
	for _, u := range pageOf(users, pg) {
		items = append(items, s.userResource(c, &u))
	}
	s.renderPage(c, "users", items, pg)
}

// listTeams handles GET /v2/teams, 50 a page.
func (s *Server) listTeams(c *gin.Context) {
	who := caller(c)
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	if err := p.err(); err != nil {
		s.fail(c, err)
		return
	}
	var teams []parley.Team
	err := s.cfg.DB.View(func(tx *storage.Tx) (err error) {
		teams, err = tx.Teams(who.Company.ID)
		return err
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	pg.total = len(teams)
	var items []gin.H
	for _, t := range pageOf(teams, pg) {
		items = append(items, gin.H{
			"id": t.ID, "name": t.Name, "type": "team", "memberCount": len(t.MemberIDs),
			"createdAt": parley.FormatTime(t.CreatedAt), "updatedAt": parley.FormatTime(t.UpdatedAt),
			"_links": gin.H{"members": link(s.url(c, "v2", "teams", t.ID, "members"))},
		})
	}
	s.renderPage(c, "teams", items, pg)
}

// listTeamMembers handles GET /v2/teams/{teamId}/members, 50 a page.
func (s *Server) listTeamMembers(c *gin.Context) {
	who := caller(c)
	id, err := pathID(c, "teamId")
	if err != nil {
		s.fail(c, err)
		return
	}
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	if err := p.err(); err != nil {
		s.fail(c, err)
		return
	}
	var members []parley.User
	err = s.cfg.DB.View(func(tx *storage.Tx) error {
		team, err := tx.Team(who.Company.ID, id)
		if err != nil {
			return err
		}
		for _, uid := range team.MemberIDs {
			if u, err := tx.User(who.Company.ID, uid); err == nil {
				members = append(members, *u)
			}
		}
		return nil
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	s.renderUsers(c, members, pg)
}
