package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ThreadRequest is a request to add one thread to a conversation (POST
// .../reply, /notes, /customer, /phones, /chats).
type ThreadRequest struct {
	Text        *string           `json:"text"`
	Customer    *CustomerInput    `json:"customer"`
	Draft       bool              `json:"draft"`
	Imported    bool              `json:"imported"`
	Status      *string           `json:"status"`
	User        *int64            `json:"user"`
	AssignTo    Nullable[int64]   `json:"assignTo,omitzero"`
	To          []string          `json:"to"`
	CC          []string          `json:"cc"`
	BCC         []string          `json:"bcc"`
	CreatedAt   *string           `json:"createdAt"`
	Attachments []AttachmentInput `json:"attachments"`
	// SavedReplyID records the saved reply of the conversation's mailbox
	// the thread was written from.
	SavedReplyID *int64 `json:"savedReplyId"`
}

// ThreadStatuses are the statuses a thread request may set.
var ThreadStatuses = []string{"active", "closed", "pending", "spam"}

// Validate checks the request for a thread type.
func (r *ThreadRequest) Validate(kind ThreadType) error {
	p := &Problems{}
	if r.Text == nil {
		p.Add("text", CodeNullValue, "may not be null", nil)
	} else if strings.TrimSpace(*r.Text) == "" {
		p.Add("text", CodeEmptyValue, "may not be empty", *r.Text)
	}
	if r.Status != nil && !slices.Contains(ThreadStatuses, *r.Status) {
		p.Add("status", CodeEnumValue, "must be one of: "+strings.Join(ThreadStatuses, ", "), *r.Status)
	}
	checkTime(p, "createdAt", r.CreatedAt)
	if r.CreatedAt != nil && !r.Imported {
		p.Add("createdAt", CodeImportedThread, "createdAt is only allowed when imported is true", *r.CreatedAt)
	}
	switch {
	case r.Customer != nil:
		r.Customer.Validate(p, "customer.")
	case kind == ThreadCustomer || kind == ThreadChat:
		// Help Scout's docs mark it required: the thread is written by
		// the customer it names, never silently by the primary one.
		p.Add("customer", CodeNullValue, "may not be null: name the customer who wrote the thread (id or email)", nil)
	}
	if r.User != nil && *r.User <= 0 {
		p.Add("user", CodeInvalidID, "must be a positive identifier", *r.User)
	}
	if r.AssignTo.Set && !r.AssignTo.Null && r.AssignTo.Value <= 1 {
		p.Add("assignTo", CodeInvalidNumber, "must be a positive integer larger than 1", r.AssignTo.Value)
	}
	for _, list := range []struct {
		name string
		v    []string
	}{{"to", r.To}, {"cc", r.CC}, {"bcc", r.BCC}} {
		for i, a := range list.v {
			if !ValidEmail(a) {
				p.Add(fmt.Sprintf("%s[%d]", list.name, i), CodeEmail, EmailRule, a)
			}
		}
	}
	for i := range r.Attachments {
		r.Attachments[i].validate(p, fmt.Sprintf("attachments[%d].", i))
	}
	return p.Err()
}

// LoadConversation loads a conversation the caller may read and change: of
// its company, in a mailbox it can access, neither deleted nor merged. A
// conversation merged away answers Moved (301, Location of the target) for
// MergeRedirect after the merge, then not found.
func LoadConversation(tx Tx, caller Caller, id int64, now time.Time) (*Conversation, error) {
	c, err := tx.Conversation(caller.Company.ID, id)
	if err != nil {
		return nil, err
	}
	if c.MergedInto != 0 && c.MergedAt != nil && now.Before(c.MergedAt.Add(MergeRedirect)) {
		return nil, &Error{Kind: KindMoved, Message: "conversation merged", MergedInto: c.MergedInto}
	}
	if c.State == StateDeleted || !caller.User.CanAccessMailbox(c.MailboxID) {
		return nil, NotFound("conversation")
	}
	return c, nil
}

// AddThread applies the rules of adding a thread: the 100-thread limit, the
// company's lock on old conversations, the author, reopening a closed
// conversation on a customer-kind thread (unless imported), the inbox's
// status for a reply sent without one, unsnoozing and cancelling scheduled
// threads on a customer reply, then the derived fields. It returns the
// stored thread.
func AddThread(tx Tx, caller Caller, convID int64, kind ThreadType, r *ThreadRequest, scan Scanner, now time.Time) (*Thread, error) {
	if r.Imported {
		tx = silent{tx}
	}
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return nil, err
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return nil, err
	}
	if err := checkLocks(caller.Company, c, threads, now); err != nil {
		return nil, err
	}
	mailbox, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return nil, err
	}
	t := Thread{ConversationID: c.ID, CompanyID: c.CompanyID, Type: kind, State: ThreadPublished, Body: *r.Text,
		To: normalizeAll(r.To), CC: normalizeAll(r.CC), BCC: normalizeAll(r.BCC), CreatedAt: now, Imported: r.Imported}
	if r.CreatedAt != nil {
		t.CreatedAt, _ = ParseTime(*r.CreatedAt)
	}
	if r.Draft {
		t.State = ThreadDraft
	}
	if r.SavedReplyID != nil {
		if _, err := tx.SavedReply(c.CompanyID, c.MailboxID, *r.SavedReplyID); err != nil {
			if IsNotFound(err) {
				return nil, InvalidField("savedReplyId", CodeInvalidID, "no saved reply with this id in the conversation's mailbox", *r.SavedReplyID)
			}
			return nil, err
		}
		t.SavedReplyID = *r.SavedReplyID
	}
	customer, err := threadCustomer(tx, c, r.Customer, now)
	if err != nil {
		return nil, err
	}
	t.CustomerID = customer.ID
	if kind == ThreadCustomer || kind == ThreadChat {
		t.CreatedBy = Party{ID: customer.ID, Type: PartyCustomer}
	} else {
		author, err := resolveAuthor(tx, caller, r.User)
		if err != nil {
			return nil, err
		}
		t.CreatedBy = Party{ID: author.ID, Type: PartyUser}
	}
	before, was := c.Status, *c
	if err := applyThreadEffects(tx, c, mailbox, &t, r, threads, now); err != nil {
		return nil, err
	}
	t.Status = statusChange(before, c.Status)
	if err := tx.PutThread(&t); err != nil { // assigns the id attachments refer to
		return nil, err
	}
	if len(r.Attachments) > 0 {
		if t.Attachments, err = StoreAttachments(tx, &t, r.Attachments, scan); err != nil {
			return nil, err
		}
		if err := tx.PutThread(&t); err != nil {
			return nil, err
		}
	}
	if err := queueReply(tx, c, &t, now); err != nil {
		return nil, err
	}
	if err := saveWithThreads(tx, c, mailbox, now); err != nil {
		return nil, err
	}
	if err := emitThreadAdded(tx, was, c, &t, now); err != nil {
		return nil, err
	}
	actor := int64(0)
	if t.CreatedBy.Type == PartyUser {
		actor = t.CreatedBy.ID
	}
	return &t, notifyChanges(tx, actor, was, c, &t, now)
}

