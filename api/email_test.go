package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/email"
	"github.com/parley/parley/email/smtptest"
)

// mailWorld is a world whose outgoing e-mail goes to a real SMTP relay on
// loopback.
type mailWorld struct {
	*world
	relay    *smtptest.Server
	outgoing *email.Dispatcher
}

func newMailWorld(t *testing.T) *mailWorld { return newMailWorldOn(t, suiteBackend()) }

func newMailWorldOn(t *testing.T, on backend) *mailWorld {
	w := newWorldOn(t, on)
	relay := smtptest.New(t)
	d := email.NewDispatcher(email.Config{DB: w.db, Sender: &email.Relay{Addr: relay.Addr}, Clock: w.clock,
		Rand: rand.New(rand.NewPCG(1, 2)), Log: slog.New(slog.NewTextHandler(&lockedWriter{w: w.logs}, nil))})
	return &mailWorld{world: w, relay: relay, outgoing: d}
}

// deliver runs the outgoing dispatcher once and returns its attempts.
func (w *mailWorld) deliver() int {
	w.t.Helper()
	n, err := w.outgoing.SendDue(context.Background(), w.clock.Now())
	require.NoError(w.t, err)
	return n
}

// parsed is a message the relay accepted, read back with a MIME library.
type parsed struct {
	envelope smtptest.Message
	header   mail.Header
	text     string
	html     string
	files    map[string][]byte // attachment name -> content
	types    map[string]string // attachment name -> media type
}

func parseMessage(t *testing.T, m smtptest.Message) parsed {
	t.Helper()
	r, err := mail.CreateReader(bytes.NewReader(m.Data))
	require.NoError(t, err)
	p := parsed{envelope: m, header: r.Header, files: map[string][]byte{}, types: map[string]string{}}
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		body, err := io.ReadAll(part.Body)
		require.NoError(t, err)
		switch h := part.Header.(type) {
		case *mail.InlineHeader:
			ct, _, _ := h.ContentType()
			if ct == "text/plain" {
				p.text = string(body)
			} else {
				p.html = string(body)
			}
		case *mail.AttachmentHeader:
			name, _ := h.Filename()
			ct, _, _ := h.ContentType()
			p.files[name], p.types[name] = body, ct
		}
	}
	return p
}

func addressList(t *testing.T, h mail.Header, key string) []string {
	t.Helper()
	list, err := h.AddressList(key)
	require.NoError(t, err)
	var out []string
	for _, a := range list {
		out = append(out, a.String())
	}
	return out
}

func threadState(t *testing.T, c map[string]any, threadID int64) string {
	t.Helper()
	for _, th := range field(t, c, "_embedded", "threads").([]any) {
		m := th.(map[string]any)
		if int64(m["id"].(float64)) == threadID {
			return m["state"].(string)
		}
	}
	t.Fatalf("no thread %d", threadID)
	return ""
}

// postThread posts a thread as the owner and returns the thread's id.
func (w *mailWorld) postThread(path, body string) int64 {
	w.t.Helper()
	rec := w.do(request{method: http.MethodPost, path: path, token: ownerToken, body: body})
	require.Equal(w.t, http.StatusCreated, rec.Code, rec.Body.String())
	return resourceID(w.t, rec)
}

