package puller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
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
}

// Summary counts what a pull did, by kind of record.
type Summary struct {
	// Since is the start of the last pull from the source that ran to its
	// end, when there was one: this pull asked only for the customers and
	// conversations changed since.
	Since *time.Time
	// Copied, Updated (there, and changed on the source since) and Skipped
	// (there, unchanged) count records by kind: users, teams, mailboxes,
	// fields, saved replies, organization properties, organizations,
	// customer properties, webhooks, workflows, customers, conversations,
	// threads, tags.
	Copied, Updated, Skipped map[string]int
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

// puller is one pull's state: the source, the target and the map of the
// source's ids to the target's, by kind (parley.PulledID).
type puller struct {
	ctx    context.Context
	src    *Client
	source string // the source's base URL, the map's key
	db     parley.Store
	opt    Options
	caller parley.Caller
	ids    map[string]map[int64]int64
	since  string // modifiedSince of the lists, or ""
	sum    *Summary
}

// pulledKinds are the kinds of record the id map holds.
var pulledKinds = []string{"user", "team", "mailbox", "field", "saved reply", "webhook", "workflow", "customer", "conversation", "thread", "attachment"}

// sinceMargin is how far before the last pull's start an incremental run
// asks for changes: the source's clock may run behind the target's, and a
// record asked for again that has not changed is only counted as there.
const sinceMargin = 5 * time.Minute

// Pull copies the account the client reads into a company of db: users
// (invited, without passwords: they sign in after a reset or an
// invitation), mailboxes with their custom fields, customers, then
// conversations with their threads, attachments and ratings, oldest first.
//
// Every record written is noted in the company's map of the source's ids
// (parley.PulledID) in the write that makes it, so a second run after one
// cut off anywhere (killed, interrupted) skips what the first wrote and
// goes on where it stopped, even for records whose ids could not be kept.
// Records the map does not name are matched as before the map was kept:
// users and mailboxes by e-mail address, customers by e-mail and
// conversations by mailbox, creation time, subject and customer.
//
// A pull that runs to its end stores its start time: the next one asks the
// source only for the customers and conversations modified since
// (modifiedSince), and brings the ones it had copied up to date: new
// threads, status, tags and custom fields of a conversation; the fields
// and entries of a customer. A record the target refuses is counted in
// the summary and the pull goes on; a source that fails for good ends it.
func Pull(ctx context.Context, src *Client, db parley.Store, opt Options) (*Summary, error) {
	if opt.Now == nil {
		opt.Now = parley.SystemClock.Now
	}
	start := opt.Now()
	caller, err := importer.Importer(db, opt.CompanyID)
	if err != nil {
		return nil, err
	}
	p := &puller{ctx: ctx, src: src, source: strings.TrimRight(src.Base, "/"), db: db, opt: opt, caller: caller,
		ids: map[string]map[int64]int64{},
		sum: &Summary{Copied: map[string]int{}, Updated: map[string]int{}, Skipped: map[string]int{}}}
	err = db.View(ctx, func(tx parley.Tx) error {
		for _, kind := range pulledKinds {
			if p.ids[kind], err = tx.PulledIDs(caller.Company.ID, p.source, kind); err != nil {
				return err
			}
		}
		last, err := tx.LastPull(caller.Company.ID, p.source)
		if err == nil {
			p.sum.Since = &last.StartedAt
			p.since = parley.FormatTime(last.StartedAt.Add(-sinceMargin))
		}
		if parley.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, step := range []func() error{p.pullMailboxes, p.pullUsers, p.pullTeams, p.pullSavedReplies, p.pullOrganizationProperties,
		p.pullOrganizations, p.pullProperties, p.pullWebhooks, p.pullWorkflows, p.pullCustomers, p.pullConversations, p.pullTagColors} {
		if err := step(); err != nil {
			return p.sum, err
		}
	}
	_, err = db.Update(ctx, func(tx parley.Tx) error {
		return tx.PutLastPull(&parley.PullRun{CompanyID: caller.Company.ID, Source: p.source, StartedAt: start})
	})
	return p.sum, err
}

// wrote notes in tx that the source's record of kind sourceID is the
// target's id (an importer.Wrote).
func (p *puller) wrote(tx parley.Tx, kind string, sourceID, id int64) error {
	err := tx.PutPulledID(parley.PulledID{CompanyID: p.caller.Company.ID, Source: p.source, Kind: kind, SourceID: sourceID, ID: id})
	if err == nil {
		// Set before the write commits: a write that fails leaves an id
		// the run does not ask for again (each source record is read
		// once), and the next run reads the map the store holds.
		p.ids[kind][sourceID] = id
	}
	return err
}

// withSince adds the lists' modifiedSince to path on an incremental run.
func (p *puller) withSince(path string) string {
	if p.since == "" {
		return path
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "modifiedSince=" + url.QueryEscape(p.since)
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
			p.copyMapped("users", "user", u.ID, func(tx parley.Tx) (int64, bool, error) {
				had, err := tx.UserByEmail(u.Email)
				if err != nil {
					return 0, false, nil
				}
				if had.CompanyID != p.caller.Company.ID {
					return 0, false, fmt.Errorf("%s is a user of another company", u.Email)
				}
				return had.ID, true, nil
			}, func(tx parley.Tx) (int64, error) {
				made, err := parley.CreateUser(tx, p.caller, req, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
			})
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

// copyMapped copies one record in a write of its own and notes, in the
// same write, what its source id became in the id map (as mapKind): find
// returns the target's own record when it has one already, else create
// makes it. The outcome is counted under kind; a refusal is returned too.
func (p *puller) copyMapped(kind, mapKind string, sourceID int64, find func(tx parley.Tx) (id int64, found bool, err error), create func(tx parley.Tx) (int64, error)) error {
	created := false
	_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
		created = false // the write may run again
		id, found, err := find(tx)
		if err != nil {
			return err
		}
		if !found {
			if id, err = create(tx); err != nil {
				return err
			}
			created = true
		}
		return p.wrote(tx, mapKind, sourceID, id)
	})
	p.count(kind, sourceID, created, err)
	return err
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
			err := p.copyMapped("mailboxes", "mailbox", m.ID, func(tx parley.Tx) (int64, bool, error) {
				had, err := tx.MailboxByEmail(m.Email)
				if err != nil {
					return 0, false, nil
				}
				if had.CompanyID != p.caller.Company.ID {
					return 0, false, fmt.Errorf("%s is a mailbox of another company", m.Email)
				}
				return had.ID, true, nil
			}, func(tx parley.Tx) (int64, error) {
				made, err := parley.CreateMailbox(tx, p.caller.Company.ID, parley.NewMailbox{Name: &m.Name, Email: &m.Email}, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
			})
			if err != nil {
				continue
			}
			if err := p.pullFields(m.ID, p.ids["mailbox"][m.ID]); err != nil {
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
			p.copyMapped("fields", "field", f.ID, func(tx parley.Tx) (int64, bool, error) {
				m, err := tx.Mailbox(p.caller.Company.ID, targetID)
				if err != nil {
					return 0, false, err
				}
				for _, had := range m.Fields {
					if strings.EqualFold(had.Name, f.Name) {
						return had.ID, true, nil
					}
				}
				return 0, false, nil
			}, func(tx parley.Tx) (int64, error) {
				_, made, err := parley.AddField(tx, p.caller.Company.ID, targetID, req, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
			})
		}
		return nil
	})
}

// pullSavedReplies copies each pulled mailbox's saved replies the target
// mailbox lacks (matched by name). The list is a plain array with
// previews (Help Scout's docs, List Saved Replies): each reply's text
// comes from its own answer.
func (p *puller) pullSavedReplies() error {
	for _, sourceID := range slices.Sorted(maps.Keys(p.ids["mailbox"])) {
		targetID := p.ids["mailbox"][sourceID]
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
			p.copyMapped("saved replies", "saved reply", item.ID, func(tx parley.Tx) (int64, bool, error) {
				had, err := tx.SavedReplies(p.caller.Company.ID, targetID)
				if err != nil {
					return 0, false, err
				}
				if i := slices.IndexFunc(had, func(r parley.SavedReply) bool { return r.Name == item.Name }); i >= 0 {
					return had[i].ID, true, nil
				}
				return 0, false, nil
			}, func(tx parley.Tx) (int64, error) {
				made, err := parley.CreateSavedReply(tx, p.caller, targetID, &in, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
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
	return p.pullPropertyDefs("customer properties", "/v2/customer-properties", "customer-properties", (parley.Tx).PropertyDefs,
		func(tx parley.Tx, in *parley.PropertyDefInput) error {
			_, err := parley.DefineProperty(tx, p.caller, in, p.opt.Now())
			return err
		})
}

// pullOrganizationProperties defines the source's organization properties
// the target lacks (matched by slug).
func (p *puller) pullOrganizationProperties() error {
	return p.pullPropertyDefs("organization properties", "/v2/organizations/properties", "organization-properties",
		(parley.Tx).OrganizationPropertyDefs, func(tx parley.Tx, in *parley.PropertyDefInput) error {
			_, err := parley.DefineOrganizationProperty(tx, p.caller, in, p.opt.Now())
			return err
		})
}

// pullPropertyDefs defines the property definitions of one list (path,
// embedded under key) that defs lacks, counted under kind.
func (p *puller) pullPropertyDefs(kind, path, key string, defs func(parley.Tx, int64) ([]parley.PropertyDef, error),
	define func(parley.Tx, *parley.PropertyDefInput) error) error {
	return p.src.Pages(p.ctx, path, func(body []byte) error {
		var page struct {
			Embedded map[string][]parley.PropertyDefInput `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the %s page: %w", kind, err)
		}
		for _, in := range page.Embedded[key] {
			p.copyUnlessThere(kind, 0, func(tx parley.Tx) (bool, error) {
				had, err := defs(tx, p.caller.Company.ID)
				return slices.ContainsFunc(had, func(d parley.PropertyDef) bool { return in.Slug != nil && d.Slug == *in.Slug }), err
			}, func(tx parley.Tx) error { return define(tx, &in) })
		}
		return nil
	})
}

// pullTagColors gives the tags the conversations brought the colours they
// have on the source (tags are made by name when a conversation names
// them; one no conversation names is not copied).
func (p *puller) pullTagColors() error {
	return p.src.Pages(p.ctx, "/v2/tags", func(body []byte) error {
		var page struct {
			Embedded struct {
				Tags []struct {
					ID    int64  `json:"id"`
					Name  string `json:"name"`
					Color string `json:"color"`
				} `json:"tags"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the tags page: %w", err)
		}
		for _, tag := range page.Embedded.Tags {
			changed, unused := false, false
			_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
				changed, unused = false, false
				had, err := tx.TagByName(p.caller.Company.ID, parley.NormalizeTagName(tag.Name))
				if parley.IsNotFound(err) {
					unused = true
					return nil
				}
				if err != nil || tag.Color == "" || strings.EqualFold(had.Color, tag.Color) {
					return err
				}
				changed = true
				return parley.UpdateTag(tx, p.caller, had.ID, &parley.TagInput{Color: &tag.Color}, p.opt.Now())
			})
			if !unused {
				p.tally("tags", tag.ID, changed, err)
			}
		}
		return nil
	})
}

// pullCustomers copies the customers with their entries and properties,
// and brings those copied before up to date.
func (p *puller) pullCustomers() error {
	return p.src.Pages(p.ctx, p.withSince("/v2/customers"), func(body []byte) error {
		export, err := importer.Read(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("the customers page: %w", err)
		}
		fresh := &importer.Export{Rejected: export.Rejected}
		for _, listed := range export.Customers {
			// The list renders customers without their properties; the
			// customer's own answer has them.
			one, err := p.src.Get(p.ctx, "/v2/customers/"+strconv.FormatInt(listed.ID, 10))
			if err != nil {
				return err
			}
			var whole importer.Customer
			if err := json.Unmarshal(one, &whole); err != nil {
				return fmt.Errorf("customer %d: %w", listed.ID, err)
			}
			if id, ok := p.ids["customer"][whole.ID]; ok {
				p.updateCustomer(&whole, id)
				continue
			}
			fresh.Customers = append(fresh.Customers, whole)
		}
		return p.load(fresh)
	})
}

// updateCustomer brings a customer copied before up to date: its fields;
// its e-mails, phones, chat handles, social profiles and websites (added,
// retyped or removed as the source has them); its address and property
// values.
func (p *puller) updateCustomer(c *importer.Customer, id int64) {
	changed := false
	_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
		changed = false
		companyID, now := p.caller.Company.ID, p.opt.Now()
		had, err := tx.Customer(companyID, id)
		if err != nil {
			return err
		}
		fields := parley.CustomerFields{FirstName: &c.FirstName, LastName: &c.LastName, PhotoURL: &c.PhotoURL, PhotoType: &c.PhotoType,
			JobTitle: &c.JobTitle, Background: &c.Background, Location: &c.Location, Organization: &c.Organization,
			Gender: &c.Gender, Age: &c.Age}
		for _, f := range []**string{&fields.PhotoURL, &fields.PhotoType, &fields.JobTitle, &fields.Background, &fields.Location,
			&fields.Organization, &fields.Gender, &fields.Age} {
			if **f == "" {
				*f = nil // absent: null, as Overwrite Customer takes it
			}
		}
		if had.FirstName != c.FirstName || had.LastName != c.LastName || had.PhotoURL != c.PhotoURL ||
			(had.PhotoType != c.PhotoType && c.PhotoType != "") || had.JobTitle != c.JobTitle || had.Background != c.Background ||
			had.Location != c.Location || had.Organization != c.Organization || (had.Gender != c.Gender && c.Gender != "") || had.Age != c.Age {
			if err := parley.OverwriteCustomer(tx, companyID, id, &fields, now); err != nil {
				return err
			}
			changed = true
		}
		for _, k := range parley.EntryKinds {
			entries, err := tx.Customer(companyID, id)
			if err != nil {
				return err
			}
			moved, err := syncEntries(tx, companyID, id, k, *entries.Entries(k), sourceEntries(c, k), now)
			if err != nil {
				return err
			}
			changed = changed || moved
		}
		moved, err := syncAddress(tx, companyID, id, had.Address, c, now)
		if err != nil {
			return err
		}
		changed = changed || moved
		moved, err = syncProperties(tx, companyID, id, had.Properties, c, now)
		changed = changed || moved
		return err
	})
	p.tally("customers", c.ID, changed, err)
}

// syncAddress makes a customer's address the source's (or removes it),
// and reports whether it changed it.
func syncAddress(tx parley.Tx, companyID, id int64, had *parley.Address, c *importer.Customer, now time.Time) (bool, error) {
	a := c.Embedded.Address
	if a == nil || a.City == "" && a.State == "" && a.PostalCode == "" && a.Country == "" && len(a.Lines) == 0 {
		if had == nil {
			return false, nil
		}
		return true, parley.RemoveAddress(tx, companyID, id, now)
	}
	if had != nil && had.City == a.City && had.State == a.State && had.PostalCode == a.PostalCode && had.Country == a.Country &&
		slices.Equal(had.Lines, a.Lines) {
		return false, nil
	}
	in := parley.AddressInput{City: &a.City, State: &a.State, PostalCode: &a.PostalCode, Country: &a.Country, Lines: a.Lines}
	return true, parley.SetAddress(tx, companyID, id, &in, now)
}

// syncProperties sets a customer's property values to the source's,
// clearing those the source has none of, and reports whether it changed
// any.
func syncProperties(tx parley.Tx, companyID, id int64, had map[string]string, c *importer.Customer, now time.Time) (bool, error) {
	var ops []parley.PatchOp
	want := map[string]bool{}
	for _, prop := range c.Embedded.Properties {
		if prop.Value == nil {
			continue
		}
		want[prop.Slug] = true
		if value, ok := had[prop.Slug]; !ok || value != *prop.Value {
			v, _ := json.Marshal(*prop.Value)
			ops = append(ops, parley.PatchOp{Op: "replace", Path: "/" + prop.Slug, Value: v})
		}
	}
	for _, slug := range slices.Sorted(maps.Keys(had)) {
		if !want[slug] {
			ops = append(ops, parley.PatchOp{Op: "remove", Path: "/" + slug})
		}
	}
	if len(ops) == 0 {
		return false, nil
	}
	return true, parley.PatchProperties(tx, companyID, id, ops, now)
}

// tally notes a record brought up to date, found unchanged, or refused.
func (p *puller) tally(kind string, sourceID int64, changed bool, err error) {
	switch {
	case err != nil:
		p.sum.refuse(kind, sourceID, importer.Describe(err))
	case changed:
		p.sum.Updated[kind]++
	default:
		p.sum.Skipped[kind]++
	}
}

// sourceEntries are a source customer's entries of one kind.
func sourceEntries(c *importer.Customer, k parley.EntryKind) []importer.Entry {
	switch k.Segment {
	case parley.EmailEntries.Segment:
		return c.Embedded.Emails
	case parley.PhoneEntries.Segment:
		return c.Embedded.Phones
	case parley.ChatEntries.Segment:
		return c.Embedded.Chats
	case parley.SocialEntries.Segment:
		return c.Embedded.SocialProfiles
	}
	return c.Embedded.Websites
}

// syncEntries makes a customer's entries of one kind the source's: adds
// the values it lacks, retypes those whose type changed and removes those
// the source no longer has. It reports whether it changed any.
func syncEntries(tx parley.Tx, companyID, id int64, k parley.EntryKind, had []parley.Entry, want []importer.Entry, now time.Time) (bool, error) {
	changed := false
	for _, e := range had {
		i := slices.IndexFunc(want, func(w importer.Entry) bool { return strings.EqualFold(w.Value, e.Value) })
		switch {
		case i < 0:
			if err := parley.RemoveEntry(tx, companyID, id, k, e.ID, now); err != nil {
				return false, err
			}
			changed = true
		case want[i].Type != "" && want[i].Type != e.Type:
			if err := parley.ReplaceEntry(tx, companyID, id, k, e.ID, &parley.EntryInput{Type: &want[i].Type, Value: &e.Value}, now); err != nil {
				return false, err
			}
			changed = true
		}
	}
	for _, w := range want {
		if slices.ContainsFunc(had, func(e parley.Entry) bool { return strings.EqualFold(w.Value, e.Value) }) {
			continue
		}
		in := parley.EntryInput{Value: &w.Value}
		if w.Type != "" {
			in.Type = &w.Type
		}
		if _, err := parley.AddEntry(tx, companyID, id, k, &in, now); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// pullConversations copies the conversations of every status with their
// threads, oldest first, and brings those copied before up to date.
func (p *puller) pullConversations() error {
	done := 0
	return p.src.Pages(p.ctx, p.withSince("/v2/conversations?status=all&embed=threads&sortField=createdAt&sortOrder=asc"), func(body []byte) error {
		export, err := importer.Read(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("the conversations page: %w", err)
		}
		fresh := &importer.Export{Rejected: export.Rejected}
		for i := range export.Conversations {
			c := &export.Conversations[i]
			p.mapIDs(c)
			id, known := p.ids["conversation"][c.ID]
			if err := p.fetchAttachments(c, known); err != nil {
				return err
			}
			if known {
				p.updateConversation(c, id)
				continue
			}
			fresh.Conversations = append(fresh.Conversations, *c)
		}
		if err := p.load(fresh); err != nil {
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
		return nil
	})
}

// fetchAttachments reads the files of a conversation's attachments the
// target lacks (of every thread, or of the threads not copied yet when
// the conversation is), through the attachment data endpoint.
func (p *puller) fetchAttachments(c *importer.Conversation, known bool) error {
	for i := range c.Embedded.Threads {
		t := &c.Embedded.Threads[i]
		if _, copied := p.ids["thread"][t.ID]; known && copied {
			continue
		}
		for j := range t.Embedded.Attachments {
			a := &t.Embedded.Attachments[j]
			body, err := p.src.Get(p.ctx, fmt.Sprintf("/v2/conversations/%d/attachments/%d/data", c.ID, a.ID))
			if errors.Is(err, ErrRefused) {
				p.sum.refuse("attachments", a.ID, err)
				continue
			}
			if err != nil {
				return err
			}
			var file struct {
				Data string `json:"data"`
			}
			if err := json.Unmarshal(body, &file); err != nil {
				return fmt.Errorf("attachment %d: %w", a.ID, err)
			}
			a.Data = file.Data
		}
	}
	return nil
}

// updateConversation brings a conversation copied before up to date: the
// threads added on the source since (with their attachments and ratings),
// then its status, tags and custom fields.
func (p *puller) updateConversation(c *importer.Conversation, id int64) {
	// The new threads are told apart before the write, which notes them
	// in the map and may run again.
	var fresh []importer.Thread
	for _, t := range importer.Importable(c.Embedded.Threads) {
		if _, copied := p.ids["thread"][t.ID]; !copied {
			fresh = append(fresh, t)
		}
	}
	changed := false
	_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
		changed = false
		companyID, now := p.caller.Company.ID, p.opt.Now()
		users, err := importer.ActiveUsers(tx, companyID)
		if err != nil {
			return err
		}
		for _, t := range fresh {
			if err := importer.AddThread(tx, p.caller, id, users, &t, p.wrote, now); err != nil {
				return fmt.Errorf("thread %d: %w", t.ID, importer.Describe(err))
			}
		}
		had, err := tx.Conversation(companyID, id)
		if err != nil {
			return err
		}
		status := c.Status
		if status == "open" {
			status = string(parley.StatusActive)
		}
		if string(had.Status) != status {
			value, _ := json.Marshal(status)
			if err := parley.PatchConversation(tx, p.caller, id, []parley.PatchOp{{Op: "replace", Path: "/status", Value: value}}, now); err != nil {
				return err
			}
			changed = true
		}
		var hadTags, tags []string
		for _, tagID := range had.TagIDs {
			tag, err := tx.Tag(companyID, tagID)
			if err != nil {
				return err
			}
			hadTags = append(hadTags, parley.NormalizeTagName(tag.Name))
		}
		for _, t := range c.Tags {
			tags = append(tags, parley.NormalizeTagName(t.Tag))
		}
		slices.Sort(hadTags)
		slices.Sort(tags)
		if !slices.Equal(hadTags, tags) {
			if err := parley.ReplaceTags(tx, p.caller, id, append([]string{}, tags...), now); err != nil {
				return err
			}
			changed = true
		}
		if len(c.CustomFields) == 0 {
			return nil
		}
		fields, err := importer.FieldValues(tx, companyID, c)
		if err != nil {
			return err
		}
		var hadValues, values []string
		for _, f := range had.CustomFields {
			hadValues = append(hadValues, fmt.Sprint(f.ID, "=", f.Value))
		}
		for _, f := range fields {
			values = append(values, fmt.Sprint(*f.ID, "=", *f.Value))
		}
		slices.Sort(hadValues)
		slices.Sort(values)
		if !slices.Equal(hadValues, values) {
			if err := parley.ReplaceFields(tx, p.caller, id, fields, now); err != nil {
				return err
			}
			changed = true
		}
		return nil
	})
	p.tally("conversations", c.ID, changed || len(fresh) > 0, err)
	if err == nil {
		p.sum.Copied["threads"] += len(fresh)
	}
}

// mapIDs turns a conversation's source mailbox and user ids into the
// target's; an id the pull did not copy becomes 0 (the importer then
// refuses the conversation, or authors the thread as the importing owner).
func (p *puller) mapIDs(c *importer.Conversation) {
	users := p.ids["user"]
	c.MailboxID = p.ids["mailbox"][c.MailboxID]
	if c.Assignee != nil && c.Assignee.Type == "user" {
		c.Assignee.ID = users[c.Assignee.ID]
	}
	if c.CreatedBy.Type == "user" {
		c.CreatedBy.ID = users[c.CreatedBy.ID]
	}
	for i := range c.Embedded.Threads {
		if t := &c.Embedded.Threads[i]; t.CreatedBy.Type == "user" {
			t.CreatedBy.ID = users[t.CreatedBy.ID]
		}
	}
}

// load writes a page's records through the importer and adds its counts.
func (p *puller) load(export *importer.Export) error {
	s, err := importer.Run(p.db, export, importer.Options{CompanyID: p.caller.Company.ID, Now: p.opt.Now, Wrote: p.wrote})
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
