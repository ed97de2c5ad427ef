package parley

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NewConversation is a Create Conversation request, decoded but not yet
// validated. Pointers distinguish absent from zero.
type NewConversation struct {
	Subject   *string           `json:"subject"`
	Type      *string           `json:"type"`
	MailboxID *int64            `json:"mailboxId"`
	Status    *string           `json:"status"`
	Customer  *CustomerInput    `json:"customer"`
	Threads   []NewThread       `json:"threads"`
	AutoReply bool              `json:"autoReply"`
	Imported  bool              `json:"imported"`
	AssignTo  Nullable[int64]   `json:"assignTo,omitzero"`
	CreatedAt *string           `json:"createdAt"`
	ClosedAt  *string           `json:"closedAt"`
	Tags      []string          `json:"tags"`
	Fields    []FieldValueInput `json:"fields"`
	User      *int64            `json:"user"`
	// Keep is set by an import only (never read from a request): the id
	// and number the conversation had, kept when free.
	Keep *Identity `json:"-"`
}

// Identity is the id and number a record had in another system. An import
// keeps the id when no record holds it and the number when the company has
// not used it; otherwise the record gets new ones.
type Identity struct {
	ID, Number int64
}

// NewThread is one thread of a Create Conversation request.
type NewThread struct {
	Type      *string        `json:"type"`
	Text      *string        `json:"text"`
	Customer  *CustomerInput `json:"customer"`
	CreatedAt *string        `json:"createdAt"`
	Draft     bool           `json:"draft"`
	User      *int64         `json:"user"`
	To        []string       `json:"to"`
	CC        []string       `json:"cc"`
	BCC       []string       `json:"bcc"`
	// Attachments are stored with the thread, under the same rules as
	// POST .../threads/{threadId}/attachments.
	Attachments []AttachmentInput `json:"attachments"`
}

// FieldValueInput is a custom field value in a request.
type FieldValueInput struct {
	ID    *int64  `json:"id"`
	Value *string `json:"value"`
}

// MaxTagLength bounds a tag name.
const MaxTagLength = 255

// MaxTags bounds the tags of one request and of one conversation: each tag
// is a record and a key, so an unbounded list is an unbounded write.
const MaxTags = 100

// checkTagNames checks a request's tag list: at most MaxTags names, each
// non-empty and at most MaxTagLength bytes.
func checkTagNames(p *Problems, names []string) {
	if len(names) > MaxTags {
		p.Add("tags", CodeSize, fmt.Sprintf("at most %d tags are allowed", MaxTags), len(names))
		return
	}
	for i, t := range names {
		path := fmt.Sprintf("tags[%d]", i)
		if NormalizeTagName(t) == "" {
			p.Add(path, CodeEmptyValue, "may not be empty", t)
		} else if len(t) > MaxTagLength {
			p.Add(path, CodeSize, sizeMessage(1, MaxTagLength), t)
		}
	}
}

// MaxSubjectLength bounds a subject.
const MaxSubjectLength = 998