func TestEmailReplyDelivered(t *testing.T) {
	w := newMailWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	assert.Equal(t, 0, w.deliver(), "a customer thread sends nothing")

	pdf := []byte("%PDF-1.4 the invoice")
	first := w.postThread(path+"/reply", reply(map[string]any{"text": "<p>Your order ships <b>today</b> &amp; arrives Friday.</p>",
		"cc": []string{"boss@example.com"}, "bcc": []string{"audit@acme.test"},
		"attachments": []any{attachmentJSON("invoice.pdf", "application/pdf", pdf)}}))
	require.Equal(t, 1, w.deliver())
	msgs := w.relay.Messages()
	require.Len(t, msgs, 1)
	m := parseMessage(t, msgs[0])
	assert.Equal(t, "support@acme.test", m.envelope.From)
	assert.Equal(t, []string{"alice@example.com", "boss@example.com", "audit@acme.test"}, m.envelope.To, "bcc only in the envelope")
	assert.Equal(t, []string{`"Olivia Owner" <support@acme.test>`}, addressList(t, m.header, "From"))
	assert.Equal(t, []string{`"Support" <support@acme.test>`}, addressList(t, m.header, "Reply-To"))
	assert.Equal(t, []string{`"Alice Archer" <alice@example.com>`}, addressList(t, m.header, "To"))
	assert.Equal(t, []string{"<boss@example.com>"}, addressList(t, m.header, "Cc"))
	assert.Empty(t, m.header.Get("Bcc"))
	subject, _ := m.header.Subject()
	assert.Equal(t, "Re: Where is my order? [#1]", subject, "it answers the customer's thread")
	firstID := fmt.Sprintf("parley.%d.%d@acme.test", id, first)
	got, _ := m.header.MessageID()
	assert.Equal(t, firstID, got)
	assert.Empty(t, m.header.Get("In-Reply-To"), "nothing came by e-mail before")
	date, _ := m.header.Date()
	assert.True(t, date.Equal(epoch), "%s", date)
	assert.Equal(t, "Your order ships  today  & arrives Friday.", m.text)
	assert.Equal(t, "<p>Your order ships <b>today</b> &amp; arrives Friday.</p>", m.html)
	assert.Equal(t, map[string][]byte{"invoice.pdf": pdf}, m.files)
	assert.Equal(t, "application/pdf", m.types["invoice.pdf"])
	assert.Equal(t, 0, w.deliver(), "sent once")

	// The original source of the reply is the message the relay received.
	src := fmt.Sprintf("%s/threads/%d/original-source", path, first)
	assert.Equal(t, map[string]any{"original": string(msgs[0].Data)}, w.send("GET", src, "", http.StatusOK))
	rec := w.do(request{method: http.MethodGet, path: src, token: ownerToken, header: map[string]string{"Accept": "message/rfc822"}})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "message/rfc822", rec.Header().Get("Content-Type"))
	assert.Equal(t, string(msgs[0].Data), rec.Body.String())
	customerThread := int64(field(t, w.conv(id), "_embedded", "threads").([]any)[1].(map[string]any)["id"].(float64))
	rec = w.do(request{method: http.MethodGet, path: fmt.Sprintf("%s/threads/%d/original-source", path, customerThread), token: ownerToken})
	assert.Equal(t, http.StatusNotFound, rec.Code, "a thread created through the API was no e-mail")
	rec = w.do(request{method: http.MethodGet, path: src, token: globexToken})
	assert.Equal(t, http.StatusNotFound, rec.Code, "another company's")

	// A second reply answers the first: In-Reply-To and References.
	second := w.postThread(path+"/reply", reply(map[string]any{"text": "One more thing."}))
	require.Equal(t, 1, w.deliver())
	m = parseMessage(t, w.relay.Messages()[1])
	subject, _ = m.header.Subject()
	assert.Equal(t, "Re: Where is my order? [#1]", subject)
	inReplyTo, _ := m.header.MsgIDList("In-Reply-To")
	refs, _ := m.header.MsgIDList("References")
	assert.Equal(t, []string{firstID}, inReplyTo)
	assert.Equal(t, []string{firstID}, refs)
	got, _ = m.header.MessageID()
	assert.Equal(t, fmt.Sprintf("parley.%d.%d@acme.test", id, second), got)
	assert.Empty(t, m.files)
	assert.Equal(t, "published", threadState(t, w.conv(id), second))
}

