package parley

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of a message received (over SMTP or from an IMAP folder), so
// that one message can neither hold the server's memory nor turn the next
// reply into a mass mailing.
const (
	// MaxMailBodyBytes bounds the body the thread of a message keeps, and
	// so what the search index reads: a longer body is cut there, with a
	// note saying so. The whole message stays the thread's original
	// source. It is the API's bound of a request without attachments.
	MaxMailBodyBytes = 256 << 10
	// MaxMailCC bounds the Cc addresses of a message; a message with more
	// is refused. A reply without cc of its own takes at most as many
	// from its conversation (queueReply).
	MaxMailCC = 50
	// MaxMailAttachments bounds the files of a message (attachments and
	// inline images); a message with more is refused.
	MaxMailAttachments = 50
)

// InboundMail is a customer's e-mail as the SMTP listener read it: the
// parts of the message that become a thread, and the message itself.
type InboundMail struct {
	MessageID  string   // without angle brackets
	InReplyTo  []string // Message-IDs, without angle brackets
	References []string
	From       string // the sender's address
	FromName   string // the sender's display name
	CC         []string
	// Recipients are the addresses the message names as its recipients
	// (To, Cc, Delivered-To, X-Original-To), for a poller that has no
	// envelope.
	Recipients []string
	Subject    string
	// Body is HTML, as thread bodies are. BodyCut says it is only the
	// beginning of the message's text, which the reader stopped reading
	// at MaxMailBodyBytes.
	Body        string
	BodyCut     bool
	Attachments []AttachmentInput
	// Bounce is set for a delivery status notification saying a message
	// could not be delivered.
	Bounce *InboundBounce
	// AutoSubmitted is set for machine-sent mail (an auto reply, a list),
	// which is never answered by an auto reply (RFC 3834).
	AutoSubmitted bool
	Raw           []byte
}

// checkLimits refuses a message over the bounds of MaxMailCC and
// MaxMailAttachments.
func (in *InboundMail) checkLimits() error {
	p := &Problems{}
	if len(in.CC) > MaxMailCC {
		p.Add("cc", CodeSize, fmt.Sprintf("a message may have at most %d Cc addresses", MaxMailCC), len(in.CC))
	}
	if len(in.Attachments) > MaxMailAttachments {
		p.Add("attachments", CodeSize, fmt.Sprintf("a message may have at most %d attachments", MaxMailAttachments), len(in.Attachments))
	}
	return p.Err()
}

// mailBodyCut ends a body cut at MaxMailBodyBytes.
var mailBodyCut = fmt.Sprintf("\n<p>[This message is longer than %d KiB: only its beginning is shown. "+
	"The whole message is its original source.]</p>", MaxMailBodyBytes>>10)

// maxEntityLength bounds an HTML character reference ("&amp;", "&#x1F600;").
const maxEntityLength = 32

// clipMailBody cuts an HTML body longer than MaxMailBodyBytes (note
// included), or one already cut when it was read, at a character boundary
// outside any tag or character reference, and says so at its end.
func clipMailBody(body string, wasCut bool) string {
	if len(body) <= MaxMailBodyBytes && !wasCut {
		return body
	}
	cut := strings.ToValidUTF8(body[:min(len(body), MaxMailBodyBytes-len(mailBodyCut))], "")
	if i := strings.LastIndexByte(cut, '<'); i > strings.LastIndexByte(cut, '>') {
		cut = cut[:i]
	}
	if i := strings.LastIndexByte(cut, '&'); i > strings.LastIndexByte(cut, ';') && len(cut)-i <= maxEntityLength {
		cut = cut[:i]
	}
	return cut + mailBodyCut
}

// InboundBounce is what a delivery status notification says: the
// Message-ID of the message that failed, and why.
type InboundBounce struct {
	Failed    bool
	MessageID string
	Reason    string
}

// Received is what ReceiveMail did with a message.
type Received struct {
	ConversationID, ThreadID int64
	Created                  bool // a new conversation
	Bounced                  bool // a bounce of a reply, which it marked
	Dropped                  bool // a bounce of no message of Parley's, not kept
	Duplicate                bool // a message with a Message-ID already kept, not kept again
}

// subjectTag finds the "[#123]" tag outgoing subjects carry.
var subjectTag = regexp.MustCompile(`\[#(\d{1,18})\]`)

// taggedSpace is a run of tags with the spaces around them: taken out of
// a new conversation's subject, it leaves one space, so a tag that sat
// between two words does not leave two.
var taggedSpace = regexp.MustCompile(`\s*(?:` + subjectTag.String() + `\s*)+`)