// Validate checks everything that needs no stored record. The 100-thread
// limit is a 412, not a validation error, so it is checked after.
func (n *NewConversation) Validate() error {
	p := &Problems{}
	requireString(p, "subject", n.Subject, MaxSubjectLength)
	requireEnum(p, "type", n.Type, ConversationTypes)
	requireEnum(p, "status", n.Status, CreateStatuses)
	switch {
	case n.MailboxID == nil:
		p.Add("mailboxId", CodeNullValue, "may not be null", nil)
	case *n.MailboxID <= 0:
		p.Add("mailboxId", CodeInvalidID, "must be a positive identifier", *n.MailboxID)
	}
	switch {
	case n.Customer == nil:
		p.Add("customer", CodeNullValue, "may not be null", nil)
	case n.Customer.ID == nil && n.Customer.Email == nil:
		p.Add("customer", CodeEmptyValue, "must have an id or an email", nil)
	default:
		n.Customer.Validate(p, "customer.")
	}
	if n.AssignTo.Set && !n.AssignTo.Null && n.AssignTo.Value <= 1 {
		p.Add("assignTo", CodeInvalidNumber, "must be a positive integer larger than 1", n.AssignTo.Value)
	}
	checkTime(p, "createdAt", n.CreatedAt)
	checkTime(p, "closedAt", n.ClosedAt)
	if n.ClosedAt != nil && !n.Imported {
		p.Add("closedAt", CodeImportedThread, "closedAt is only allowed when imported is true", *n.ClosedAt)
	}
	if n.User != nil && *n.User <= 0 {
		p.Add("user", CodeInvalidID, "must be a positive identifier", *n.User)
	}
	if n.Threads == nil {
		p.Add("threads", CodeNullValue, "may not be null", nil)
	} else if len(n.Threads) == 0 {
		p.Add("threads", CodeEmptyValue, "must hold at least one thread", []any{})
	}
	for i := range n.Threads {
		n.Threads[i].validate(p, fmt.Sprintf("threads[%d].", i), n.Imported)
	}
	checkTagNames(p, n.Tags)
	for i, f := range n.Fields {
		path := fmt.Sprintf("fields[%d].", i)
		if f.ID == nil {
			p.Add(path+"id", CodeNullValue, "may not be null", nil)
		} else if *f.ID <= 0 {
			p.Add(path+"id", CodeInvalidID, "must be a positive identifier", *f.ID)
		}
		if f.Value == nil {
			p.Add(path+"value", CodeNullValue, "may not be null", nil)
		}
	}
	return p.Err()
}

func (t *NewThread) validate(p *Problems, prefix string, imported bool) {
	requireEnum(p, prefix+"type", t.Type, RequestThreadTypes)
	if t.Text == nil {
		p.Add(prefix+"text", CodeNullValue, "may not be null", nil)
	} else if strings.TrimSpace(*t.Text) == "" {
		p.Add(prefix+"text", CodeEmptyValue, "may not be empty", *t.Text)
	}
	checkTime(p, prefix+"createdAt", t.CreatedAt)
	if t.CreatedAt != nil && !imported {
		p.Add(prefix+"createdAt", CodeImportedThread, "createdAt is only allowed on threads when imported is true", *t.CreatedAt)
	}
	if t.Customer != nil {
		t.Customer.Validate(p, prefix+"customer.")
	}
	if t.User != nil && *t.User <= 0 {
		p.Add(prefix+"user", CodeInvalidID, "must be a positive identifier", *t.User)
	}
	for _, list := range []struct {
		name string
		v    []string
	}{{"to", t.To}, {"cc", t.CC}, {"bcc", t.BCC}} {
		for i, a := range list.v {
			if !ValidEmail(a) {
				p.Add(fmt.Sprintf("%s%s[%d]", prefix, list.name, i), CodeEmail, EmailRule, a)
			}
		}
	}
	for i := range t.Attachments {
		t.Attachments[i].validate(p, fmt.Sprintf("%sattachments[%d].", prefix, i))
	}
}

// storeNewThreadAttachments stores the attachments sent with the threads
// of a new conversation, once the threads have ids, and derives the
// conversation again (hasAttachments).
func storeNewThreadAttachments(tx Tx, c *Conversation, threads []Thread, inputs []NewThread, scan Scanner) error {
	stored := false
	for i := range threads {
		if len(inputs[i].Attachments) == 0 {
			continue
		}
		ids, err := StoreAttachments(tx, &threads[i], inputs[i].Attachments, scan)
		if err != nil {
			return err
		}
		threads[i].Attachments, stored = ids, true
		if err := tx.PutThread(&threads[i]); err != nil {
			return err
		}
	}
	if !stored {
		return nil
	}
	c.Derive(threads)
	return tx.PutConversation(c)
}