func TestEmailWhatSendsNothing(t *testing.T) {
	w := newMailWorld(t)
	// An imported conversation with a reply thread.
	w.create(convJSON(map[string]any{"imported": true, "threads": []any{
		map[string]any{"type": "customer", "text": "Old question"},
		map[string]any{"type": "reply", "text": "Old answer"}}}))
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	w.postThread(path+"/reply", reply(map[string]any{"text": "imported reply", "imported": true}))
	w.postThread(path+"/notes", reply(map[string]any{"text": "a note"}))
	w.postThread(path+"/reply", reply(map[string]any{"text": "a draft", "draft": true}))
	scheduled := w.postThread(path+"/reply", reply(map[string]any{"text": "later", "draft": true}))
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, scheduled), `{"scheduledFor":"2026-11-21T13:00:00Z"}`, http.StatusNoContent)
	cancelled := w.postThread(path+"/reply", reply(map[string]any{"text": "never", "draft": true}))
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, cancelled), `{"scheduledFor":"2026-11-21T13:00:00Z"}`, http.StatusNoContent)
	w.send("DELETE", fmt.Sprintf("%s/threads/%d/schedule", path, cancelled), "", http.StatusNoContent)
	assert.Equal(t, 0, w.deliver())
	assert.Empty(t, w.relay.Messages())

	// The scheduled reply goes when it is published, and only it.
	w.clock.advance(time.Hour)
	w.wake()
	require.Equal(t, 1, w.deliver())
	m := parseMessage(t, w.relay.Messages()[0])
	assert.Equal(t, "later", m.html)
	got, _ := m.header.MessageID()
	assert.Equal(t, fmt.Sprintf("parley.%d.%d@acme.test", id, scheduled), got)
}

// TestEmailSchedulePublishedNow: PATCH .../schedule publishing a scheduled
// reply now sends it, once, like the wake-up would have.
func TestEmailSchedulePublishedNow(t *testing.T) {
	w := newMailWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	scheduled := w.postThread(path+"/reply", reply(map[string]any{"text": "now, not later", "draft": true}))
	w.send("PUT", fmt.Sprintf("%s/threads/%d/schedule", path, scheduled), `{"scheduledFor":"2026-11-21T13:00:00Z"}`, http.StatusNoContent)
	assert.Equal(t, 0, w.deliver())
	w.send("PATCH", fmt.Sprintf("%s/threads/%d/schedule", path, scheduled), `{"op":"replace","path":"/state","value":"published"}`, http.StatusNoContent)
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, "now, not later", parseMessage(t, w.relay.Messages()[0]).html)
	w.clock.advance(time.Hour)
	w.wake()
	assert.Equal(t, 0, w.deliver(), "the wake-up went with the schedule: nothing is sent twice")
}

func TestEmailDraftConversationSendsWhenPublished(t *testing.T) {
	w := newMailWorld(t)
	id := w.create(convJSON(map[string]any{"threads": []any{
		map[string]any{"type": "customer", "text": "Question"},
		map[string]any{"type": "reply", "text": "Draft answer", "draft": true}}}))
	assert.Equal(t, 0, w.deliver())
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", id), `{"op":"replace","path":"/draft","value":false}`, http.StatusNoContent)
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, "Draft answer", parseMessage(t, w.relay.Messages()[0]).html)
	w.send("PATCH", fmt.Sprintf("/v2/conversations/%d", id), `{"op":"replace","path":"/subject","value":"New subject"}`, http.StatusNoContent)
	assert.Equal(t, 0, w.deliver(), "a published reply goes once")
}

func TestEmailAutoReply(t *testing.T) {
	w := newMailWorld(t)
	owner := parley.Caller{Company: &parley.Company{ID: acmeID}, User: &parley.User{ID: ownerID, CompanyID: acmeID, Role: parley.RoleOwner}}
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		_, err := parley.SetAutoReply(tx, owner, supportID, parley.AutoReply{Enabled: true, Subject: "Got it",
			Text: "Thanks for writing.\nWe answer within a day."}, w.clock.Now())
		return err
	})
	require.NoError(t, err)
	w.create(convJSON(nil)) // autoReply not asked
	w.create(convJSON(map[string]any{"autoReply": true, "threads": []any{map[string]any{"type": "reply", "text": "We wrote first"}}}))
	w.create(convJSON(map[string]any{"autoReply": true, "imported": true}))
	id := w.create(convJSON(map[string]any{"autoReply": true, "customer": map[string]any{"email": "bo@example.com"}}))
	require.Equal(t, 2, w.deliver(), "the reply of the second, the auto reply of the fourth")
	require.Equal(t, 0, w.deliver())
	msgs := w.relay.Messages()
	require.Len(t, msgs, 2)
	m := parseMessage(t, msgs[1])
	assert.Equal(t, []string{"bo@example.com"}, m.envelope.To)
	subject, _ := m.header.Subject()
	assert.Equal(t, "Got it [#4]", subject)
	assert.Equal(t, "auto-replied", m.header.Get("Auto-Submitted"))
	assert.Equal(t, "Thanks for writing.\r\nWe answer within a day.", m.text)
	assert.Equal(t, "<p>Thanks for writing.<br>\r\nWe answer within a day.</p>", m.html)
	got, _ := m.header.MessageID()
	assert.Equal(t, fmt.Sprintf("parley.%d.auto@acme.test", id), got)
}

