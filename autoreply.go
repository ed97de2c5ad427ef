package parley

import (
	"slices"
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

// DefaultAutoReplyInterval is how long a customer who writes to a mailbox
// by e-mail waits for its next auto reply from that mailbox: one a day, as
// vacation responders do (RFC 3834 section 3.1.1), so that four messages
// get one answer and two responders cannot answer each other for ever.
const DefaultAutoReplyInterval = 24 * time.Hour

// maxAutoReplyLookback bounds the conversations of the interval that
// autoRepliedSince reads: a customer who started more than that many
// within it gets no further auto reply.
const maxAutoReplyLookback = 100

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

// autoRepliedSince reports whether the mailbox queued an auto reply after
// since to the customer with this address. It derives the answer from
// stored data, so it holds across restarts, on every node and backend:
// the customer's conversations newest first (ids grow with creation),
// each one's outgoing e-mails, until a conversation created at or before
// since (an auto reply is queued with its conversation). Imported
// conversations are skipped: they never had one, and carry their import's
// dates.
func autoRepliedSince(tx Tx, m *Mailbox, address string, since time.Time) (bool, error) {
	cu, err := tx.CustomerByEmail(m.CompanyID, address)
	if IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ids := tx.CustomerConversationIDs(cu.CompanyID, cu.ID)
	slices.Sort(ids)
	read := 0
	for i := len(ids) - 1; i >= 0; i-- {
		c, err := tx.Conversation(m.CompanyID, ids[i])
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if c.Imported {
			continue
		}
		if !c.CreatedAt.After(since) {
			return false, nil
		}
		if read++; read > maxAutoReplyLookback {
			return true, nil
		}
		mails, err := tx.ConversationMail(c.CompanyID, c.ID)
		if err != nil {
			return false, err
		}
		for _, sent := range mails {
			if sent.Kind == MailAutoReply && sent.MailboxID == m.ID && sent.CreatedAt.After(since) {
				return true, nil
			}
		}
	}
	return false, nil
}
