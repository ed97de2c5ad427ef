package puller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/importer"
)

// Options tune Pull.
type Options struct {
	// CompanyID receives the account; 0 means the database's only company.
	CompanyID int64
	// Now is the clock of what is created.
	Now func() time.Time
	// Progress, when set, is told how many conversation pages are written
	// out of how many the source holds.
	Progress func(done, total int)
	// StopAfterPages, when positive, ends the pull with ErrStopped once
	// that many conversation pages are written: a pull cut off halfway,
	// for the tests of a second run.
	StopAfterPages int
}

// ErrStopped ends a pull Options.StopAfterPages cut off.
var ErrStopped = errors.New("puller: stopped after the pages asked for")

// Summary counts what a pull did, by kind of record.
type Summary struct {
	// Copied and Skipped (already in the target) count records by kind:
	// users, mailboxes, fields, saved replies, organizations, customer
	// properties, customers, conversations, threads.
	Copied, Skipped map[string]int
	// Refused are the records the target refused, with why.
	Refused []Refusal
}

// Refusal is a record of the source the target refused.
type Refusal struct {
	Kind   string
	ID     int64 // the id in the source
	Reason string
}

func (s *Summary) refuse(kind string, id int64, err error) {
	s.Refused = append(s.Refused, Refusal{Kind: kind, ID: id, Reason: err.Error()})
}

// puller is one pull's state: the source, the target and the maps from
// the source's user and mailbox ids to the target's.
type puller struct {
	ctx       context.Context
	src       *Client
	db        parley.Store
	opt       Options
	caller    parley.Caller
	users     map[int64]int64
	mailboxes map[int64]int64
	sum       *Summary
}

// Pull copies the account the client reads into a company of db: users
// (invited, without passwords: they sign in after a reset or an
// invitation), mailboxes with their custom fields, customers, then
// conversations with their threads, oldest first. Users and mailboxes are
// matched by e-mail address, customers by e-mail and conversations by
// mailbox, creation time, subject and customer, so a second run skips
// what the first wrote and goes on where it stopped. A record the target
// refuses is counted in the summary and the pull goes on; a source that
// fails for good ends it.
func Pull(ctx context.Context, src *Client, db parley.Store, opt Options) (*Summary, error) {
	if opt.Now == nil {
		opt.Now = parley.SystemClock.Now
	}
	caller, err := importer.Importer(db, opt.CompanyID)
	if err != nil {
		return nil, err
	}
	p := &puller{ctx: ctx, src: src, db: db, opt: opt, caller: caller, users: map[int64]int64{}, mailboxes: map[int64]int64{},
		sum: &Summary{Copied: map[string]int{}, Skipped: map[string]int{}}}
	for _, step := range []func() error{p.pullMailboxes, p.pullUsers, p.pullSavedReplies, p.pullOrganizations, p.pullProperties,
		p.pullCustomers, p.pullConversations} {
		if err := step(); err != nil {
			return p.sum, err
		}
	}
	return p.sum, nil
}

// sourceUser is a user as the users list renders it.
type sourceUser struct {
	ID              int64    `json:"id"`
	FirstName       string   `json:"firstName"`
	LastName        string   `json:"lastName"`
	Email           string   `json:"email"`
	Role            string   `json:"role"`
	Timezone        string   `json:"timezone"`
	JobTitle        string   `json:"jobTitle"`
	Phone           string   `json:"phone"`
	AlternateEmails []string `json:"alternateEmails"`
}