// mailCaller is who acts for incoming mail: the mailbox's company, with
// no user (id 0) allowed into every mailbox. Customer threads name the
// customer as their author, so no user shows on what it writes.
func mailCaller(company *Company) Caller {
	return Caller{Company: company, User: &User{CompanyID: company.ID, Role: RoleOwner, Active: true}}
}

// ReceiveMail turns a customer's e-mail to a mailbox into a thread. A reply
// — its In-Reply-To or References name a message of a conversation of the
// company, or its subject carries a conversation's "[#number]" tag — from
// that conversation's customer or one of its cc addresses becomes a
// customer thread there, under Help Scout's rules (reopens a closed
// conversation, unsnoozes and cancels schedules when asked, the 100-thread
// limit). Anything else, and a reply to a full conversation, starts a new
// e-mail conversation (source `email`) whose customer is found or created
// by the sender's address, answered by the mailbox's auto reply unless the
// message was machine-sent or the mailbox auto-replied to that customer
// within autoReplyEvery (autoRepliedSince). The raw message is kept as the
// thread's original source; the thread's body is cut at MaxMailBodyBytes,
// and a message over MaxMailCC or MaxMailAttachments is refused. A message
// whose Message-ID the company already holds (a sending server's retry, an
// IMAP message fetched again, Parley's own message coming back) is not
// kept twice.
func ReceiveMail(tx Tx, m *Mailbox, in *InboundMail, scan Scanner, autoReplyEvery time.Duration, now time.Time) (*Received, error) {
	if err := in.checkLimits(); err != nil {
		return nil, err
	}
	body := clipMailBody(in.Body, in.BodyCut)
	company, err := tx.Company(m.CompanyID)
	if err != nil {
		return nil, err
	}
	if in.Bounce != nil {
		return receiveBounce(tx, m.CompanyID, in.Bounce, now)
	}
	if in.MessageID != "" { // a message received (or sent) before: a server's retry, a loop
		if id, err := tx.ConversationByMessageID(m.CompanyID, in.MessageID); err == nil {
			return &Received{ConversationID: id, Duplicate: true}, nil
		} else if !IsNotFound(err) {
			return nil, err
		}
	}
	caller := mailCaller(company)
	in.CC = validAddresses(in.CC)
	if c, err := repliedConversation(tx, m.CompanyID, in); err != nil {
		return nil, err
	} else if c != nil {
		r := &ThreadRequest{Text: &body, Customer: senderInput(in), CC: in.CC, Attachments: in.Attachments}
		if err := r.Validate(ThreadCustomer); err != nil {
			return nil, err
		}
		t, err := AddThread(tx, caller, c.ID, ThreadCustomer, r, scan, now)
		if err == nil {
			return &Received{ConversationID: c.ID, ThreadID: t.ID}, keepSource(tx, t, in)
		}
		if KindOf(err) != KindLocked {
			return nil, err
		} // a full or locked conversation: the reply starts a new one
	}
	subject := strings.TrimSpace(taggedSpace.ReplaceAllString(in.Subject, " "))
	if subject == "" {
		subject = "(no subject)"
	}
	if r := []rune(subject); len(r) > MaxSubjectLength {
		subject = string(r[:MaxSubjectLength])
	}
	autoReply := !in.AutoSubmitted
	if autoReply {
		replied, err := autoRepliedSince(tx, m, in.From, now.Add(-autoReplyEvery))
		if err != nil {
			return nil, err
		}
		autoReply = !replied
	}
	n := &NewConversation{Subject: &subject, Type: ptrTo(string(TypeEmail)), MailboxID: &m.ID, Status: ptrTo(string(StatusActive)),
		Customer: senderInput(in), AutoReply: autoReply,
		Threads: []NewThread{{Type: ptrTo(string(ThreadCustomer)), Text: &body, CC: in.CC, Attachments: in.Attachments}}}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	c, err := CreateConversation(tx, caller, n, scan, now)
	if err != nil {
		return nil, err
	}
	c.Source = Source{Type: "email", Via: PartyCustomer}
	if err := tx.PutConversation(c); err != nil {
		return nil, err
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return nil, err
	}
	return &Received{ConversationID: c.ID, ThreadID: threads[0].ID, Created: true}, keepSource(tx, &threads[0], in)
}