func TestEmailBounce(t *testing.T) {
	w := newMailWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)

	// A 4xx is retried with backoff; the thread stays published.
	w.relay.Refuse(&smtp.SMTPError{Code: 451, Message: "try again later"})
	soft := w.postThread(path+"/reply", reply(map[string]any{"text": "first"}))
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, 0, w.deliver(), "not due before its backoff")
	assert.Equal(t, "published", threadState(t, w.conv(id), soft))
	w.relay.Refuse(nil)
	w.clock.advance(parley.RetryDelay(1, 1))
	require.Equal(t, 1, w.deliver())
	require.Len(t, w.relay.Messages(), 1)

	// A 5xx bounces the thread, with the reason kept.
	w.relay.Refuse(&smtp.SMTPError{Code: 550, Message: "no such user"})
	hard := w.postThread(path+"/reply", reply(map[string]any{"text": "second"}))
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, 0, w.deliver())
	assert.Equal(t, "bounced", threadState(t, w.conv(id), hard))
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		log, err := tx.ConversationMail(1, id)
		require.NoError(t, err)
		require.Len(t, log, 2)
		assert.Equal(t, parley.MailSent, log[0].Status)
		assert.Equal(t, 2, log[0].Attempts)
		assert.Equal(t, parley.MailBounced, log[1].Status)
		assert.Equal(t, 550, log[1].ResponseCode)
		assert.True(t, strings.Contains(log[1].LastError, "no such user"), log[1].LastError)
		th, err := tx.Threads(1, id)
		require.NoError(t, err)
		assert.Equal(t, log[1].LastError, th[len(th)-1].BounceReason)
		return nil
	}))
}

// listen runs Parley's SMTP listener on loopback for the test.
func (w *mailWorld) listen(maxBytes int64) string {
	w.t.Helper()
	return w.serveMail(&email.Listener{MaxBytes: maxBytes})
}