// pullUsers invites the source's users; the source's owner becomes an
// administrator (the target company has its own owner).
func (p *puller) pullUsers() error {
	return p.src.Pages(p.ctx, "/v2/users", func(body []byte) error {
		var page struct {
			Embedded struct {
				Users []sourceUser `json:"users"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the users page: %w", err)
		}
		for _, u := range page.Embedded.Users {
			role := strings.ToLower(u.Role)
			if role == string(parley.RoleOwner) {
				role = string(parley.RoleAdmin)
			}
			req := parley.NewUser{FirstName: &u.FirstName, LastName: &u.LastName, Email: &u.Email, Role: &role,
				JobTitle: &u.JobTitle, Phone: &u.Phone, AlternateEmails: u.AlternateEmails}
			if u.Timezone != "" {
				req.Timezone = &u.Timezone
			}
			var id int64
			created := false
			_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
				if had, err := tx.UserByEmail(u.Email); err == nil {
					if had.CompanyID != p.caller.Company.ID {
						return fmt.Errorf("%s is a user of another company", u.Email)
					}
					id = had.ID
					return nil
				}
				made, err := parley.CreateUser(tx, p.caller, req, p.opt.Now())
				if err == nil {
					id, created = made.ID, true
				}
				return err
			})
			p.count("users", u.ID, created, err)
			if err == nil {
				p.users[u.ID] = id
			}
		}
		return nil
	})
}

// count notes a record copied, skipped or refused.
func (p *puller) count(kind string, id int64, created bool, err error) {
	switch {
	case err != nil:
		p.sum.refuse(kind, id, importer.Describe(err))
	case created:
		p.sum.Copied[kind]++
	default:
		p.sum.Skipped[kind]++
	}
}

// copyUnlessThere copies one record in a write of its own: unless there
// finds the target already has it, create makes it. The outcome is
// counted under kind (copied, already there, or refused with its reason).
func (p *puller) copyUnlessThere(kind string, sourceID int64, there func(tx parley.Tx) (bool, error), create func(tx parley.Tx) error) {
	created := false
	_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
		created = false // the write may run again
		had, err := there(tx)
		if err != nil || had {
			return err
		}
		if err := create(tx); err != nil {
			return err
		}
		created = true
		return nil
	})
	p.count(kind, sourceID, created, err)
}

// pullMailboxes creates the source's mailboxes (with their system
// folders) and their custom fields.
func (p *puller) pullMailboxes() error {
	return p.src.Pages(p.ctx, "/v2/mailboxes", func(body []byte) error {
		var page struct {
			Embedded struct {
				Mailboxes []struct {
					ID    int64  `json:"id"`
					Name  string `json:"name"`
					Email string `json:"email"`
				} `json:"mailboxes"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the mailboxes page: %w", err)
		}
		for _, m := range page.Embedded.Mailboxes {
			var id int64
			created := false
			_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
				if had, err := tx.MailboxByEmail(m.Email); err == nil {
					if had.CompanyID != p.caller.Company.ID {
						return fmt.Errorf("%s is a mailbox of another company", m.Email)
					}
					id = had.ID
					return nil
				}
				made, err := parley.CreateMailbox(tx, p.caller.Company.ID, parley.NewMailbox{Name: &m.Name, Email: &m.Email}, p.opt.Now())
				if err == nil {
					id, created = made.ID, true
				}
				return err
			})
			p.count("mailboxes", m.ID, created, err)
			if err != nil {
				continue
			}
			p.mailboxes[m.ID] = id
			if err := p.pullFields(m.ID, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// pullFields adds a mailbox's custom fields the target mailbox lacks
// (matched by name).
func (p *puller) pullFields(sourceID, targetID int64) error {
	return p.src.Pages(p.ctx, fmt.Sprintf("/v2/mailboxes/%d/fields", sourceID), func(body []byte) error {
		var page struct {
			Embedded struct {
				Fields []struct {
					ID       int64  `json:"id"`
					Name     string `json:"name"`
					Type     string `json:"type"`
					Required bool   `json:"required"`
					Options  []struct {
						Label string `json:"label"`
						Order int    `json:"order"`
					} `json:"options"`
				} `json:"fields"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("mailbox %d's fields: %w", sourceID, err)
		}
		for _, f := range page.Embedded.Fields {
			sort.SliceStable(f.Options, func(i, j int) bool { return f.Options[i].Order < f.Options[j].Order })
			// Help Scout's docs spell the types SINGLE_LINE, MULTI_LINE,
			// DROPDOWN, NUMBER and DATE; Parley's singleline and so on.
			kind := strings.ReplaceAll(strings.ToLower(f.Type), "_", "")
			req := parley.NewField{Name: &f.Name, Type: &kind, Required: f.Required}
			for _, o := range f.Options {
				req.Options = append(req.Options, o.Label)
			}
			created := false
			_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
				m, err := tx.Mailbox(p.caller.Company.ID, targetID)
				if err != nil {
					return err
				}
				for _, had := range m.Fields {
					if strings.EqualFold(had.Name, f.Name) {
						return nil
					}
				}
				_, _, err = parley.AddField(tx, p.caller.Company.ID, targetID, req, p.opt.Now())
				created = err == nil
				return err
			})
			p.count("fields", f.ID, created, err)
		}
		return nil
	})
}

// pullSavedReplies copies each pulled mailbox's saved replies the target
// mailbox lacks (matched by name). The list is a plain array with
// previews (Help Scout's docs, List Saved Replies): each reply's text
// comes from its own answer.
func (p *puller) pullSavedReplies() error {
	for _, sourceID := range slices.Sorted(maps.Keys(p.mailboxes)) {
		targetID := p.mailboxes[sourceID]
		base := fmt.Sprintf("/v2/mailboxes/%d/saved-replies", sourceID)
		body, err := p.src.Get(p.ctx, base)
		if err != nil {
			return err
		}
		var list []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return fmt.Errorf("mailbox %d's saved replies: %w", sourceID, err)
		}
		for _, item := range list {
			one, err := p.src.Get(p.ctx, base+"/"+strconv.FormatInt(item.ID, 10))
			if err != nil {
				return err
			}
			var in parley.SavedReplyInput
			if err := json.Unmarshal(one, &in); err != nil {
				return fmt.Errorf("saved reply %d: %w", item.ID, err)
			}
			p.copyUnlessThere("saved replies", item.ID, func(tx parley.Tx) (bool, error) {
				had, err := tx.SavedReplies(p.caller.Company.ID, targetID)
				return slices.ContainsFunc(had, func(r parley.SavedReply) bool { return r.Name == item.Name }), err
			}, func(tx parley.Tx) error {
				_, err := parley.CreateSavedReply(tx, p.caller, targetID, &in, p.opt.Now())
				return err
			})
		}
	}
	return nil
}

// pullOrganizations copies the organizations the target lacks (matched
// by name), before the customers, whose organization names link them.
func (p *puller) pullOrganizations() error {
	return p.src.Pages(p.ctx, "/v2/organizations", func(body []byte) error {
		var page struct {
			Embedded struct {
				Organizations []json.RawMessage `json:"organizations"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the organizations page: %w", err)
		}
		for _, raw := range page.Embedded.Organizations {
			var in parley.OrganizationInput
			var id struct {
				ID int64 `json:"id"`
			}
			if err := errors.Join(json.Unmarshal(raw, &in), json.Unmarshal(raw, &id)); err != nil {
				p.count("organizations", id.ID, false, err)
				continue
			}
			p.copyUnlessThere("organizations", id.ID, func(tx parley.Tx) (bool, error) {
				if in.Name == nil {
					return false, nil // refused by the create, with its reason
				}
				had, err := tx.OrganizationsByName(p.caller.Company.ID, *in.Name)
				return len(had) > 0, err
			}, func(tx parley.Tx) error {
				_, err := parley.CreateOrganization(tx, p.caller.Company.ID, &in, p.opt.Now())
				return err
			})
		}
		return nil
	})
}

// pullProperties defines the source's customer properties the target
// lacks (matched by slug), so the customers' values have a home.
func (p *puller) pullProperties() error {
	return p.src.Pages(p.ctx, "/v2/customer-properties", func(body []byte) error {
		var page struct {
			Embedded struct {
				Properties []parley.PropertyDefInput `json:"customer-properties"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the customer properties page: %w", err)
		}
		for _, in := range page.Embedded.Properties {
			p.copyUnlessThere("customer properties", 0, func(tx parley.Tx) (bool, error) {
				defs, err := tx.PropertyDefs(p.caller.Company.ID)
				return slices.ContainsFunc(defs, func(d parley.PropertyDef) bool { return in.Slug != nil && d.Slug == *in.Slug }), err
			}, func(tx parley.Tx) error {
				_, err := parley.DefineProperty(tx, p.caller, &in, p.opt.Now())
				return err
			})
		}
		return nil
	})
}

// pullCustomers copies the customers with their entries and properties.
func (p *puller) pullCustomers() error {
	return p.src.Pages(p.ctx, "/v2/customers", func(body []byte) error {
		export, err := importer.Read(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("the customers page: %w", err)
		}
		for i := range export.Customers {
			// The list renders customers without their properties; the
			// customer's own answer has them.
			one, err := p.src.Get(p.ctx, "/v2/customers/"+strconv.FormatInt(export.Customers[i].ID, 10))
			if err != nil {
				return err
			}
			var whole importer.Customer
			if err := json.Unmarshal(one, &whole); err != nil {
				return fmt.Errorf("customer %d: %w", export.Customers[i].ID, err)
			}
			export.Customers[i] = whole
		}
		return p.load(export)
	})
}

// pullConversations copies the conversations of every status with their
// threads, oldest first.
func (p *puller) pullConversations() error {
	done := 0
	return p.src.Pages(p.ctx, "/v2/conversations?status=all&embed=threads&sortField=createdAt&sortOrder=asc", func(body []byte) error {
		export, err := importer.Read(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("the conversations page: %w", err)
		}
		for i := range export.Conversations {
			p.mapIDs(&export.Conversations[i])
		}
		if err := p.load(export); err != nil {
			return err
		}
		done++
		if p.opt.Progress != nil {
			var page struct {
				Page struct {
					TotalPages int `json:"totalPages"`
				} `json:"page"`
			}
			if json.Unmarshal(body, &page) == nil {
				p.opt.Progress(done, page.Page.TotalPages)
			}
		}
		if p.opt.StopAfterPages > 0 && done >= p.opt.StopAfterPages {
			return ErrStopped
		}
		return nil
	})
}

// mapIDs turns a conversation's source mailbox and user ids into the
// target's; an id the pull did not copy becomes 0 (the importer then
// refuses the conversation, or authors the thread as the importing owner).
func (p *puller) mapIDs(c *importer.Conversation) {
	c.MailboxID = p.mailboxes[c.MailboxID]
	if c.Assignee != nil && c.Assignee.Type == "user" {
		c.Assignee.ID = p.users[c.Assignee.ID]
	}
	if c.CreatedBy.Type == "user" {
		c.CreatedBy.ID = p.users[c.CreatedBy.ID]
	}
	for i := range c.Embedded.Threads {
		if t := &c.Embedded.Threads[i]; t.CreatedBy.Type == "user" {
			t.CreatedBy.ID = p.users[t.CreatedBy.ID]
		}
	}
}

// load writes a page's records through the importer and adds its counts.
func (p *puller) load(export *importer.Export) error {
	s, err := importer.Run(p.db, export, importer.Options{CompanyID: p.caller.Company.ID, Now: p.opt.Now})
	if err != nil {
		return err
	}
	p.sum.Copied["customers"] += s.CustomersCreated
	p.sum.Skipped["customers"] += s.CustomersSkipped
	p.sum.Copied["conversations"] += s.ConversationsCreated
	p.sum.Skipped["conversations"] += s.ConversationsSkipped
	p.sum.Copied["threads"] += s.ThreadsCreated
	for _, f := range s.Failures {
		p.sum.Refused = append(p.sum.Refused, Refusal{Kind: f.Kind, ID: f.ID, Reason: f.Err})
	}
	return nil
}

// NewCompany creates the company a pull fills, named name: its owner is
// the source's owner (else its first administrator), who signs in with the
// password returned once, and its first mailbox is the source's first, so
// the pull finds both there and copies the rest beside them.
func NewCompany(ctx context.Context, src *Client, db parley.Store, name string, hash parley.Hash, now time.Time) (*parley.NewAccount, error) {
	var owner *sourceUser
	err := src.Pages(ctx, "/v2/users", func(body []byte) error {
		var page struct {
			Embedded struct {
				Users []sourceUser `json:"users"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the users page: %w", err)
		}
		for i, u := range page.Embedded.Users {
			role := parley.Role(strings.ToLower(u.Role))
			if role == parley.RoleOwner && (owner == nil || owner.Role != string(parley.RoleOwner)) || role == parley.RoleAdmin && owner == nil {
				owner = &page.Embedded.Users[i]
				owner.Role = string(role)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if owner == nil {
		return nil, errors.New("the source lists no owner or administrator to own the new company")
	}
	body, err := src.Get(ctx, "/v2/mailboxes")
	if err != nil {
		return nil, err
	}
	var boxes struct {
		Embedded struct {
			Mailboxes []parley.NewMailbox `json:"mailboxes"`
		} `json:"_embedded"`
	}
	if err := json.Unmarshal(body, &boxes); err != nil {
		return nil, fmt.Errorf("the mailboxes page: %w", err)
	}
	req := parley.NewCompany{Name: &name, Owner: parley.NewOwner{Email: &owner.Email, FirstName: &owner.FirstName}}
	if owner.LastName != "" {
		req.Owner.LastName = &owner.LastName
	}
	if owner.Timezone != "" {
		req.Owner.Timezone = &owner.Timezone
	}
	if len(boxes.Embedded.Mailboxes) > 0 {
		req.Mailbox = boxes.Embedded.Mailboxes[0]
	}
	var account *parley.NewAccount
	_, err = db.Update(ctx, func(tx parley.Tx) (err error) {
		account, err = parley.CreateCompany(tx, req, hash, now)
		return err
	})
	if err != nil {
		return nil, importer.Describe(err)
	}
	return account, nil
}
