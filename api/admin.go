package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/crypto/bcrypt"

	parley "github.com/parley/parley"
)

// isOperator reports whether the request carries the operator's admin
// token (Config.AdminToken); never when no admin token is configured.
// The comparison is constant-time over SHA-256 digests, so neither the
// token's content nor its length leaks through timing.
func (s *Server) isOperator(c *gin.Context) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	scheme, token, _ := strings.Cut(c.GetHeader("Authorization"), " ")
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.cfg.AdminToken))
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// operator lets only the operator's admin token through: the admin API
// and /metrics, which span every company. Without a configured admin token
// every request is refused, so an installation without one exposes none of it.
func (s *Server) operator(c *gin.Context) error {
	if !s.isOperator(c) {
		c.Header("WWW-Authenticate", `Bearer realm="parley-admin"`)
		msg := "the operator's admin token is required"
		if s.cfg.AdminToken == "" {
			msg += "; start the server with --admin-token (PARLEY_ADMIN_TOKEN)"
		}
		return parley.Unauthorized(msg)
	}
	c.Set(keyOperator, true)
	c.Next()
	return nil
}

// HashSecret is the parley.Hash of passwords and client secrets: bcrypt
// at its default cost. `parley init` uses it too.
func HashSecret(secret string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.DefaultCost)
	return string(h), err
}

// adminMailbox renders a mailbox for the admin API: the public view with
// its chat widgets.
func (s *Server) adminMailbox(c *gin.Context, m *parley.Mailbox) gin.H {
	out := s.mailboxResource(c, m)
	out["companyId"] = m.CompanyID
	out["widgets"] = nonNil(m.Widgets)
	return out
}

// adminCreateCompany handles POST /admin/companies: a company, its owner,
// a first mailbox and an OAuth application (parley.CreateCompany, as
// `parley init`). The answer holds the client secret, and the owner's
// password when it was generated: shown this once.
func (s *Server) adminCreateCompany(c *gin.Context) error {
	var req parley.NewCompany
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var a *parley.NewAccount
	err := s.write(c, func(tx parley.Tx) (err error) {
		a, err = parley.CreateCompany(tx, req, HashSecret, s.now())
		return err
	})
	if err != nil {
		return err
	}
	owner := gin.H{"id": a.Owner.ID, "email": a.Owner.Email, "firstName": a.Owner.FirstName, "lastName": a.Owner.LastName}
	if a.OwnerPassword != "" {
		owner["password"] = a.OwnerPassword
	}
	c.Header("Resource-ID", strconv.FormatInt(a.Company.ID, 10))
	c.Header("Cache-Control", "no-store")
	render(c, http.StatusCreated, gin.H{"id": a.Company.ID, "name": a.Company.Name, "plan": a.Company.Plan,
		"createdAt": parley.FormatTime(a.Company.CreatedAt), "owner": owner, "mailbox": s.adminMailbox(c, a.Mailbox),
		"app": gin.H{"clientId": a.App.ClientID, "clientSecret": a.ClientSecret, "name": a.App.Name}})
	return nil
}

// adminIDs reads the company id, and the mailbox id when the route has one.
func adminIDs(c *gin.Context) (company, mailbox int64, err error) {
	if company, err = pathID(c, "companyId"); err != nil {
		return 0, 0, err
	}
	if c.Param("mailboxId") != "" {
		mailbox, err = pathID(c, "mailboxId")
	}
	return company, mailbox, err
}

// adminMailboxWrite parses a body into req and runs a mailbox change of the
// company and mailbox of the path, then renders the mailbox with status.
func adminMailboxWrite[T any](s *Server, c *gin.Context, status int,
	change func(tx parley.Tx, company, mailbox int64, req T) (*parley.Mailbox, gin.H, error)) error {
	company, mailbox, err := adminIDs(c)
	if err != nil {
		return err
	}
	var req T
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var m *parley.Mailbox
	var created gin.H
	err = s.write(c, func(tx parley.Tx) (err error) {
		if _, err := tx.Company(company); err != nil {
			return err
		}
		m, created, err = change(tx, company, mailbox, req)
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case created != nil:
		c.Header("Resource-ID", fmt.Sprint(created["id"]))
		render(c, status, created)
	case status == http.StatusCreated:
		c.Header("Resource-ID", strconv.FormatInt(m.ID, 10))
		fallthrough
	default:
		render(c, status, s.adminMailbox(c, m))
	}
	return nil
}

// adminCreateMailbox handles POST /admin/companies/{companyId}/mailboxes:
// a mailbox with its system folders.
func (s *Server) adminCreateMailbox(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, _ int64, req parley.NewMailbox) (*parley.Mailbox, gin.H, error) {
		m, err := parley.CreateMailbox(tx, company, req, s.now())
		return m, nil, err
	})
}

// adminUpdateMailbox handles PATCH /admin/companies/{companyId}/mailboxes/{mailboxId}:
// renames a mailbox or changes its address.
func (s *Server) adminUpdateMailbox(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusOK, func(tx parley.Tx, company, mailbox int64, req parley.MailboxPatch) (*parley.Mailbox, gin.H, error) {
		m, err := parley.UpdateMailbox(tx, company, mailbox, req, s.now())
		return m, nil, err
	})
}

// adminAddField handles POST /admin/companies/{companyId}/mailboxes/{mailboxId}/fields:
// a custom field at the end of the mailbox's fields.
func (s *Server) adminAddField(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, mailbox int64, req parley.NewField) (*parley.Mailbox, gin.H, error) {
		m, f, err := parley.AddField(tx, company, mailbox, req, s.now())
		if err != nil {
			return nil, nil, err
		}
		options := make([]gin.H, 0, len(f.Options))
		for _, o := range f.Options {
			options = append(options, gin.H{"id": o.ID, "order": o.Order, "label": o.Label})
		}
		return m, gin.H{"id": f.ID, "name": f.Name, "type": f.Type, "required": f.Required, "order": f.Order, "options": options}, nil
	})
}

// adminAddWidget handles POST /admin/companies/{companyId}/mailboxes/{mailboxId}/widgets:
// a public chat widget whose id the embeddable widget sends.
func (s *Server) adminAddWidget(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, mailbox int64, req parley.NewWidget) (*parley.Mailbox, gin.H, error) {
		m, id, err := parley.AddWidget(tx, company, mailbox, req, s.now())
		if err != nil {
			return nil, nil, err
		}
		return m, gin.H{"id": id, "mailboxId": m.ID, "_links": gin.H{"chats": link(s.url(c, "v2", "widgets", id, "chats"))}}, nil
	})
}
