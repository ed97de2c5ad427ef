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
	// Wrote, when set, is called in the write that creates a record, or
	// that finds a customer or conversation already there, with its kind
	// ("customer", "conversation", "thread" or "attachment"), its id in the
	// export and its id in the company: the map a later run reads to know
	// what it holds (parley pull keeps it).
	Wrote Wrote
}

// Wrote notes, in the write that made it, the id a record of the export
// has in the company.
type Wrote func(tx parley.Tx, kind string, exportID, id int64) error

// note calls w unless it is nil.
func (w Wrote) note(tx parley.Tx, kind string, exportID, id int64) error {
	if w == nil {
		return nil
	}
	return w(tx, kind, exportID, id)
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
// numbers them as the export did. Records are written batchSize to a
// transaction (inBatches); a record the domain refuses is counted in
// Failures, written nothing, and the import goes on.
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
	var users map[int64]bool
	err = db.View(context.Background(), func(tx parley.Tx) (err error) {
		users, err = ActiveUsers(tx, caller.Company.ID)
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
	created := make([]bool, len(e.Customers))
	inBatches(db, len(e.Customers), func(tx parley.Tx, from, to int) error {
		for i := from; i < to; i++ {
			var err error
			if created[i], err = importCustomer(tx, caller.Company.ID, &e.Customers[i], opt.Wrote, opt.Now()); err != nil {
				return err
			}
		}
		return nil
	}, func(i int, err error) {
		switch {
		case err != nil:
			s.Failures = append(s.Failures, Failure{Kind: "customer", ID: e.Customers[i].ID, Err: Describe(err).Error()})
		case created[i]:
			s.CustomersCreated++
		default:
			s.CustomersSkipped++
		}
		step()
	})
	// A conversation is there already when one like it is stored or comes
	// earlier in the export; pending holds those of the transaction under
	// way, which count once it commits.
	threads := make([]int, len(convs)) // -1: there already
	ids := make([]int64, len(convs))
	key := func(c *Conversation) string {
		return conversationKey(c.MailboxID, c.CreatedAt, c.Subject, c.PrimaryCustomer.Email)
	}
	inBatches(db, len(convs), func(tx parley.Tx, from, to int) error {
		pending := map[string]int64{}
		for i := from; i < to; i++ {
			c := &convs[i]
			id, there := seen[key(c)]
			if !there {
				id, there = pending[key(c)]
			}
			if there {
				threads[i], ids[i] = -1, id
				if err := noteThere(tx, caller.Company.ID, c, id, opt.Wrote); err != nil {
					return err
				}
				continue
			}
			var err error
			if threads[i], ids[i], err = importConversation(tx, caller, users, c, opt.Wrote, opt.Now()); err != nil {
				return err
			}
			pending[key(c)] = ids[i]
		}
		return nil
	}, func(i int, err error) {
		switch {
		case err != nil:
			s.Failures = append(s.Failures, Failure{Kind: "conversation", ID: convs[i].ID, Err: Describe(err).Error()})
		case threads[i] < 0:
			s.ConversationsSkipped++
		default:
			s.ConversationsCreated++
			s.ThreadsCreated += threads[i]
			seen[key(&convs[i])] = ids[i]
		}
		step()
	})
	return s, nil
}

// batchSize is how many records an import writes in one transaction:
// each commit is an fsync, and one record to a transaction left a load
// waiting on the disk (137 conversations a second, 5 s of CPU in 27 s).
const batchSize = 250

// inBatches writes records 0 to n, batchSize to a transaction: run writes
// those in [from, to) and stops at the first error. A batch that fails is
// written again one record to a transaction, so a refused record costs
// only itself and every other is written as it would be alone. settle is
// told each record's outcome, in order, once its transaction ended.
func inBatches(db parley.Store, n int, run func(tx parley.Tx, from, to int) error, settle func(i int, err error)) {
	for from := 0; from < n; from += batchSize {
		to := min(from+batchSize, n)
		_, err := db.Update(context.Background(), func(tx parley.Tx) error { return run(tx, from, to) })
		if err == nil {
			for i := from; i < to; i++ {
				settle(i, nil)
			}
			continue
		}
		for i := from; i < to; i++ {
			_, err := db.Update(context.Background(), func(tx parley.Tx) error { return run(tx, i, i+1) })
			settle(i, err)
		}
	}
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

// ActiveUsers tells, for each user of the company, whether it is active:
// threads and assignments go to active users only.
func ActiveUsers(tx parley.Tx, companyID int64) (map[int64]bool, error) {
	users := map[int64]bool{}
	all, err := tx.Users(companyID)
	for _, u := range all {
		users[u.ID] = u.Active
	}
	return users, err
}

// existingConversations maps the key of each conversation of the company
// to its id.
func existingConversations(db parley.Store, companyID int64) (map[string]int64, error) {
	seen := map[string]int64{}
	err := db.View(context.Background(), func(tx parley.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if c.CompanyID != companyID || c.State == parley.StateDeleted {
				return nil
			}
			email := ""
			if cu, err := tx.Customer(companyID, c.CustomerID); err == nil {
				email = cu.PrimaryEmail()
			}
			seen[conversationKey(c.MailboxID, parley.FormatTime(c.CreatedAt), c.Subject, email)] = c.ID
			return nil
		})
	})
	return seen, err
}

// noteThere tells wrote the conversation (and its threads) a previous
// import wrote, found by its key.
func noteThere(tx parley.Tx, companyID int64, c *Conversation, id int64, wrote Wrote) error {
	if wrote == nil {
		return nil
	}
	if err := wrote(tx, "conversation", c.ID, id); err != nil {
		return err
	}
	_, err := noteThreads(tx, companyID, id, Importable(c.Embedded.Threads), wrote)
	return err
}

// importCustomer creates a customer unless one of its e-mails is taken.
func importCustomer(tx parley.Tx, companyID int64, c *Customer, wrote Wrote, now time.Time) (bool, error) {
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
		return false, err
	}
	for _, e := range c.Embedded.Emails {
		if had, err := tx.CustomerByEmail(companyID, e.Value); err == nil {
			return false, wrote.note(tx, "customer", c.ID, had.ID)
		}
	}
	made, err := parley.CreateCustomer(tx, companyID, &req, now)
	if err != nil {
		return false, err
	}
	return true, wrote.note(tx, "customer", c.ID, made.ID)
}