// serveMail runs an SMTP listener, as configured, on the world's store.
func (w *mailWorld) serveMail(l *email.Listener) string {
	w.t.Helper()
	l.Store, l.Clock, l.Log = w.store, w.clock, slog.New(slog.NewTextHandler(&lockedWriter{w: w.logs}, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(w.t, err)
	done := make(chan error, 1)
	go func() { done <- l.Serve(ln) }()
	w.t.Cleanup(func() { l.Close(); require.NoError(w.t, <-done) })
	return ln.Addr().String()
}

// mailIn sends a message to Parley's listener as a mail server would.
func mailIn(t *testing.T, addr, from string, to []string, msg string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	return c.SendMail(from, to, strings.NewReader(strings.ReplaceAll(msg, "\n", "\r\n")))
}

func TestEmailRoundTrip(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)

	// A customer writes in: a new e-mail conversation.
	first := `From: Kim Lee <Kim@Example.com>
To: Support <support@acme.test>
Cc: partner@example.com
Subject: Broken blender
Message-ID: <m1@mail.example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary=b1

--b1
Content-Type: text/plain; charset=utf-8

It makes a noise & smokes.
Help!
--b1
Content-Type: image/png
Content-Disposition: attachment; filename=noise.png
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--b1--
`
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, first))
	id := int64(1)
	c := w.conv(id)
	assert.Equal(t, "Broken blender", c["subject"])
	assert.Equal(t, "email", c["type"])
	assert.Equal(t, map[string]any{"type": "email", "via": "customer"}, c["source"])
	assert.Equal(t, []any{"partner@example.com"}, c["cc"])
	assert.Equal(t, "kim@example.com", field(t, c, "primaryCustomer", "email"))
	assert.Equal(t, "Kim", field(t, c, "primaryCustomer", "first"))
	threads := field(t, c, "_embedded", "threads").([]any)
	require.Len(t, threads, 1)
	th := threads[0].(map[string]any)
	assert.Equal(t, "customer", th["type"])
	assert.Equal(t, "It makes a noise &amp; smokes.<br>\nHelp!", th["body"])
	atts := field(t, th, "_embedded", "attachments").([]any)
	require.Len(t, atts, 1)
	assert.Equal(t, "noise.png", atts[0].(map[string]any)["filename"])
	customerThread := int64(th["id"].(float64))
	src := w.send("GET", fmt.Sprintf("/v2/conversations/%d/threads/%d/original-source", id, customerThread), "", http.StatusOK)
	assert.Equal(t, strings.ReplaceAll(first, "\n", "\r\n"), src["original"])

	// The agent answers; the answer goes out as a reply to the customer's message.
	answer := w.postThread(fmt.Sprintf("/v2/conversations/%d/reply", id), reply(map[string]any{"text": "Unplug it, please.", "status": "closed"}))
	require.Equal(t, 1, w.deliver())
	out := parseMessage(t, w.relay.Messages()[0])
	inReplyTo, _ := out.header.MsgIDList("In-Reply-To")
	assert.Equal(t, []string{"m1@mail.example.com"}, inReplyTo)
	subject, _ := out.header.Subject()
	assert.Equal(t, "Re: Broken blender [#1]", subject)
	assert.Equal(t, []string{"kim@example.com", "partner@example.com"}, out.envelope.To, "the conversation's cc follows")
	assert.Equal(t, "closed", w.conv(id)["status"])

	// The customer answers the answer: a customer thread on the same
	// conversation, which it reopens.
	answerID, _ := out.header.MessageID() // what the customer's mail client answers
	assert.Equal(t, fmt.Sprintf("parley.%d.%d@acme.test", id, answer), answerID)
	second := fmt.Sprintf(`From: Kim Lee <kim@example.com>
To: Support <support@acme.test>
Subject: Re: Broken blender [#1]
Message-ID: <m2@mail.example.com>
In-Reply-To: <%s>
References: <m1@mail.example.com> <%s>
Content-Type: text/html; charset=utf-8

<p>Unplugged. Now what?</p>
`, answerID, answerID)
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, second))
	c = w.conv(id)
	assert.Equal(t, "active", c["status"], "a customer reply reopens")
	threads = field(t, c, "_embedded", "threads").([]any)
	require.Len(t, threads, 3)
	assert.Equal(t, "<p>Unplugged. Now what?</p>", threads[0].(map[string]any)["body"])
	assert.Equal(t, "customer", threads[0].(map[string]any)["type"])

	// A reply that lost its headers still finds the conversation by its tag;
	// a stranger naming the tag starts a conversation of their own.
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, "From: kim@example.com\nSubject: again [#1]\n\nStill broken.\n"))
	assert.Len(t, field(t, w.conv(id), "_embedded", "threads").([]any), 4)
	require.NoError(t, mailIn(t, addr, "eve@example.net", []string{"support@acme.test"}, "From: eve@example.net\nSubject: Re: Broken blender [#1]\nIn-Reply-To: <"+answerID+">\n\nLet me in.\n"))
	assert.Len(t, field(t, w.conv(id), "_embedded", "threads").([]any), 4)
	other := w.conv(2)
	assert.Equal(t, "Re: Broken blender", other["subject"])
	assert.Equal(t, "eve@example.net", field(t, other, "primaryCustomer", "email"))

	// A message received before (a server retrying after a lost answer) is
	// kept once.
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, first))
	assert.Len(t, field(t, w.conv(id), "_embedded", "threads").([]any), 4)
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Conversation(acmeID, 3)
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}