// checkLocks refuses a thread on a full conversation, or on an old one
// when the company forbids updating old conversations.
func checkLocks(company *Company, c *Conversation, threads []Thread, now time.Time) error {
	n := 0
	for _, t := range threads {
		if t.Type != ThreadLineItem {
			n++
		}
	}
	if n >= MaxThreads-1 {
		return Locked(CodeTooManyThreads, fmt.Sprintf("the conversation has %d threads; at most %d are allowed", n, MaxThreads))
	}
	if company.LockAfterDays > 0 && now.Sub(c.CreatedAt) > time.Duration(company.LockAfterDays)*24*time.Hour {
		return Locked(CodeTooOld, fmt.Sprintf("the company forbids updating conversations older than %d days", company.LockAfterDays))
	}
	return nil
}

// threadCustomer is the customer a thread is from or to: the one named in
// the request (found or created by e-mail), else the primary customer.
func threadCustomer(tx Tx, c *Conversation, in *CustomerInput, now time.Time) (*Customer, error) {
	if in != nil && (in.ID != nil || in.Email != nil) {
		return findOrCreateCustomer(tx, c.CompanyID, in, "customer", now)
	}
	return tx.Customer(c.CompanyID, c.CustomerID)
}

// applyThreadEffects changes the conversation as the new thread demands.
func applyThreadEffects(tx Tx, c *Conversation, m *Mailbox, t *Thread, r *ThreadRequest, threads []Thread, now time.Time) error {
	if t.State == ThreadDraft {
		return nil // a draft changes nothing until it is published
	}
	customerKind := t.Type.IsCustomerKind()
	switch {
	case r.Status != nil:
		setStatus(c, Status(*r.Status), t.CreatedBy.ID, now)
	case customerKind && c.Status == StatusClosed && !t.Imported:
		setStatus(c, StatusActive, 0, now) // Help Scout's docs: a customer thread reopens
	case t.Type == ThreadMessage && m.DefaultStatus != "":
		setStatus(c, m.DefaultStatus, t.CreatedBy.ID, now)
	}
	if r.AssignTo.Set && t.Type != ThreadCustomer && t.Type != ThreadChat {
		if err := assign(tx, c, m, r.AssignTo); err != nil {
			return err
		}
		t.AssignedTo = c.Assignee
	}
	if customerKind && t.CreatedBy.Type == PartyCustomer && !t.Imported {
		if c.Snooze != nil && c.Snooze.UnsnoozeOnCustomerReply {
			c.Snooze = nil
			if err := tx.DeleteLater(c.CompanyID, LaterSnooze, c.ID); err != nil {
				return err
			}
		}
		if err := cancelSchedulesOnReply(tx, threads); err != nil {
			return err
		}
	}
	c.CC = appendUnique(c.CC, t.CC...)
	c.BCC = appendUnique(c.BCC, t.BCC...)
	return nil
}

