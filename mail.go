package parley

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
)

// MailKind says what an outgoing e-mail carries.
type MailKind string

// Outgoing e-mail kinds.
const (
	MailReply     MailKind = "reply"      // a published reply thread
	MailAutoReply MailKind = "auto-reply" // the mailbox's auto reply to a new conversation
	// MailNotification tells a user of an event (notify.go).
	MailNotification MailKind = "notification"
)

// MailStatus is where an outgoing e-mail stands.
type MailStatus string

// Outgoing e-mail statuses. Queued and retrying e-mails wait in the
// outbox; sent and bounced ones are final.
const (
	MailQueued   MailStatus = "queued"
	MailRetrying MailStatus = "retrying"
	MailSent     MailStatus = "sent"
	MailBounced  MailStatus = "bounced"
)

// Mail is one outgoing e-mail: the durable outbox entry written in the
// transaction that published its thread, then its delivery log. Its
// Message-ID is fixed when it is queued, so a message sent again after a
// crash (delivery is at least once) is recognisably the same message.
type Mail struct {
	ID             int64    `json:"id"`
	CompanyID      int64    `json:"companyId"`
	MailboxID      int64    `json:"mailboxId"`
	ConversationID int64    `json:"conversationId"`
	ThreadID       int64    `json:"threadId,omitempty"` // 0 for an auto reply
	UserID         int64    `json:"userId,omitempty"`   // the user a notification is for
	Kind           MailKind `json:"kind"`
	// MessageID is the Message-ID header, without angle brackets.
	MessageID string `json:"messageId"`
	// Subject and Text are an auto reply's or a notification's, taken
	// when it was queued.
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	// InheritedCC is where a reply without cc of its own goes besides its
	// recipients: the conversation's cc when the reply was published, at
	// most MaxMailCC of them (see queueReply). Inherits says the reply has
	// no cc of its own; an e-mail queued before Parley kept InheritedCC
	// has neither, and takes the conversation's cc when it is built.
	InheritedCC []string `json:"inheritedCc,omitempty"`
	Inherits    bool     `json:"inherits,omitempty"`
	// From and Recipients are the envelope, fixed when the message is
	// built (Raw); Raw is the exact MIME message sent on every attempt.
	From       string   `json:"from,omitempty"`
	Recipients []string `json:"recipients,omitempty"`
	Raw        []byte   `json:"raw,omitempty"`

	Status        MailStatus `json:"status"`
	Attempts      int        `json:"attempts"`
	ResponseCode  int        `json:"responseCode,omitempty"` // the relay's last answer; 0: none
	LastError     string     `json:"lastError,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	NextAttemptAt time.Time  `json:"nextAttemptAt"`
	LastAttemptAt *time.Time `json:"lastAttemptAt,omitempty"`
	SentAt        *time.Time `json:"sentAt,omitempty"`
	BouncedAt     *time.Time `json:"bouncedAt,omitempty"`
}

// Final reports whether the e-mail left the outbox.
func (m *Mail) Final() bool { return m.Status == MailSent || m.Status == MailBounced }

// MailAttempt is the outcome of one hand-over to the relay: the SMTP reply
// code (0 when none came: refused connection, timeout), and what went
// wrong. Permanent is a refusal that no retry will change (a 5xx reply).
type MailAttempt struct {
	Code      int
	Err       string
	Permanent bool
}

// Record applies an attempt: success sends; a permanent refusal bounces;
// anything else retries with the webhooks' schedule (RetryDelay) until the
// MaxDeliveryAttempts-th failure, which bounces too. It reports whether
// the e-mail bounced.
func (m *Mail) Record(a MailAttempt, now time.Time, jitter float64) (bounced bool) {
	m.Attempts++
	m.LastAttemptAt = &now
	m.ResponseCode, m.LastError = a.Code, a.Err
	switch {
	case a.Err == "":
		m.Status, m.SentAt = MailSent, &now
		return false
	case a.Permanent:
	case m.Attempts < MaxDeliveryAttempts:
		m.Status, m.NextAttemptAt = MailRetrying, now.Add(RetryDelay(m.Attempts, jitter))
		return false
	default:
		m.LastError = fmt.Sprintf("gave up after %d attempts: %s", m.Attempts, a.Err)
	}
	m.Status, m.BouncedAt = MailBounced, &now
	return true
}

// MessageID is the Message-ID Parley gives a message it sends: unique per
// thread (or per conversation for an auto reply), under the domain of the
// mailbox's address so that replies can be told apart from foreign mail.
func MessageID(m *Mailbox, conversationID, threadID int64) string {
	part := fmt.Sprintf("%d", threadID)
	if threadID == 0 {
		part = "auto"
	}
	return fmt.Sprintf("parley.%d.%s@%s", conversationID, part, MailDomain(m.Email))
}

// MailDomain is the domain of an address ("localhost" when it has none).
func MailDomain(address string) string {
	if i := strings.LastIndexByte(address, '@'); i >= 0 && i < len(address)-1 {
		return strings.ToLower(address[i+1:])
	}
	return "localhost"
}

// SubjectTag is the tag outgoing subjects carry, "[#123]": a reply whose
// headers were lost still finds its conversation by number.
func SubjectTag(number int64) string { return fmt.Sprintf("[#%d]", number) }

// PlainText is a thread body without its HTML tags, for the text/plain
// part of an e-mail.
func PlainText(body string) string { return strings.TrimSpace(html.UnescapeString(stripTags(body))) }

// sends reports whether a thread of a conversation goes out by e-mail: a
// published agent reply, neither of them imported, the conversation
// published (a draft conversation's replies go when it is published), and
// not queued before.
func sends(c *Conversation, t *Thread) bool {
	return c.State == StatePublished && !c.Imported && t.Type == ThreadMessage && t.State == ThreadPublished &&
		!t.Imported && t.MessageID == ""
}

// queueReply queues the e-mail of a reply thread when it goes out, and
// gives the thread its Message-ID; it stores the thread. A silent
// (imported) transaction queues nothing. A reply without cc of its own
// goes to the conversation's cc as it is now, the addresses the agent saw,
// never to one that a later message adds while the e-mail waits to be
// built; and to at most MaxMailCC of them (the first), however many
// messages added to the conversation's cc.
func queueReply(tx Tx, c *Conversation, t *Thread, now time.Time) error {
	if !sends(c, t) {
		return nil
	}
	if _, quiet := tx.(silent); quiet {
		return nil
	}
	mb, err := tx.Mailbox(c.CompanyID, c.MailboxID)
	if err != nil {
		return err
	}
	t.MessageID = MessageID(mb, c.ID, t.ID)
	if err := tx.PutThread(t); err != nil {
		return err
	}
	m := &Mail{CompanyID: c.CompanyID, MailboxID: c.MailboxID, ConversationID: c.ID, ThreadID: t.ID, Kind: MailReply,
		MessageID: t.MessageID, Status: MailQueued, CreatedAt: now, NextAttemptAt: now}
	if len(t.CC) == 0 {
		m.InheritedCC, m.Inherits = InheritedCC(c), true
	}
	return tx.PutMail(m)
}

// InheritedCC is the cc a reply without cc of its own goes to: the first
// MaxMailCC addresses of the conversation's.
func InheritedCC(c *Conversation) []string {
	return slices.Clone(c.CC[:min(len(c.CC), MaxMailCC)])
}

// queueReplies queues the e-mails of every reply of a conversation that
// goes out (see sends).
func queueReplies(tx Tx, c *Conversation, threads []Thread, now time.Time) error {
	for i := range threads {
		if err := queueReply(tx, c, &threads[i], now); err != nil {
			return err
		}
	}
	return nil
}

// BounceThread marks the thread of an e-mail the relay refused for good
// as bounced, keeping the reason, and re-derives its conversation.
func BounceThread(tx Tx, m *Mail, now time.Time) error {
	if m.Kind != MailReply {
		return nil
	}
	c, err := tx.Conversation(m.CompanyID, m.ConversationID)
	if IsNotFound(err) {
		return nil // deleted meanwhile: nothing to mark
	}
	if err != nil {
		return err
	}
	t, err := findThread(tx, c, m.ThreadID)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	t.State, t.BounceReason = ThreadBounced, m.LastError
	if err := tx.PutThread(t); err != nil {
		return err
	}
	return saveConversation(tx, c, now)
}

// ReadThreadSource answers the original e-mail source of a thread the
// caller may read: the message a customer's thread came in as, or the
// message Parley built and sent for a reply. Threads that never were an
// e-mail (notes, chats, threads created through the API) have none.
func ReadThreadSource(tx Tx, caller Caller, convID, threadID int64, now time.Time) ([]byte, error) {
	c, _, err := loadThread(tx, caller, convID, threadID, now)
	if err != nil {
		return nil, err
	}
	return tx.ThreadSource(c.CompanyID, threadID)
}
