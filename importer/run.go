package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	parley "github.com/parley/parley"
)

// Options tune Run.
type Options struct {
	// CompanyID receives the records; 0 means the database's only company.
	CompanyID int64
	// Now is the clock (updatedAt of what is created).
	Now func() time.Time
	// Progress, when set, is told how many records are done out of total.
	Progress func(done, total int)
}

// Summary counts what an import did.
type Summary struct {
	CustomersCreated, CustomersSkipped         int
	ConversationsCreated, ConversationsSkipped int
	ThreadsCreated                             int
	Failures                                   []Failure
}

// Failure is a record the domain refused, or a document of the export
// that is no record (Kind "document", with its Line), with why.
type Failure struct {
	Kind string // "customer", "conversation" or "document"
	ID   int64  // the id in the export
	Line int    // the line a rejected document starts on
	Err  string
}

// Run imports e into a company of db: customers first, then conversations
// oldest first (by number, then creation time), so a company that had none
// numbers them as the export did. Each record is one transaction; a record
// the domain refuses is counted in Failures and the import goes on.
func Run(db parley.Store, e *Export, opt Options) (*Summary, error) {
	if opt.Now == nil {
		opt.Now = parley.SystemClock.Now
	}
	caller, err := Importer(db, opt.CompanyID)
	if err != nil {
		return nil, err
	}
	seen, err := existingConversations(db, caller.Company.ID)
	if err != nil {
		return nil, err
	}
	users := map[int64]bool{}
	err = db.View(context.Background(), func(tx parley.Tx) error {
		all, err := tx.Users(caller.Company.ID)
		for _, u := range all {
			users[u.ID] = u.Active
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	convs := append([]Conversation(nil), e.Conversations...)
	sort.SliceStable(convs, func(i, j int) bool {
		if convs[i].Number != convs[j].Number {
			return convs[i].Number < convs[j].Number
		}
		return convs[i].CreatedAt < convs[j].CreatedAt
	})
	s := &Summary{}
	for _, r := range e.Rejected {
		s.Failures = append(s.Failures, Failure{Kind: "document", Line: r.Line, Err: r.Reason})
	}
	total, done := len(e.Customers)+len(convs), 0
	step := func() {
		done++
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	for i := range e.Customers {
		created, err := importCustomer(db, caller.Company.ID, &e.Customers[i], opt.Now())
		switch {
		case err != nil:
			s.Failures = append(s.Failures, Failure{Kind: "customer", ID: e.Customers[i].ID, Err: err.Error()})
		case created:
			s.CustomersCreated++
		default:
			s.CustomersSkipped++
		}
		step()
	}
	for i := range convs {
		c := &convs[i]
		if seen[conversationKey(c.MailboxID, c.CreatedAt, c.Subject, c.PrimaryCustomer.Email)] {
			s.ConversationsSkipped++
			step()
			continue
		}
		threads, err := importConversation(db, caller, users, c, opt.Now())
		if err != nil {
			s.Failures = append(s.Failures, Failure{Kind: "conversation", ID: c.ID, Err: err.Error()})
		} else {
			s.ConversationsCreated++
			s.ThreadsCreated += threads
			seen[conversationKey(c.MailboxID, c.CreatedAt, c.Subject, c.PrimaryCustomer.Email)] = true
		}
		step()
	}
	return s, nil
}

// Importer is the caller records are created as: the company's owner (or
// first administrator), so every mailbox is reachable; companyID 0 means
// the database's only company.
func Importer(db parley.Store, companyID int64) (parley.Caller, error) {
	var who parley.Caller
	err := db.View(context.Background(), func(tx parley.Tx) error {
		if companyID == 0 {
			all, err := tx.Companies()
			if err != nil {
				return err
			}
			if len(all) != 1 {
				return fmt.Errorf("importer: the database holds %d companies; choose one with --company", len(all))
			}
			companyID = all[0].ID
		}
		company, err := tx.Company(companyID)
		if err != nil {
			return fmt.Errorf("importer: company %d: %w", companyID, err)
		}
		users, err := tx.Users(companyID)
		if err != nil {
			return err
		}
		for i := range users {
			if users[i].IsAdmin() && (who.User == nil || users[i].Role == parley.RoleOwner && who.User.Role != parley.RoleOwner) {
				who = parley.Caller{Company: company, User: &users[i]}
			}
		}
		if who.User == nil {
			return fmt.Errorf("importer: company %d has no owner or administrator to import as", companyID)
		}
		return nil
	})
	return who, err
}

// conversationKey identifies an imported conversation for re-runs.
func conversationKey(mailboxID int64, createdAt, subject, email string) string {
	return strconv.FormatInt(mailboxID, 10) + "\x00" + createdAt + "\x00" + subject + "\x00" + lower(email)
}

func existingConversations(db parley.Store, companyID int64) (map[string]bool, error) {
	seen := map[string]bool{}
	err := db.View(context.Background(), func(tx parley.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID != companyID || c.State == parley.StateDeleted {
				return nil
			}
			email := ""
			if cu, err := tx.Customer(companyID, c.CustomerID); err == nil {
				email = cu.PrimaryEmail()
			}
			seen[conversationKey(c.MailboxID, parley.FormatTime(c.CreatedAt), c.Subject, email)] = true
			return nil
		})
	})
	return seen, err
}

// importCustomer creates a customer unless one of its e-mails is taken.
func importCustomer(db parley.Store, companyID int64, c *Customer, now time.Time) (bool, error) {
	body := map[string]any{}
	for k, v := range map[string]string{"firstName": c.FirstName, "lastName": c.LastName, "photoUrl": c.PhotoURL,
		"photoType": c.PhotoType, "jobTitle": c.JobTitle, "background": c.Background, "location": c.Location,
		"organization": c.Organization, "gender": c.Gender, "age": c.Age} {
		if v != "" {
			body[k] = v
		}
	}
	body["emails"], body["phones"], body["chats"] = c.Embedded.Emails, c.Embedded.Phones, c.Embedded.Chats
	body["socialProfiles"], body["websites"] = c.Embedded.SocialProfiles, c.Embedded.Websites
	if a := c.Embedded.Address; a != nil && (a.City != "" || a.State != "" || a.PostalCode != "" || a.Country != "" || len(a.Lines) > 0) {
		body["address"] = a
	}
	props := map[string]any{}
	for _, p := range c.Embedded.Properties {
		if p.Value != nil {
			props[p.Slug] = *p.Value
		}
	}
	body["properties"] = props
	var req parley.NewCustomerRequest
	if err := remarshal(body, &req); err != nil {
		return false, err
	}
	req.Keep = &parley.KeptCustomer{ID: c.ID}
	if at, ok := parley.ParseTime(c.CreatedAt); ok {
		req.Keep.CreatedAt = at
	}
	if err := req.Validate(); err != nil {
		return false, Describe(err)
	}
	created := false
	_, err := db.Update(context.Background(), func(tx parley.Tx) error {
		created = false
		for _, e := range c.Embedded.Emails {
			if _, err := tx.CustomerByEmail(companyID, e.Value); err == nil {
				return nil
			}
		}
		_, err := parley.CreateCustomer(tx, companyID, &req, now)
		created = err == nil
		return err
	})
	return created, Describe(err)
}

// importConversation creates a conversation with its threads, oldest
// first, as imported.
// Authors and assignees that are not active users of the company become
// the importing owner, and no assignee.
func importConversation(db parley.Store, caller parley.Caller, users map[int64]bool, c *Conversation, now time.Time) (int, error) {
	threads := append([]Thread(nil), c.Embedded.Threads...)
	sort.SliceStable(threads, func(i, j int) bool {
		if threads[i].CreatedAt != threads[j].CreatedAt {
			return threads[i].CreatedAt < threads[j].CreatedAt
		}
		return threads[i].ID < threads[j].ID
	})
	var out []map[string]any
	for _, t := range threads {
		kind := t.Type
		switch kind {
		case "message":
			kind = "reply"
		case "lineitem":
			continue // status and assignment history: derived, not imported
		}
		th := map[string]any{"type": kind, "text": t.Body, "createdAt": t.CreatedAt,
			"draft": t.State == "draft", "to": t.To, "cc": t.CC, "bcc": t.BCC}
		if t.CreatedBy.Type == "user" && users[t.CreatedBy.ID] {
			th["user"] = t.CreatedBy.ID
		}
		if t.Customer != nil && t.Customer.Email != "" {
			th["customer"] = map[string]any{"email": t.Customer.Email}
		}
		out = append(out, th)
	}
	if len(out) == 0 {
		return 0, errors.New("no threads to import")
	}
	customer := map[string]any{}
	if c.PrimaryCustomer.Email != "" {
		customer["email"] = c.PrimaryCustomer.Email
	}
	if c.PrimaryCustomer.First != "" {
		customer["firstName"] = c.PrimaryCustomer.First
	}
	if c.PrimaryCustomer.Last != "" {
		customer["lastName"] = c.PrimaryCustomer.Last
	}
	status := c.Status
	if status == "spam" || status == "open" {
		status = "active"
	}
	body := map[string]any{"subject": c.Subject, "type": c.Type, "mailboxId": c.MailboxID, "status": status,
		"customer": customer, "threads": out, "imported": true, "createdAt": c.CreatedAt}
	if c.ClosedAt != "" {
		body["closedAt"] = c.ClosedAt
	}
	var tags []string
	for _, t := range c.Tags {
		tags = append(tags, t.Tag)
	}
	body["tags"] = tags
	// The domain refuses assignTo 1 (Help Scout's docs: "a positive integer larger
	// than 1"): such a conversation is imported unassigned.
	if c.Assignee != nil && c.Assignee.Type == "user" && users[c.Assignee.ID] && c.Assignee.ID > 1 {
		body["assignTo"] = c.Assignee.ID
	}
	var n int
	_, err := db.Update(context.Background(), func(tx parley.Tx) error {
		fields, err := mapFields(tx, caller.Company.ID, c)
		if err != nil {
			return err
		}
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		b["fields"] = fields
		var req parley.NewConversation
		if err := remarshal(b, &req); err != nil {
			return err
		}
		req.Keep = &parley.Identity{ID: c.ID, Number: c.Number}
		if err := req.Validate(); err != nil {
			return err
		}
		if _, err := parley.CreateConversation(tx, caller, &req, parley.EICARScanner{}, now); err != nil {
			return err
		}
		n = len(out)
		return nil
	})
	return n, Describe(err)
}

// mapFields maps custom field values to the target mailbox's fields by
// name (dropdowns by option label), so exports of other systems work.
func mapFields(tx parley.Tx, companyID int64, c *Conversation) ([]map[string]any, error) {
	if len(c.CustomFields) == 0 {
		return nil, nil
	}
	m, err := tx.Mailbox(companyID, c.MailboxID)
	if err != nil {
		return nil, fmt.Errorf("mailbox %d: %w", c.MailboxID, err)
	}
	var out []map[string]any
	for _, v := range c.CustomFields {
		for _, def := range m.Fields {
			if !(def.Name == v.Name || v.Name == "" && def.ID == v.ID) {
				continue
			}
			value := v.Value
			if def.Type == parley.FieldDropdown {
				for _, o := range def.Options {
					if o.Label == v.Text {
						value = strconv.FormatInt(o.ID, 10)
					}
				}
			}
			out = append(out, map[string]any{"id": def.ID, "value": value})
		}
	}
	return out, nil
}

func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// Describe flattens a domain error with its field problems into one line.
func Describe(err error) error {
	var e *parley.Error
	if err == nil || !errors.As(err, &e) || len(e.Errors) == 0 {
		return err
	}
	msg := e.Message
	for _, f := range e.Errors {
		msg += fmt.Sprintf("; %s: %s", f.Path, f.Message)
	}
	return errors.New(msg)
}