// setStatus changes the status, recording who closed and when.
func setStatus(c *Conversation, s Status, by int64, now time.Time) {
	if c.Status == s {
		return
	}
	c.Status = s
	if s == StatusClosed {
		c.ClosedAt, c.ClosedBy = &now, by
	} else {
		c.ClosedAt, c.ClosedBy = nil, 0
	}
}

// statusChange is a thread's `status`: the status it set, or `nochange`.
func statusChange(before, after Status) Status {
	if before == after {
		return StatusNoChange
	}
	return after
}

// StatusNoChange is the status of a thread that did not change the
// conversation's status.
const StatusNoChange Status = "nochange"

// saveWithThreads re-derives a conversation from its stored threads and
// stores it.
func saveWithThreads(tx Tx, c *Conversation, m *Mailbox, now time.Time) error {
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return err
	}
	c.Derive(threads)
	c.PlaceInFolder(m)
	c.ModifiedAt = now
	return tx.PutConversation(c)
}

// loadThread loads a conversation the caller may change and one of its
// threads.
func loadThread(tx Tx, caller Caller, convID, threadID int64, now time.Time) (*Conversation, *Thread, error) {
	c, err := LoadConversation(tx, caller, convID, now)
	if err != nil {
		return nil, nil, err
	}
	t, err := findThread(tx, c, threadID)
	return c, t, err
}

// findThread finds a thread of a conversation.
func findThread(tx Tx, c *Conversation, threadID int64) (*Thread, error) {
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return nil, err
	}
	for i := range threads {
		if threads[i].ID == threadID {
			return &threads[i], nil
		}
	}
	return nil, NotFound("thread")
}