// importConversation creates a conversation with its threads, oldest
// first, as imported.
// Authors and assignees that are not active users of the company become
// the importing owner, and no assignee.
func importConversation(tx parley.Tx, caller parley.Caller, users map[int64]bool, c *Conversation, wrote Wrote, now time.Time) (int, int64, error) {
	threads := Importable(c.Embedded.Threads)
	var out []map[string]any
	for _, t := range threads {
		kind := t.Type
		if kind == "message" {
			kind = "reply"
		}
		th := map[string]any{"type": kind, "text": t.Body, "createdAt": t.CreatedAt,
			"draft": t.State == "draft", "to": t.To, "cc": t.CC, "bcc": t.BCC, "attachments": attachmentInputs(&t)}
		if t.CreatedBy.Type == "user" && users[t.CreatedBy.ID] {
			th["user"] = t.CreatedBy.ID
		}
		if t.Customer != nil && t.Customer.Email != "" {
			th["customer"] = map[string]any{"email": t.Customer.Email}
		}
		out = append(out, th)
	}
	if len(out) == 0 {
		return 0, 0, errors.New("no threads to import")
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
	fields, err := mapFields(tx, caller.Company.ID, c)
	if err != nil {
		return 0, 0, err
	}
	body["fields"] = fields
	var req parley.NewConversation
	if err := remarshal(body, &req); err != nil {
		return 0, 0, err
	}
	req.Keep = &parley.Identity{ID: c.ID, Number: c.Number}
	if err := req.Validate(); err != nil {
		return 0, 0, err
	}
	made, err := parley.CreateConversation(tx, caller, &req, parley.EICARScanner{}, now)
	if err != nil {
		return 0, 0, err
	}
	if err := wrote.note(tx, "conversation", c.ID, made.ID); err != nil {
		return 0, 0, err
	}
	pairs, err := noteThreads(tx, made.CompanyID, made.ID, threads, wrote)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range pairs {
		if err := rate(tx, caller, made.ID, p.id, p.from.Rating); err != nil {
			return 0, 0, err
		}
	}
	return len(out), made.ID, nil
}

// Importable sorts a conversation's threads oldest first and leaves out
// the line items (status and assignment history: derived, not imported).
func Importable(all []Thread) []Thread {
	var threads []Thread
	for _, t := range all {
		if t.Type != "lineitem" {
			threads = append(threads, t)
		}
	}
	sort.SliceStable(threads, func(i, j int) bool {
		if threads[i].CreatedAt != threads[j].CreatedAt {
			return threads[i].CreatedAt < threads[j].CreatedAt
		}
		return threads[i].ID < threads[j].ID
	})
	return threads
}

// attachmentInputs are the attachments of a thread that carry their file.
func attachmentInputs(t *Thread) []parley.AttachmentInput {
	out := []parley.AttachmentInput{}
	for _, a := range t.Embedded.Attachments {
		if a.Data != "" {
			out = append(out, parley.AttachmentInput{FileName: &a.FileName, MimeType: &a.MimeType, Data: &a.Data})
		}
	}
	return out
}

// threadPair is a thread of the export and the company's thread it is.
type threadPair struct {
	from *Thread
	id   int64
}

// noteThreads pairs the export's threads (importable, oldest first) with
// the conversation's by creation time, in order, and tells wrote each
// pair and their attachments (those with a file, in order).
func noteThreads(tx parley.Tx, companyID, convID int64, threads []Thread, wrote Wrote) ([]threadPair, error) {
	have, err := tx.Threads(companyID, convID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(have, func(i, j int) bool {
		if !have[i].CreatedAt.Equal(have[j].CreatedAt) {
			return have[i].CreatedAt.Before(have[j].CreatedAt)
		}
		return have[i].ID < have[j].ID
	})
	used := map[int64]bool{}
	var pairs []threadPair
	for i := range threads {
		t := &threads[i]
		for _, h := range have {
			if h.Type == parley.ThreadLineItem || used[h.ID] || parley.FormatTime(h.CreatedAt) != t.CreatedAt {
				continue
			}
			used[h.ID] = true
			pairs = append(pairs, threadPair{from: t, id: h.ID})
			if err := noteThread(tx, t, &h, wrote); err != nil {
				return nil, err
			}
			break
		}
	}
	return pairs, nil
}

// noteThread tells wrote a thread of the export and its attachments.
func noteThread(tx parley.Tx, from *Thread, to *parley.Thread, wrote Wrote) error {
	if err := wrote.note(tx, "thread", from.ID, to.ID); err != nil {
		return err
	}
	var files []Attachment
	for _, a := range from.Embedded.Attachments {
		if a.Data != "" {
			files = append(files, a)
		}
	}
	for i := range min(len(files), len(to.Attachments)) {
		if err := wrote.note(tx, "attachment", files[i].ID, to.Attachments[i]); err != nil {
			return err
		}
	}
	return nil
}

// rate records a reply's rating as the export dates it.
func rate(tx parley.Tx, caller parley.Caller, convID, threadID int64, r *Rating) error {
	if r == nil || r.Rating == "" {
		return nil
	}
	at, ok := parley.ParseTime(r.CreatedAt)
	if !ok {
		return fmt.Errorf("thread %d: the rating's createdAt %q is no time", threadID, r.CreatedAt)
	}
	return parley.RateThread(tx, caller, convID, threadID, &parley.RatingInput{Rating: &r.Rating, Comments: &r.Comments}, at)
}

// AddThread adds a thread of the export to a conversation of the company,
// as imported (dated as the export dates it: it sends nothing and reopens
// nothing), with its attachments and rating, and tells wrote the thread
// and its attachments. users are the company's users, by whether active.
func AddThread(tx parley.Tx, caller parley.Caller, convID int64, users map[int64]bool, t *Thread, wrote Wrote, now time.Time) error {
	r := &parley.ThreadRequest{Text: &t.Body, Imported: true, CreatedAt: &t.CreatedAt, Draft: t.State == "draft",
		To: t.To, CC: t.CC, BCC: t.BCC, Attachments: attachmentInputs(t)}
	if t.CreatedBy.Type == "user" && users[t.CreatedBy.ID] {
		r.User = &t.CreatedBy.ID
	}
	if t.Customer != nil && t.Customer.Email != "" {
		r.Customer = &parley.CustomerInput{Email: &t.Customer.Email}
	}
	kind := parley.ThreadType(t.Type)
	if err := r.Validate(kind); err != nil {
		return err
	}
	made, err := parley.AddThread(tx, caller, convID, kind, r, parley.EICARScanner{}, now)
	if err != nil {
		return err
	}
	if err := noteThread(tx, t, made, wrote); err != nil {
		return err
	}
	return rate(tx, caller, convID, made.ID, t.Rating)
}

// FieldValues maps a conversation's custom field values to the company's
// mailbox fields, as an import sets them.
func FieldValues(tx parley.Tx, companyID int64, c *Conversation) ([]parley.FieldValueInput, error) {
	fields, err := mapFields(tx, companyID, c)
	if err != nil {
		return nil, err
	}
	out := []parley.FieldValueInput{}
	return out, remarshal(fields, &out)
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
