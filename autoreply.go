package parley

import (
	"strings"
	"time"
)

// AutoReply is a mailbox's auto reply: the message a new conversation's
// customer receives when the conversation is created with `autoReply:
// true` (Help Scout's docs: only when it holds at least one customer thread).
type AutoReply struct {
	Enabled bool   `json:"enabled"`
	Subject string `json:"subject"`
	Text    string `json:"text"`
}

// Auto reply limits.
const (
	MaxAutoReplySubject = 255    // characters
	MaxAutoReplyText    = 100000 // characters
)

// Validate checks auto reply settings: an enabled auto reply needs a
// subject and a text.
func (a *AutoReply) Validate() error {
	p := &Problems{}
	if n := len([]rune(a.Subject)); n > MaxAutoReplySubject || (a.Enabled && strings.TrimSpace(a.Subject) == "") {
		p.Add("subject", CodeSize, sizeMessage(1, MaxAutoReplySubject), a.Subject)
	}
	if n := len([]rune(a.Text)); n > MaxAutoReplyText || (a.Enabled && strings.TrimSpace(a.Text) == "") {
		p.Add("text", CodeSize, sizeMessage(1, MaxAutoReplyText), nil)
	}
	return p.Err()
}

// SetAutoReply replaces a mailbox's auto reply settings; only owners and
// administrators change mailbox settings.
func SetAutoReply(tx Tx, caller Caller, mailboxID int64, a AutoReply, now time.Time) (*Mailbox, error) {
	if !caller.User.IsAdmin() {
		return nil, Forbidden(CodeAccessDenied, "only owners and administrators change mailbox settings")
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	m, err := tx.Mailbox(caller.Company.ID, mailboxID)
	if err != nil {
		return nil, err
	}
	a.Subject, a.Text = strings.TrimSpace(a.Subject), strings.TrimSpace(a.Text)
	m.AutoReply, m.UpdatedAt = &a, now
	return m, tx.PutMailbox(m)
}

// queueAutoReply queues the mailbox's auto reply to a new conversation's
// customer when the request asked for it, the mailbox has one enabled,
// and the conversation is published, not imported, and holds a customer
// thread.
func queueAutoReply(tx Tx, asked bool, c *Conversation, m *Mailbox, threads []Thread, now time.Time) error {
	if !asked || m.AutoReply == nil || !m.AutoReply.Enabled || c.State != StatePublished || c.Imported {
		return nil
	}
	if _, quiet := tx.(silent); quiet {
		return nil
	}
	customerThread := false
	for _, t := range threads {
		customerThread = customerThread || t.Type == ThreadCustomer
	}
	if !customerThread {
		return nil
	}
	return tx.PutMail(&Mail{CompanyID: c.CompanyID, MailboxID: m.ID, ConversationID: c.ID, Kind: MailAutoReply,
		MessageID: MessageID(m, c.ID, 0), Subject: m.AutoReply.Subject, Text: m.AutoReply.Text,
		Status: MailQueued, CreatedAt: now, NextAttemptAt: now})
}
