package parley

import (
	"fmt"
	"regexp"
	"time"
)

// NotifyPrefs says which events a user is told about by e-mail; a user
// without preferences (nil) gets every notification (the usual default of
// help desks).
type NotifyPrefs struct {
	Assigned        bool `json:"assigned"`        // a conversation was assigned to me
	CustomerReplied bool `json:"customerReplied"` // a customer replied to a conversation assigned to me
	Mentioned       bool `json:"mentioned"`       // someone @mentioned me in a note
}

// NotifyKind is an event users are told about by e-mail.
type NotifyKind string

// Notification kinds.
const (
	NotifyAssigned        NotifyKind = "assigned"
	NotifyCustomerReplied NotifyKind = "customer-replied"
	NotifyMentioned       NotifyKind = "mentioned"
)

// Wants reports whether the user takes notifications of a kind: an
// active user who did not turn the kind off.
func (u *User) Wants(kind NotifyKind) bool {
	if !u.Active || u.Email == "" {
		return false
	}
	p := u.Notify
	if p == nil {
		return true
	}
	switch kind {
	case NotifyAssigned:
		return p.Assigned
	case NotifyCustomerReplied:
		return p.CustomerReplied
	case NotifyMentioned:
		return p.Mentioned
	}
	return false
}

// SetNotifyPrefs replaces a user's notification preferences: users set
// their own, owners and administrators anyone's of the company.
func SetNotifyPrefs(tx Tx, caller Caller, userID int64, p NotifyPrefs, now time.Time) (*User, error) {
	if userID != caller.User.ID && !caller.User.IsAdmin() {
		return nil, Forbidden(CodeAccessDenied, "only owners and administrators change another user's notifications")
	}
	u, err := tx.User(caller.Company.ID, userID)
	if err != nil {
		return nil, err
	}
	u.Notify, u.UpdatedAt = &p, now
	return u, tx.PutUser(u)
}

// notifyChanges queues the notifications of a change to a published
// conversation made by actorID (0: a customer or the system): its new
// assignee is told, the assignee is told of a customer's reply, and the
// users @mentioned in a note are told. Nobody is told of their own act;
// imports tell nobody.
func notifyChanges(tx Tx, actorID int64, before Conversation, c *Conversation, t *Thread, now time.Time) error {
	if _, quiet := tx.(silent); quiet || c.State != StatePublished || c.Imported || (t != nil && (t.Imported || t.State != ThreadPublished)) {
		return nil
	}
	if a := c.Assignee; a != nil && a.Type == PartyUser && a.ID != actorID && !samePartyPtr(before.Assignee, a) {
		if err := notifyUser(tx, a.ID, NotifyAssigned, c, t, "Assigned to you", now); err != nil {
			return err
		}
	}
	if t == nil {
		return nil
	}
	if a := c.Assignee; a != nil && a.Type == PartyUser && t.Type == ThreadCustomer && t.CreatedBy.Type == PartyCustomer {
		if err := notifyUser(tx, a.ID, NotifyCustomerReplied, c, t, "The customer replied", now); err != nil {
			return err
		}
	}
	if t.Type != ThreadNote {
		return nil
	}
	users, err := tx.Users(c.CompanyID)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.ID == actorID || u.Mention() == "" || !u.CanAccessMailbox(c.MailboxID) {
			continue
		}
		if mentions(t.Body, u.Mention()) {
			if err := notifyUser(tx, u.ID, NotifyMentioned, c, t, "You were mentioned", now); err != nil {
				return err
			}
		}
	}
	return nil
}

// mentions reports whether a text @mentions a handle (a whole word).
func mentions(text, handle string) bool {
	re := regexp.MustCompile(`(?i)(^|[^\w@])@` + regexp.QuoteMeta(handle) + `\b`)
	return re.MatchString(PlainText(text))
}

// notifyUser queues one notification to a user who wants it.
func notifyUser(tx Tx, userID int64, kind NotifyKind, c *Conversation, t *Thread, what string, now time.Time) error {
	u, err := tx.User(c.CompanyID, userID)
	if IsNotFound(err) {
		return nil
	}
	if err != nil || !u.Wants(kind) {
		return err
	}
	mb, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("%s: %q, conversation #%d in %s.", what, c.Subject, c.Number, mb.Name)
	threadID := int64(0)
	if t != nil {
		threadID = t.ID
		text += "\n\n" + PlainText(t.Body)
	}
	return tx.PutMail(&Mail{CompanyID: c.CompanyID, MailboxID: c.MailboxID, ConversationID: c.ID, ThreadID: threadID, UserID: u.ID,
		Kind: MailNotification, MessageID: fmt.Sprintf("parley.%d.%s.%d.%d@%s", c.ID, kind, u.ID, now.UnixNano(), MailDomain(mb.Email)),
		Subject: fmt.Sprintf("%s %s: %s", SubjectTag(c.Number), what, c.Subject), Text: text,
		Status: MailQueued, CreatedAt: now, NextAttemptAt: now})
}