// receiveBounce applies a delivery status notification: the outgoing
// e-mail it names bounces, with its thread. A notification about no
// message Parley sent is dropped: it would only be noise in the inbox.
func receiveBounce(tx Tx, companyID int64, b *InboundBounce, now time.Time) (*Received, error) {
	convID, err := tx.ConversationByMessageID(companyID, b.MessageID)
	if IsNotFound(err) || b.MessageID == "" {
		return &Received{Dropped: true}, nil
	}
	if err != nil {
		return nil, err
	}
	mails, err := tx.ConversationMail(companyID, convID)
	if err != nil {
		return nil, err
	}
	for i := range mails {
		m := &mails[i]
		if m.MessageID != b.MessageID || m.Kind != MailReply {
			continue
		}
		m.Status, m.BouncedAt = MailBounced, &now
		m.LastError = "the message bounced: " + b.Reason
		if err := tx.PutMail(m); err != nil {
			return nil, err
		}
		return &Received{ConversationID: convID, ThreadID: m.ThreadID, Bounced: true}, BounceThread(tx, m, now)
	}
	return &Received{Dropped: true}, nil
}

// maxReplyReferences bounds the Message-IDs of In-Reply-To, and of
// References, a message is looked up by: the last ones, which name the
// latest messages of its thread. Each is a lookup in the transaction that
// stores the message.
const maxReplyReferences = 100

// repliedConversation finds the conversation a message answers, if any,
// and its sender may write to.
func repliedConversation(tx Tx, companyID int64, in *InboundMail) (*Conversation, error) {
	var ids []int64
	last := func(list []string) []string { return list[max(0, len(list)-maxReplyReferences):] }
	for _, mid := range append(slices.Clone(last(in.InReplyTo)), last(in.References)...) {
		id, err := tx.ConversationByMessageID(companyID, mid)
		if err == nil {
			ids = append(ids, id)
		} else if !IsNotFound(err) {
			return nil, err
		}
	}
	if tag := subjectTag.FindStringSubmatch(in.Subject); tag != nil {
		number, _ := strconv.ParseInt(tag[1], 10, 64)
		id, err := tx.ConversationIDByNumber(companyID, number)
		if err == nil {
			ids = append(ids, id)
		} else if !IsNotFound(err) {
			return nil, err
		}
	}
	for _, id := range ids {
		c, err := tx.Conversation(companyID, id)
		for err == nil && c.MergedInto != 0 { // follow merges to the survivor
			c, err = tx.Conversation(companyID, c.MergedInto)
		}
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if c.State == StateDeleted {
			continue
		}
		ok, err := mayReply(tx, c, in.From)
		if err != nil {
			return nil, err
		}
		if ok {
			return c, nil
		}
	}
	return nil, nil
}

// mayReply reports whether an address may add to a conversation by mail:
// it is the address of the conversation's customer or in its cc. Parley's
// Message-IDs and subject tags are guessable, so a stranger's mail that
// names them starts a conversation of its own instead.
func mayReply(tx Tx, c *Conversation, from string) (bool, error) {
	from = NormalizeEmail(from)
	for _, a := range c.CC {
		if NormalizeEmail(a) == from {
			return true, nil
		}
	}
	cu, err := tx.CustomerByEmail(c.CompanyID, from)
	if IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return cu.ID == c.CustomerID, nil
}

// keepSource gives the thread the message's Message-ID (replies to it find
// the conversation) and keeps the raw message.
func keepSource(tx Tx, t *Thread, in *InboundMail) error {
	if in.MessageID != "" {
		t.MessageID = in.MessageID
		if err := tx.PutThread(t); err != nil {
			return err
		}
	}
	return tx.PutThreadSource(t.CompanyID, t.ID, in.Raw)
}

// senderInput is the customer a message is from, named by its display
// name (first word as first name, the rest as last name, within limits).
func senderInput(in *InboundMail) *CustomerInput {
	c := &CustomerInput{Email: ptrTo(in.From)}
	if first, last, _ := strings.Cut(strings.TrimSpace(in.FromName), " "); first != "" && !strings.Contains(first, "@") {
		c.FirstName = ptrTo(clip(first, MaxNameLength))
		if last = strings.TrimSpace(last); last != "" {
			c.LastName = ptrTo(clip(last, MaxNameLength))
		}
	}
	return c
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// validAddresses keeps the well-formed addresses of a list, normalized.
func validAddresses(list []string) []string {
	var out []string
	for _, a := range list {
		if a = NormalizeEmail(a); ValidEmail(a) {
			out = append(out, a)
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// String describes what happened, for logs.
func (r *Received) String() string {
	switch {
	case r.Dropped:
		return "a bounce of no message of Parley's, dropped"
	case r.Duplicate:
		return fmt.Sprintf("a message already on conversation %d, dropped", r.ConversationID)
	case r.Bounced:
		return fmt.Sprintf("bounce of thread %d on conversation %d", r.ThreadID, r.ConversationID)
	case r.Created:
		return fmt.Sprintf("new conversation %d", r.ConversationID)
	}
	return fmt.Sprintf("thread %d on conversation %d", r.ThreadID, r.ConversationID)
}