func TestEmailListenerLimits(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(2000)
	code := func(err error) int {
		var se *smtp.SMTPError
		require.ErrorAs(t, err, &se)
		return se.Code
	}
	// No open relay, no unknown mailbox.
	for _, to := range []string{"someone@elsewhere.example", "nobody@acme.test"} {
		assert.Equal(t, 550, code(mailIn(t, addr, "kim@example.com", []string{to}, "Subject: x\n\nx\n")), to)
	}
	// A message over the size limit.
	big := "Subject: big\n\n" + strings.Repeat("0123456789\n", 300)
	assert.Equal(t, 552, code(mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, big)))
	// Too many recipients.
	var many []string
	for range email.MaxRecipients + 1 {
		many = append(many, "support@acme.test")
	}
	assert.Equal(t, 452, code(mailIn(t, addr, "kim@example.com", many, "Subject: x\n\nx\n")))
	// A sender past its rate waits; others go on.
	w.clock.advance(time.Minute)
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	for i := range email.SenderRatePerMinute {
		require.NoError(t, c.Mail("flood@example.com", nil), "message %d", i)
		require.NoError(t, c.Reset())
	}
	assert.Equal(t, 450, code(c.Mail("flood@example.com", nil)))
	require.NoError(t, c.Reset())
	require.NoError(t, c.Mail("kim@example.com", nil))
	// None of it was stored.
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Conversation(acmeID, 1)
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}

func TestEmailNotifications(t *testing.T) {
	w := newMailWorld(t)
	notices := func() map[string][]string { // recipient -> subjects, since the last call
		w.t.Helper()
		before := len(w.relay.Messages())
		w.deliver()
		out := map[string][]string{}
		for _, m := range w.relay.Messages()[before:] {
			p := parseMessage(t, m)
			subject, _ := p.header.Subject()
			out[strings.Join(m.To, ",")] = append(out[strings.Join(m.To, ",")], subject)
		}
		return out
	}
	id := w.create(convJSON(map[string]any{"assignTo": agentID}))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	assert.Equal(t, map[string][]string{"uma@acme.test": {"[#1] Assigned to you: Where is my order?"}}, notices())

	w.postThread(path+"/customer", reply(map[string]any{"customer": customer("alice@example.com"), "text": "Any news?"}))
	assert.Equal(t, map[string][]string{"uma@acme.test": {"[#1] The customer replied: Where is my order?"}}, notices())
	m := parseMessage(t, w.relay.Messages()[len(w.relay.Messages())-1])
	assert.Equal(t, "auto-generated", m.header.Get("Auto-Submitted"))

	// Mentions: the handles named as whole words, of users who see the
	// mailbox, never the author.
	w.postThread(path+"/notes", reply(map[string]any{"text": "<p>@uma, @Adam: look. @olivia @umar @ian</p>"}))
	assert.Equal(t, map[string][]string{
		"uma@acme.test":  {"[#1] You were mentioned: Where is my order?"},
		"adam@acme.test": {"[#1] You were mentioned: Where is my order?"},
	}, notices())

	// Preferences: Uma turns customer replies off; imports tell nobody.
	uma := parley.Caller{Company: &parley.Company{ID: acmeID}, User: &parley.User{ID: agentID, CompanyID: acmeID, Role: parley.RoleUser}}
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		_, err := parley.SetNotifyPrefs(tx, uma, agentID, parley.NotifyPrefs{Assigned: true, Mentioned: true}, w.clock.Now())
		return err
	})
	require.NoError(t, err)
	w.postThread(path+"/customer", reply(map[string]any{"customer": customer("alice@example.com"), "text": "Hello?"}))
	w.postThread(path+"/notes", reply(map[string]any{"text": "@uma imported", "imported": true}))
	assert.Empty(t, notices())
	_, err = w.store.Update(context.Background(), func(tx parley.Tx) error {
		_, err := parley.SetNotifyPrefs(tx, uma, adminID, parley.NotifyPrefs{}, w.clock.Now())
		return err
	})
	assert.Equal(t, parley.KindForbidden, parley.KindOf(err), "a user sets only their own")

	// Reassigning tells the new assignee, unless they assign themselves.
	w.send("PATCH", path, `{"op":"replace","path":"/assignTo","value":`+fmt.Sprint(adminID)+`}`, http.StatusNoContent)
	assert.Equal(t, map[string][]string{"adam@acme.test": {"[#1] Assigned to you: Where is my order?"}}, notices())
	w.send("PATCH", path, `{"op":"replace","path":"/assignTo","value":`+fmt.Sprint(ownerID)+`}`, http.StatusNoContent)
	assert.Empty(t, notices())
}