// CreateConversation applies Help Scout's Create Conversation rules within tx:
// finds or creates the customer, resolves the assignee, tags and custom
// fields, stores the conversation and its threads, and derives its fields.
// caller is the token owner; n must have passed Validate. scan inspects
// the threads' attachments (nil: none is scanned).
func CreateConversation(tx Tx, caller Caller, n *NewConversation, scan Scanner, now time.Time) (*Conversation, error) {
	if len(n.Threads) > MaxThreads {
		return nil, Locked(CodeTooManyThreads, fmt.Sprintf("a conversation holds at most %d threads", MaxThreads))
	}
	if n.Imported {
		tx = silent{tx}
	}
	companyID := caller.Company.ID
	author, err := resolveAuthor(tx, caller, n.User)
	if err != nil {
		return nil, err
	}
	mailbox, err := tx.Mailbox(companyID, *n.MailboxID)
	if err == nil && !caller.User.CanAccessMailbox(mailbox.ID) {
		err = NotFound("mailbox")
	}
	if err != nil {
		if IsNotFound(err) {
			return nil, InvalidField("mailboxId", CodeInvalidID, "no mailbox with this id", *n.MailboxID)
		}
		return nil, err
	}
	customer, err := findOrCreateCustomer(tx, companyID, n.Customer, "customer", now)
	if err != nil {
		return nil, err
	}
	createdAt := now
	if n.CreatedAt != nil {
		createdAt, _ = ParseTime(*n.CreatedAt)
	}
	c := &Conversation{
		CompanyID:  companyID,
		Type:       ConversationType(*n.Type),
		MailboxID:  mailbox.ID,
		Status:     Status(*n.Status),
		State:      StatePublished,
		Subject:    strings.TrimSpace(*n.Subject),
		CreatedAt:  createdAt,
		ModifiedAt: now,
		CustomerID: customer.ID,
		Imported:   n.Imported,
		CC:         nil,
	}
	if err := assign(tx, c, mailbox, n.AssignTo); err != nil {
		return nil, err
	}
	if c.Status == StatusClosed {
		closedAt := now
		if n.ClosedAt != nil {
			closedAt, _ = ParseTime(*n.ClosedAt)
		}
		c.ClosedAt, c.ClosedBy = &closedAt, author.ID
	}
	if c.TagIDs, err = resolveTags(tx, companyID, n.Tags, now); err != nil {
		return nil, err
	}
	if c.CustomFields, err = ValidateFieldValues(mailbox, n.Fields); err != nil {
		return nil, err
	}
	threads := make([]Thread, 0, len(n.Threads))
	for i := range n.Threads {
		t, err := buildThread(tx, caller, author, customer, &n.Threads[i], i, createdAt, now)
		if err != nil {
			return nil, err
		}
		if t.State == ThreadDraft {
			c.State = StateDraft
		}
		c.CC = appendUnique(c.CC, t.CC...)
		c.BCC = appendUnique(c.BCC, t.BCC...)
		threads = append(threads, t)
	}
	first := threads[0]
	c.CreatedBy = first.CreatedBy
	c.Source = Source{Type: "api", Via: PartyUser}
	if first.CreatedBy.Type == PartyCustomer {
		c.Source.Via = PartyCustomer
	}
	c.Derive(threads)
	c.PlaceInFolder(mailbox)
	if n.Keep != nil {
		keepIdentity(tx, c, *n.Keep)
	}
	if err := tx.PutConversation(c); err != nil {
		return nil, err
	}
	for i := range threads {
		threads[i].ConversationID = c.ID
		if threads[i].Status == "" { // the threads made the conversation: they set its status
			threads[i].Status = c.Status
		}
		if err := tx.PutThread(&threads[i]); err != nil {
			return nil, err
		}
	}
	if err := storeNewThreadAttachments(tx, c, threads, n.Threads, scan); err != nil {
		return nil, err
	}
	if err := queueReplies(tx, c, threads, now); err != nil {
		return nil, err
	}
	if err := queueAutoReply(tx, n.AutoReply, c, mailbox, threads, now); err != nil {
		return nil, err
	}
	if c.State == StatePublished { // a draft is announced when published
		if err := emit(tx, EventConvoCreated, companyID, c.ID, now); err != nil {
			return nil, err
		}
		return c, notifyChanges(tx, author.ID, Conversation{}, c, nil, now)
	}
	return c, nil
}

