package api

import (
	"crypto/sha256"
	"crypto/subtle"
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
func (s *Server) adminMailbox(c *gin.Context, m *parley.Mailbox) *mailboxView {
	out := s.mailboxResource(c, m)
	widgets := nonNil(m.Widgets)
	out.CompanyID, out.Widgets = &m.CompanyID, &widgets
	return out
}

// newCompanyView is a company the admin API created, with what was
// created with it; secrets are shown this once.
type newCompanyView struct {
	App struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
		Name         string `json:"name"`
	} `json:"app"`
	CreatedAt string       `json:"createdAt"`
	ID        int64        `json:"id"`
	Mailbox   *mailboxView `json:"mailbox"`
	Name      string       `json:"name"`
	Owner     struct {
		Email     string `json:"email"`
		FirstName string `json:"firstName"`
		ID        int64  `json:"id"`
		LastName  string `json:"lastName"`
		Password  string `json:"password,omitempty"`
	} `json:"owner"`
	Plan parley.Plan `json:"plan"`
}

// widgetView is a chat widget the admin API created.
type widgetView struct {
	Links struct {
		Chats halLink `json:"chats"`
	} `json:"_links"`
	ID        string `json:"id"`
	MailboxID int64  `json:"mailboxId"`
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
	body := newCompanyView{ID: a.Company.ID, Name: a.Company.Name, Plan: a.Company.Plan,
		CreatedAt: parley.FormatTime(a.Company.CreatedAt), Mailbox: s.adminMailbox(c, a.Mailbox)}
	body.Owner.ID, body.Owner.Email, body.Owner.FirstName, body.Owner.LastName = a.Owner.ID, a.Owner.Email, a.Owner.FirstName, a.Owner.LastName
	body.Owner.Password = a.OwnerPassword
	body.App.ClientID, body.App.ClientSecret, body.App.Name = a.App.ClientID, a.ClientSecret, a.App.Name
	c.Header("Resource-ID", strconv.FormatInt(a.Company.ID, 10))
	c.Header("Cache-Control", "no-store")
	render(c, http.StatusCreated, body)
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

// adminCreated is what a mailbox change created besides the mailbox: its
// Resource-ID and its view.
type adminCreated struct {
	id   string
	view any
}

// adminMailboxWrite parses a body into req and runs a mailbox change of the
// company and mailbox of the path, then renders the mailbox with status.
func adminMailboxWrite[T any](s *Server, c *gin.Context, status int,
	change func(tx parley.Tx, company, mailbox int64, req T) (*parley.Mailbox, *adminCreated, error)) error {
	company, mailbox, err := adminIDs(c)
	if err != nil {
		return err
	}
	var req T
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	var m *parley.Mailbox
	var created *adminCreated
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
		c.Header("Resource-ID", created.id)
		render(c, status, created.view)
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
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, _ int64, req parley.NewMailbox) (*parley.Mailbox, *adminCreated, error) {
		m, err := parley.CreateMailbox(tx, company, req, s.now())
		return m, nil, err
	})
}

// adminUpdateMailbox handles PATCH /admin/companies/{companyId}/mailboxes/{mailboxId}:
// renames a mailbox or changes its address.
func (s *Server) adminUpdateMailbox(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusOK, func(tx parley.Tx, company, mailbox int64, req parley.MailboxPatch) (*parley.Mailbox, *adminCreated, error) {
		m, err := parley.UpdateMailbox(tx, company, mailbox, req, s.now())
		return m, nil, err
	})
}

// adminAddField handles POST /admin/companies/{companyId}/mailboxes/{mailboxId}/fields:
// a custom field at the end of the mailbox's fields.
func (s *Server) adminAddField(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, mailbox int64, req parley.NewField) (*parley.Mailbox, *adminCreated, error) {
		m, f, err := parley.AddField(tx, company, mailbox, req, s.now())
		if err != nil {
			return nil, nil, err
		}
		return m, &adminCreated{id: strconv.FormatInt(f.ID, 10), view: newFieldView(&f)}, nil
	})
}

// adminAddWidget handles POST /admin/companies/{companyId}/mailboxes/{mailboxId}/widgets:
// a public chat widget whose id the embeddable widget sends.
func (s *Server) adminAddWidget(c *gin.Context) error {
	return adminMailboxWrite(s, c, http.StatusCreated, func(tx parley.Tx, company, mailbox int64, req parley.NewWidget) (*parley.Mailbox, *adminCreated, error) {
		m, id, err := parley.AddWidget(tx, company, mailbox, req, s.now())
		if err != nil {
			return nil, nil, err
		}
		w := widgetView{ID: id, MailboxID: m.ID}
		w.Links.Chats = link(s.url(c, "v2", "widgets", id, "chats"))
		return m, &adminCreated{id: id, view: w}, nil
	})
}
