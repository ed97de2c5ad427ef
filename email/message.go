package email

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/emersion/go-message/mail"

	parley "github.com/parley/parley"
)

// built is a MIME message ready to hand to a relay, with its envelope.
type built struct {
	from       string
	recipients []string
	raw        []byte
}

// build renders an outgoing e-mail from the records it concerns: the
// mailbox is the sender (the agent's name as display name), the thread's
// `to` (else the customer) the recipients, with cc (else the one the
// e-mail inherited from the conversation) and bcc (bcc only in the
// envelope), the thread's attachments, and the headers a reply needs
// to find its way back: Message-ID, In-Reply-To and References (the
// conversation's earlier messages), Reply-To the mailbox, and the
// conversation's number as a subject tag.
func build(tx parley.Tx, m *parley.Mail) (*built, error) {
	if m.Kind == parley.MailNotification {
		return buildNotice(tx, m)
	}
	c, err := tx.Conversation(m.CompanyID, m.ConversationID)
	if err != nil {
		return nil, err
	}
	mb, err := tx.Mailbox(m.CompanyID, c.MailboxID)
	if err != nil {
		return nil, err
	}
	threads, err := tx.Threads(c.CompanyID, c.ID)
	if err != nil {
		return nil, err
	}
	var t *parley.Thread
	var earlier []string // Message-IDs of the messages before this one
	answers := false     // an e-mail thread came before: the subject says "Re:"
	for i := range threads {
		if threads[i].ID == m.ThreadID {
			t = &threads[i]
			break
		}
		answers = answers || threads[i].Type == parley.ThreadCustomer || threads[i].Type == parley.ThreadMessage
		if id := threads[i].MessageID; id != "" {
			earlier = append(earlier, id)
		}
	}
	if m.ThreadID != 0 && t == nil {
		return nil, parley.NotFound("thread")
	}
	customerID := c.CustomerID
	if t != nil && t.CustomerID != 0 {
		customerID = t.CustomerID
	}
	customer, err := tx.Customer(m.CompanyID, customerID)
	if err != nil {
		return nil, err
	}

	var h mail.Header
	from := &mail.Address{Name: mb.Name, Address: mb.Email}
	subject, body, text := m.Subject, m.Text, m.Text
	var to, cc, bcc []string
	var attachments []int64
	if t != nil {
		body, to, cc, bcc, attachments = t.Body, t.To, t.CC, t.BCC, t.Attachments
		switch {
		case len(cc) > 0:
		case m.Inherits:
			cc = m.InheritedCC // the conversation's, when the reply was published
		default:
			cc = parley.InheritedCC(c) // queued before e-mails kept it
		}
		text = parley.PlainText(body)
		h.SetDate(t.CreatedAt)
		if t.CreatedBy.Type == parley.PartyUser {
			if u, err := tx.User(m.CompanyID, t.CreatedBy.ID); err == nil && u.Name() != "" {
				from.Name = u.Name()
			}
		}
		subject = c.Subject
		if answers {
			subject = "Re: " + subject
		}
	} else {
		body = "<p>" + strings.ReplaceAll(html.EscapeString(body), "\n", "<br>\n") + "</p>"
		h.SetDate(m.CreatedAt)
		h.Set("Auto-Submitted", "auto-replied") // RFC 3834: no auto reply to this
	}
	if len(to) == 0 {
		if customer.PrimaryEmail() == "" {
			return nil, fmt.Errorf("customer %d has no e-mail address", customer.ID)
		}
		to = []string{customer.PrimaryEmail()}
	}
	h.SetAddressList("From", []*mail.Address{from})
	h.SetAddressList("Reply-To", []*mail.Address{{Name: mb.Name, Address: mb.Email}})
	h.SetAddressList("To", addresses(to, customer))
	if len(cc) > 0 {
		h.SetAddressList("Cc", addresses(cc, nil))
	}
	h.SetSubject(strings.TrimSpace(subject + " " + parley.SubjectTag(c.Number)))
	h.SetMessageID(m.MessageID)
	if len(earlier) > 0 {
		h.SetMsgIDList("In-Reply-To", earlier[len(earlier)-1:])
		h.SetMsgIDList("References", earlier)
	}

	var buf bytes.Buffer
	w, err := mail.CreateWriter(&buf, h)
	if err != nil {
		return nil, err
	}
	if err := writeBody(w, text, body); err != nil {
		return nil, err
	}
	for _, id := range attachments {
		a, err := tx.Attachment(m.CompanyID, id)
		if err != nil {
			return nil, err
		}
		if a.State != parley.AttachmentOK {
			continue // a file found malicious is never sent
		}
		data, err := tx.AttachmentData(m.CompanyID, id)
		if err != nil {
			return nil, err
		}
		var ah mail.AttachmentHeader
		ah.Set("Content-Type", a.MimeType)
		ah.SetFilename(a.FileName)
		aw, err := w.CreateAttachment(ah)
		if err != nil {
			return nil, err
		}
		if _, err := aw.Write(data); err != nil {
			return nil, err
		}
		if err := aw.Close(); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	recipients := append(append(append([]string(nil), to...), cc...), bcc...)
	return &built{from: mb.Email, recipients: recipients, raw: buf.Bytes()}, nil
}

// writeBody writes the body as multipart/alternative: plain text for
// every reader, and HTML (what the agent wrote).
func writeBody(w *mail.Writer, text, html string) error {
	iw, err := w.CreateInline()
	if err != nil {
		return err
	}
	parts := []struct{ typ, text string }{{"text/plain", text}, {"text/html", html}}
	for _, p := range parts {
		var ih mail.InlineHeader
		ih.Set("Content-Type", p.typ+"; charset=utf-8")
		pw, err := iw.CreatePart(ih)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(pw, p.text); err != nil {
			return err
		}
		if err := pw.Close(); err != nil {
			return err
		}
	}
	return iw.Close()
}

// addresses names the customer's addresses with the customer's name.
func addresses(list []string, customer *parley.Customer) []*mail.Address {
	out := make([]*mail.Address, 0, len(list))
	for _, a := range list {
		addr := &mail.Address{Address: a}
		if customer != nil && strings.EqualFold(customer.PrimaryEmail(), a) {
			addr.Name = customer.Name()
		}
		out = append(out, addr)
	}
	return out
}

// buildNotice renders a notification to a user: plain text from the
// mailbox's address, marked as machine-sent.
func buildNotice(tx parley.Tx, m *parley.Mail) (*built, error) {
	u, err := tx.User(m.CompanyID, m.UserID)
	if err != nil {
		return nil, err
	}
	mb, err := tx.Mailbox(m.CompanyID, m.MailboxID)
	if err != nil {
		return nil, err
	}
	var h mail.Header
	h.SetDate(m.CreatedAt)
	h.SetAddressList("From", []*mail.Address{{Name: mb.Name + " (Parley)", Address: mb.Email}})
	h.SetAddressList("To", []*mail.Address{{Name: u.Name(), Address: u.Email}})
	h.SetSubject(m.Subject)
	h.SetMessageID(m.MessageID)
	h.Set("Auto-Submitted", "auto-generated")
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	var buf bytes.Buffer
	w, err := mail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(w, m.Text); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &built{from: mb.Email, recipients: []string{u.Email}, raw: buf.Bytes()}, nil
}