// resolveAuthor returns who writes: the `user` named in the request, or the
// caller. A named user must exist in the company and be active; the error
// does not say which condition failed (Help Scout's docs, Invalid Thread Author).
func resolveAuthor(tx Tx, caller Caller, userID *int64) (*User, error) {
	if userID == nil || *userID == caller.User.ID {
		return caller.User, nil
	}
	u, err := tx.User(caller.Company.ID, *userID)
	if err != nil && !IsNotFound(err) {
		return nil, err
	}
	if err != nil || !u.Active {
		return nil, Forbidden(CodeInvalidThreadUser, "the user named in `user` cannot author threads")
	}
	return u, nil
}

// findOrCreateCustomer applies Create Conversation rules 1 and 2.
func findOrCreateCustomer(tx Tx, companyID int64, in *CustomerInput, path string, now time.Time) (*Customer, error) {
	if in.ID != nil {
		c, err := tx.Customer(companyID, *in.ID)
		if IsNotFound(err) {
			return nil, InvalidField(path+".id", CodeInvalidID, "no customer with this id", *in.ID)
		}
		return c, err
	}
	email := NormalizeEmail(*in.Email)
	c, err := tx.CustomerByEmail(companyID, email)
	if err == nil || !IsNotFound(err) {
		return c, err
	}
	c = in.NewCustomer(companyID, now)
	if err := LinkOrganization(tx, c, in.OrganizationID, in.Organization, path+".organizationId", now); err != nil {
		return nil, err
	}
	if err := tx.PutCustomer(c); err != nil {
		return nil, err
	}
	return c, emit(tx, EventCustomerCreated, companyID, c.ID, now)
}

// assign applies Create Conversation rule 3: absent follows the mailbox's
// routing when enabled, else its default assignee; null leaves unassigned;
// a value must be an active user.
func assign(tx Tx, c *Conversation, m *Mailbox, a Nullable[int64]) error {
	switch {
	case !a.Set:
		if routed, err := routeConversation(tx, c, m); routed || err != nil {
			return err
		}
		if m.DefaultAssigneeID != 0 {
			c.Assignee = &Party{ID: m.DefaultAssigneeID, Type: PartyUser}
		}
		return nil
	case a.Null:
		c.Assignee = nil
		return nil
	}
	u, err := tx.User(c.CompanyID, a.Value)
	if err != nil && !IsNotFound(err) {
		return err
	}
	if err != nil || !u.Active {
		return InvalidField("assignTo", CodeConversationOwner, "is not a user of the account", a.Value)
	}
	c.Assignee = &Party{ID: u.ID, Type: PartyUser}
	return nil
}

// resolveTags finds each named tag, creating it on first use.
func resolveTags(tx Tx, companyID int64, names []string, now time.Time) ([]int64, error) {
	var ids []int64
	for _, raw := range names {
		name := NormalizeTagName(raw)
		t, err := tx.TagByName(companyID, name)
		if IsNotFound(err) {
			t = &Tag{CompanyID: companyID, Name: name, Slug: TagSlug(name), Color: DefaultTagColor(name), CreatedAt: now, UpdatedAt: now}
			if err = tx.PutTag(t); err == nil {
				err = emit(tx, EventTagCreated, companyID, t.ID, now)
			}
		}
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, t.ID) {
			ids = append(ids, t.ID)
		}
	}
	return ids, nil
}