// dsn is a delivery status notification (RFC 3464) about a message.
func dsn(messageID string) string {
	return `From: Mail Delivery System <MAILER-DAEMON@mx.example.com>
To: support@acme.test
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary=r1

--r1
Content-Type: text/plain

This is the mail system. Your message could not be delivered.
--r1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.com

Final-Recipient: rfc822; alice@example.com
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 user unknown

--r1
Content-Type: text/rfc822-headers

From: Support <support@acme.test>
To: alice@example.com
Subject: Re: Where is my order? [#1]
Message-Id: <` + messageID + `>

--r1--
`
}

func TestEmailBounceNotification(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	id := w.create(convJSON(nil))
	answer := w.postThread(fmt.Sprintf("/v2/conversations/%d/reply", id), reply(map[string]any{"text": "Here you go."}))
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, "published", threadState(t, w.conv(id), answer))

	// The relay accepted it; the customer's server sends it back.
	require.NoError(t, mailIn(t, addr, "", []string{"support@acme.test"}, dsn(fmt.Sprintf("parley.%d.%d@acme.test", id, answer))))
	c := w.conv(id)
	assert.Equal(t, "bounced", threadState(t, c, answer))
	assert.Len(t, field(t, c, "_embedded", "threads").([]any), 2, "the bounce is no thread")
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		log, err := tx.ConversationMail(1, id)
		require.NoError(t, err)
		require.Len(t, log, 1)
		assert.Equal(t, parley.MailBounced, log[0].Status)
		assert.Equal(t, "the message bounced: smtp; 550 5.1.1 user unknown", log[0].LastError)
		return nil
	}))

	// A bounce of no message of Parley's is dropped.
	require.NoError(t, mailIn(t, addr, "", []string{"support@acme.test"}, dsn("someone-else@example.com")))
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Conversation(acmeID, id+1)
		assert.True(t, parley.IsNotFound(err))
		return nil
	}))
}

func TestEmailInAutoReply(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	owner := parley.Caller{Company: &parley.Company{ID: acmeID}, User: &parley.User{ID: ownerID, CompanyID: acmeID, Role: parley.RoleOwner}}
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		_, err := parley.SetAutoReply(tx, owner, supportID, parley.AutoReply{Enabled: true, Subject: "Got it", Text: "Thanks."}, w.clock.Now())
		return err
	})
	require.NoError(t, err)
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, "From: kim@example.com\nSubject: Help\nMessage-ID: <a1@example.com>\n\nHelp me.\n"))
	require.NoError(t, mailIn(t, addr, "bot@example.com", []string{"support@acme.test"}, "From: bot@example.com\nSubject: Out of office\nAuto-Submitted: auto-replied\n\nAway.\n"))
	require.Equal(t, 1, w.deliver(), "machine-sent mail gets no auto reply")
	m := parseMessage(t, w.relay.Messages()[0])
	assert.Equal(t, []string{"kim@example.com"}, m.envelope.To)
	inReplyTo, _ := m.header.MsgIDList("In-Reply-To")
	assert.Equal(t, []string{"a1@example.com"}, inReplyTo)
	subject, _ := m.header.Subject()
	assert.Equal(t, "Got it [#1]", subject)
}
