package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// userView is the User resource of Help Scout's docs.
type userView struct {
	Links           selfLinks   `json:"_links"`
	AlternateEmails []string    `json:"alternateEmails"`
	CreatedAt       string      `json:"createdAt"`
	Email           string      `json:"email"`
	FirstName       string      `json:"firstName"`
	ID              int64       `json:"id"`
	Initials        string      `json:"initials"`
	JobTitle        string      `json:"jobTitle"`
	LastName        string      `json:"lastName"`
	Mention         string      `json:"mention"`
	Phone           string      `json:"phone"`
	PhotoURL        string      `json:"photoUrl"`
	Role            parley.Role `json:"role"`
	Timezone        string      `json:"timezone"`
	Type            string      `json:"type"`
	UpdatedAt       string      `json:"updatedAt"`
}

// userResource renders the User resource of Help Scout's docs.
func (s *Server) userResource(c *gin.Context, u *parley.User) *userView {
	return &userView{
		ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
		Role: u.Role, Timezone: u.Timezone, Type: "user", PhotoURL: u.PhotoURL,
		Initials: u.Initials(), Mention: u.Mention(), JobTitle: u.JobTitle, Phone: u.Phone,
		AlternateEmails: nonNil(u.AlternateEmails),
		CreatedAt:       parley.FormatTime(u.CreatedAt), UpdatedAt: parley.FormatTime(u.UpdatedAt),
		Links: selfLinks{link(s.url(c, "v2", "users", u.ID))},
	}
}

// getUser handles GET /v2/users/{userId} and GET /v2/users/me (the token's user).
func (s *Server) getUser(c *gin.Context) error {
	who := caller(c)
	if c.Param("userId") == "me" {
		render(c, http.StatusOK, s.userResource(c, who.User))
		return nil
	}
	id, err := pathID(c, "userId")
	if err != nil {
		return err
	}
	var u *parley.User
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		u, err = tx.User(who.Company.ID, id)
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, s.userResource(c, u))
	return nil
}

// listUsers handles GET /v2/users: filters `email` (exact, case-insensitive)
// and `mailbox` (users with access to it), 50 a page.
func (s *Server) listUsers(c *gin.Context) error {
	p := readParams(c, "page", "email", "mailbox")
	email, _ := p.raw("email")
	mailbox := p.id("mailbox")
	keep := func(u *parley.User) bool {
		return (email == "" || parley.NormalizeEmail(u.Email) == parley.NormalizeEmail(email)) &&
			(mailbox == nil || u.CanAccessMailbox(*mailbox))
	}
	return listRecords(s, c, p, "users", (parley.Tx).Users, keep,
		func(u *parley.User) (*userView, error) { return s.userResource(c, u), nil })
}

func (s *Server) renderUsers(c *gin.Context, users []parley.User, pg page) {
	pg.total = len(users)
	var items []*userView
	for _, u := range pageOf(users, pg) {
		items = append(items, s.userResource(c, &u))
	}
	renderPage(s, c, "users", items, pg)
}

// listTeams handles GET /v2/teams, 50 a page.
func (s *Server) listTeams(c *gin.Context) error {
	type teamView struct {
		Links struct {
			Members halLink `json:"members"`
		} `json:"_links"`
		CreatedAt   string `json:"createdAt"`
		ID          int64  `json:"id"`
		MemberCount int    `json:"memberCount"`
		Name        string `json:"name"`
		Type        string `json:"type"`
		UpdatedAt   string `json:"updatedAt"`
	}
	return listRecords(s, c, readParams(c, "page"), "teams", (parley.Tx).Teams, nil, func(t *parley.Team) (teamView, error) {
		v := teamView{ID: t.ID, Name: t.Name, Type: "team", MemberCount: len(t.MemberIDs),
			CreatedAt: parley.FormatTime(t.CreatedAt), UpdatedAt: parley.FormatTime(t.UpdatedAt)}
		v.Links.Members = link(s.url(c, "v2", "teams", t.ID, "members"))
		return v, nil
	})
}

// listTeamMembers handles GET /v2/teams/{teamId}/members, 50 a page.
func (s *Server) listTeamMembers(c *gin.Context) error {
	who := caller(c)
	id, err := pathID(c, "teamId")
	if err != nil {
		return err
	}
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	if err := p.err(); err != nil {
		return err
	}
	var members []parley.User
	err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
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
		return err
	}
	s.renderUsers(c, members, pg)
	return nil
}

// createUser handles POST /v2/users: owners and administrators invite a
// user into their company; 201 with Resource-ID and Location.
func (s *Server) createUser(c *gin.Context) error {
	who := caller(c)
	var req parley.NewUser
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	now := s.now()
	var u *parley.User
	err := s.write(c, func(tx parley.Tx) (err error) {
		u, err = parley.CreateUser(tx, who, req, now)
		return err
	})
	if err != nil {
		return err
	}
	c.Header("Resource-ID", strconv.FormatInt(u.ID, 10))
	c.Header("Location", s.url(c, "v2", "users", u.ID))
	c.Status(http.StatusCreated)
	return nil
}