// ValidateFieldValues checks custom field values against the mailbox's
// definitions: the field must exist; dropdowns take an option id, numbers a
// number, dates YYYY-MM-DD.
func ValidateFieldValues(m *Mailbox, in []FieldValueInput) ([]FieldValue, error) {
	p := &Problems{}
	var out []FieldValue
	for i, f := range in {
		path := fmt.Sprintf("fields[%d]", i)
		def, ok := m.Field(*f.ID)
		if !ok {
			p.Add(path+".id", CodeInvalidID, "no custom field with this id in the mailbox", *f.ID)
			continue
		}
		v := strings.TrimSpace(*f.Value)
		if msg, code := checkFieldValue(def, v); msg != "" {
			p.Add(path+".value", code, msg, *f.Value)
			continue
		}
		out = append(out, FieldValue{ID: def.ID, Value: v})
	}
	return out, p.Err()
}

func checkFieldValue(def FieldDef, v string) (msg, code string) {
	switch def.Type {
	case FieldDropdown:
		id, err := strconv.ParseInt(v, 10, 64)
		if err == nil {
			for _, o := range def.Options {
				if o.ID == id {
					return "", ""
				}
			}
		}
		return "must be the id of an option of the dropdown", CodeValueNotSupported
	case FieldNumber:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return "must be a number", CodeInvalidNumber
		}
	case FieldDate:
		if _, err := time.Parse("2006-01-02", v); err != nil {
			return "must be a date YYYY-MM-DD", CodeMalformedDate
		}
	}
	return "", ""
}

// buildThread turns a request thread into a stored thread (not yet saved).
func buildThread(tx Tx, caller Caller, author *User, convCustomer *Customer, in *NewThread, i int, convCreated, now time.Time) (Thread, error) {
	typ := ThreadTypeFromRequest(*in.Type)
	t := Thread{
		CompanyID: caller.Company.ID,
		Type:      typ,
		State:     ThreadPublished,
		Body:      *in.Text,
		To:        normalizeAll(in.To),
		CC:        normalizeAll(in.CC),
		BCC:       normalizeAll(in.BCC),
		// Threads without their own time follow the conversation's, a
		// millisecond apart so their order is the order of the request.
		CreatedAt: convCreated.Add(time.Duration(i) * time.Millisecond),
	}
	if in.CreatedAt != nil {
		t.CreatedAt, _ = ParseTime(*in.CreatedAt)
		t.Imported = true
	}
	if in.Draft {
		t.State = ThreadDraft
	}
	customer := convCustomer
	if in.Customer != nil && (in.Customer.ID != nil || in.Customer.Email != nil) {
		var err error
		if customer, err = findOrCreateCustomer(tx, caller.Company.ID, in.Customer, fmt.Sprintf("threads[%d].customer", i), now); err != nil {
			return t, err
		}
	}
	t.CustomerID = customer.ID
	if typ == ThreadCustomer || typ == ThreadChat {
		t.CreatedBy = Party{ID: customer.ID, Type: PartyCustomer}
		return t, nil
	}
	writer := author
	if in.User != nil {
		u, err := resolveAuthor(tx, caller, in.User)
		if err != nil {
			return t, err
		}
		writer = u
	}
	t.CreatedBy = Party{ID: writer.ID, Type: PartyUser}
	return t, nil
}

func normalizeAll(list []string) []string {
	var out []string
	for _, s := range list {
		out = append(out, NormalizeEmail(s))
	}
	return out
}

func appendUnique(list []string, more ...string) []string {
	for _, s := range more {
		found := false
		for _, x := range list {
			found = found || x == s
		}
		if !found {
			list = append(list, s)
		}
	}
	return list
}

// ErrStop is returned by iteration callbacks to stop early without error.
var ErrStop = errors.New("stop")

// keepIdentity gives an imported conversation the id and number it had,
// when they are free.
func keepIdentity(tx Tx, c *Conversation, keep Identity) {
	if keep.ID > 0 && !tx.ConversationIDTaken(keep.ID) {
		c.ID = keep.ID
	}
	if keep.Number > 0 && !tx.ConversationNumberTaken(c.CompanyID, keep.Number) {
		c.Number = keep.Number
	}
}
