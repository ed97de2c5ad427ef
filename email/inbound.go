package email

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"mime"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode the charsets mail comes in
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
	"github.com/emersion/go-smtp"
	"golang.org/x/time/rate"

	parley "github.com/parley/parley"
)

// Limits of the SMTP listener against abuse: the defaults of the
// Listener's fields, and fixed bounds.
const (
	// DefaultMaxMessageBytes bounds a message as it is read, as the large
	// mail providers do (25 MB): room for the API's 10 MiB attachments,
	// Base64-encoded, a little over two of them.
	DefaultMaxMessageBytes = 25 << 20
	// DefaultMaxConns bounds the connections held at once; past it new
	// ones wait in the kernel's backlog. DefaultMaxConnsPerAddress bounds
	// those of one client address; one over it is answered 421 and closed.
	DefaultMaxConns           = 100
	DefaultMaxConnsPerAddress = 10
	// DefaultIdleTimeout ends a connection that sends nothing for that
	// long: no command, or no byte of the message it is sending.
	DefaultIdleTimeout = time.Minute
	// DefaultSessionTimeout ends any connection that long after it opened:
	// a 25 MB message needs about 45 KB/s.
	DefaultSessionTimeout = 10 * time.Minute
	// MaxRecipients bounds the recipients (RCPT TO) of one message.
	MaxRecipients = 20
	// SenderRatePerMinute bounds the messages one sender address may hand
	// over per minute (a token bucket: a burst of as many, then one every
	// two seconds); ClientRatePerMinute those of one client IP (a mail
	// server forwards many senders' mail).
	SenderRatePerMinute = 30
	ClientRatePerMinute = 120
)

// Listener receives customers' mail over SMTP for the mailboxes'
// addresses and turns each message into a thread (parley.ReceiveMail). It
// is no relay: a recipient that is not a mailbox's address is refused at
// RCPT TO.
//
// It is bounded against abuse: a message is spooled to a file as it
// arrives, and refused with 552 once it passes MaxBytes; it is read back
// into memory, parsed and stored one at a time (the store takes one write
// at a time anyway), so the memory the listener takes does not grow with
// the messages and connections it holds. Connections are capped in total
// and per client address, and each ends when idle or too old.
type Listener struct {
	Store   parley.Store
	Scanner parley.Scanner
	Clock   parley.Clock
	Log     *slog.Logger
	// Domain is the name the server greets with; default "localhost".
	Domain string
	// MaxBytes bounds a message; default DefaultMaxMessageBytes.
	MaxBytes int64
	// MaxConns and MaxConnsPerAddress cap the connections held, in total
	// and from one client address; defaults DefaultMaxConns and
	// DefaultMaxConnsPerAddress.
	MaxConns, MaxConnsPerAddress int
	// IdleTimeout and SessionTimeout end a connection idle that long, or
	// open that long; defaults DefaultIdleTimeout and
	// DefaultSessionTimeout.
	IdleTimeout, SessionTimeout time.Duration
	// AutoReplyInterval is how long a customer waits for the next auto
	// reply of a mailbox; default parley.DefaultAutoReplyInterval.
	AutoReplyInterval time.Duration
	// SpoolDir holds messages while they arrive; default the system's
	// directory for temporary files.
	SpoolDir string

	senders, clients *rates
	storing          sync.Mutex // held while a message is in memory
	once             sync.Once
	srv              *smtp.Server
}

// Serve accepts SMTP connections on ln until Close.
func (l *Listener) Serve(ln net.Listener) error {
	l.once.Do(l.init)
	err := l.srv.Serve(l.capped(ln))
	if errors.Is(err, smtp.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the listener and its connections.
func (l *Listener) Close() error {
	l.once.Do(l.init)
	return l.srv.Close()
}

func (l *Listener) init() {
	if l.Clock == nil {
		l.Clock = parley.SystemClock
	}
	if l.Log == nil {
		l.Log = slog.Default()
	}
	if l.Scanner == nil {
		l.Scanner = parley.EICARScanner{}
	}
	if l.Domain == "" {
		l.Domain = "localhost"
	}
	l.MaxBytes = cmp.Or(l.MaxBytes, DefaultMaxMessageBytes)
	l.MaxConns = cmp.Or(l.MaxConns, DefaultMaxConns)
	l.MaxConnsPerAddress = cmp.Or(l.MaxConnsPerAddress, DefaultMaxConnsPerAddress)
	l.IdleTimeout = cmp.Or(l.IdleTimeout, DefaultIdleTimeout)
	l.SessionTimeout = cmp.Or(l.SessionTimeout, DefaultSessionTimeout)
	l.AutoReplyInterval = cmp.Or(l.AutoReplyInterval, parley.DefaultAutoReplyInterval)
	l.senders = newRates(SenderRatePerMinute)
	l.clients = newRates(ClientRatePerMinute)
	l.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		host, _, _ := net.SplitHostPort(c.Conn().RemoteAddr().String())
		return &session{l: l, client: host}, nil
	}))
	l.srv.Domain = l.Domain
	l.srv.MaxMessageBytes = l.MaxBytes
	l.srv.MaxRecipients = MaxRecipients
	l.srv.WriteTimeout = time.Minute // reads are bounded by the connection (timedConn)
}

// rates keeps a token bucket (x/time/rate) per key: perMinute messages a
// minute, as a burst too. Keys whose bucket is full again are dropped
// once there are many, so the map stays bounded by recent senders.
type rates struct {
	mu        sync.Mutex
	perMinute int
	buckets   map[string]*rate.Limiter
}

// maxRateKeys is how many keys rates holds before it drops full buckets.
const maxRateKeys = 10000

func newRates(perMinute int) *rates {
	return &rates{perMinute: perMinute, buckets: map[string]*rate.Limiter{}}
}

// allow takes one message from key's bucket at now, if it holds one.
func (r *rates) allow(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[key]
	if b == nil {
		if len(r.buckets) >= maxRateKeys {
			for k, old := range r.buckets {
				if old.TokensAt(now) >= float64(r.perMinute) {
					delete(r.buckets, k)
				}
			}
		}
		b = rate.NewLimiter(rate.Every(time.Minute/time.Duration(r.perMinute)), r.perMinute)
		r.buckets[key] = b
	}
	return b.AllowN(now, 1)
}

// session is one SMTP transaction's state.
type session struct {
	l         *Listener
	client    string // remote IP
	from      string
	mailboxes []*parley.Mailbox
}

var (
	errRate       = &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "too many messages; try again later"}
	errNoMailbox  = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no mailbox here by that name (this server relays nothing)"}
	errBadSender  = &smtp.SMTPError{Code: 553, EnhancedCode: smtp.EnhancedCode{5, 1, 7}, Message: "the sender address is not valid"}
	errTemporary  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "could not store the message; try again later"}
	errUnreadable = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "the message could not be read"}
)

func (s *session) Reset()        { s.from, s.mailboxes = "", nil }
func (s *session) Logout() error { return nil }

// Mail takes the envelope sender, within the per-sender and per-client
// rates. A null sender (<>, bounces) is accepted: it is checked in Data.
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	from = parley.NormalizeEmail(from)
	if from != "" && !parley.ValidEmail(from) {
		return errBadSender
	}
	now := s.l.Clock.Now()
	if !s.l.clients.allow(s.client, now) || !s.l.senders.allow(from, now) {
		return errRate
	}
	s.from = from
	return nil
}

// Rcpt accepts the address of a mailbox, and nothing else.
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	var m *parley.Mailbox
	err := s.l.Store.View(context.Background(), func(tx parley.Tx) (err error) {
		m, err = tx.MailboxByEmail(to)
		return err
	})
	if parley.IsNotFound(err) {
		return errNoMailbox
	}
	if err != nil {
		s.l.Log.Error("email: look up a recipient", "err", err)
		return errTemporary
	}
	for _, have := range s.mailboxes {
		if have.ID == m.ID {
			return nil
		}
	}
	s.mailboxes = append(s.mailboxes, m)
	return nil
}

// Data spools the message to a file as it arrives (the library refuses it
// with 552 once it passes MaxBytes), then reads it back and stores it in
// each recipient mailbox, one message at a time.
func (s *session) Data(r io.Reader) error {
	f, err := os.CreateTemp(s.l.SpoolDir, "parley-mail-*.eml")
	if err != nil {
		s.l.Log.Error("email: spool a message", "err", err)
		return errTemporary
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := io.Copy(f, r); err != nil {
		var refused *smtp.SMTPError
		if errors.As(err, &refused) {
			return err // over the size limit
		}
		s.l.Log.Info("email: message not received", "from", s.from, "err", err)
		return errTemporary
	}
	s.l.storing.Lock()
	defer s.l.storing.Unlock()
	raw, err := os.ReadFile(f.Name())
	if err != nil {
		s.l.Log.Error("email: read a spooled message", "err", err)
		return errTemporary
	}
	in, err := parse(raw)
	if err != nil {
		s.l.Log.Info("email: unreadable message refused", "from", s.from, "err", err)
		return errUnreadable
	}
	if s.from == "" {
		in.AutoSubmitted = true // a null sender (<>): RFC 3834 says never to answer it
	}
	if in.From == "" || !parley.ValidEmail(in.From) {
		in.From = s.from
	}
	if !parley.ValidEmail(in.From) && in.Bounce == nil {
		return errBadSender
	}
	err = receive(context.Background(), s.l.Store, s.l.Scanner, s.l.Clock, s.l.Log, s.l.AutoReplyInterval, s.mailboxes, in)
	if err != nil && !parley.IsFailure(err) {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "message refused: " + err.Error()}
	}
	if err != nil {
		return errTemporary
	}
	return nil
}

// receive stores a message in each of its mailboxes (parley.ReceiveMail),
// each in its own transaction. It stops at the first error: a refusal of
// the domain refuses the message; a failure (parley.IsFailure) may pass
// on a later try.
func receive(ctx context.Context, store parley.Store, scan parley.Scanner, clock parley.Clock, log *slog.Logger, autoReplyEvery time.Duration,
	mailboxes []*parley.Mailbox, in *parley.InboundMail) error {
	for _, m := range mailboxes {
		var got *parley.Received
		_, err := store.Update(ctx, func(tx parley.Tx) (err error) {
			got, err = parley.ReceiveMail(tx, m, in, scan, autoReplyEvery, clock.Now())
			return err
		})
		if err != nil && !parley.IsFailure(err) {
			log.Info("email: message refused", "from", in.From, "mailbox", m.ID, "err", err)
			return err
		}
		if err != nil {
			log.Error("email: store a message", "from", in.From, "mailbox", m.ID, "err", err)
			return err
		}
		log.Info("email: received", "from", in.From, "mailbox", m.ID, "result", got.String())
	}
	return nil
}

// parse reads a message with go-message: its identity and reply headers,
// the sender, cc, subject, the HTML body (or the plain text, escaped),
// and every attachment (inline files too).
func parse(raw []byte) (*parley.InboundMail, error) {
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && r == nil {
		return nil, err
	}
	h := r.Header
	in := &parley.InboundMail{Raw: raw}
	in.MessageID, _ = h.MessageID()
	in.InReplyTo, _ = h.MsgIDList("In-Reply-To")
	in.References, _ = h.MsgIDList("References")
	in.Subject, _ = h.Subject()
	if from, err := h.AddressList("From"); err == nil && len(from) > 0 {
		in.From, in.FromName = parley.NormalizeEmail(from[0].Address), from[0].Name
	}
	for _, k := range []string{"To", "Cc", "Delivered-To", "X-Original-To"} {
		list, _ := h.AddressList(k)
		for _, a := range list {
			in.Recipients = append(in.Recipients, parley.NormalizeEmail(a.Address))
			if k == "Cc" {
				in.CC = append(in.CC, a.Address)
			}
		}
	}
	in.AutoSubmitted = machineSent(h)
	top, params, _ := h.ContentType()
	report := top == "multipart/report" && strings.EqualFold(params["report-type"], "delivery-status")
	var text, htmlBody string
	var textCut, htmlCut bool
	var bounce parley.InboundBounce
	for n := 0; ; n++ {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		inline, _ := p.Header.(*mail.InlineHeader)
		var ct string
		if inline != nil {
			ct, _, _ = inline.ContentType()
		}
		// A text longer than the body a thread keeps, or a file larger
		// than an attachment may be, is read only that far: the thread's
		// body is cut there, the file refused.
		limit := int64(parley.MaxAttachmentBytes) + 1
		if inline != nil && (ct == "" || strings.HasPrefix(ct, "text/")) {
			limit = parley.MaxMailBodyBytes + 1
		}
		body, err := io.ReadAll(io.LimitReader(p.Body, limit))
		if err != nil {
			return nil, err
		}
		cut := int64(len(body)) == limit
		if report && readReport(p.Header, body, &bounce) {
			continue
		}
		switch ph := p.Header.(type) {
		case *mail.InlineHeader:
			switch {
			case ct == "text/html" && htmlBody == "":
				htmlBody, htmlCut = string(body), cut
			case (ct == "text/plain" || ct == "") && text == "":
				text, textCut = string(body), cut
			case !strings.HasPrefix(ct, "text/"):
				in.Attachments = append(in.Attachments, attachment(fmt.Sprintf("inline-%d", n), ct, ph.Get("Content-Type"), body))
			}
		case *mail.AttachmentHeader:
			name, _ := ph.Filename()
			ct, _, _ := ph.ContentType()
			in.Attachments = append(in.Attachments, attachment(name, ct, "", body))
		}
	}
	in.Body = strings.TrimSpace(strings.ReplaceAll(htmlBody, "\r\n", "\n"))
	in.BodyCut = htmlCut
	if in.Body == "" {
		text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
		in.Body = strings.ReplaceAll(html.EscapeString(text), "\n", "<br>\n")
		in.BodyCut = textCut
	}
	if strings.TrimSpace(in.Body) == "" {
		in.Body = "(empty message)"
	}
	if report && bounce.Failed {
		in.Bounce = &bounce
	}
	return in, nil
}

// machineSent reports whether a message's headers say a machine sent it,
// which no auto reply answers (RFC 3834 section 2): Auto-Submitted other
// than "no", Precedence bulk, junk, list or auto_reply, a mailing list's
// List-Id, the X-Autoreply and X-Autorespond headers responders set, or
// an X-Auto-Response-Suppress asking for none.
func machineSent(h mail.Header) bool {
	auto := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted")))
	precedence := strings.ToLower(strings.TrimSpace(h.Get("Precedence")))
	suppress := strings.ToLower(h.Get("X-Auto-Response-Suppress"))
	return (auto != "" && auto != "no") ||
		slices.Contains([]string{"bulk", "junk", "list", "auto_reply"}, precedence) ||
		h.Has("List-Id") || h.Has("X-Autoreply") || h.Has("X-Autorespond") ||
		strings.Contains(suppress, "all") || strings.Contains(suppress, "autoreply") || strings.Contains(suppress, "oof")
}

// readReport reads the parts of a delivery status notification (RFC 3464)
// that say which message failed and why; it reports whether the part was
// one of them.
func readReport(h mail.PartHeader, body []byte, b *parley.InboundBounce) bool {
	ct, _, _ := h.(interface {
		ContentType() (string, map[string]string, error)
	}).ContentType()
	switch ct {
	case "message/delivery-status", "message/global-delivery-status":
		br := bufio.NewReader(bytes.NewReader(body))
		for { // the per-message fields, then one block per recipient
			fields, err := textproto.ReadHeader(br)
			if fields.Len() > 0 && strings.EqualFold(strings.TrimSpace(fields.Get("Action")), "failed") {
				b.Failed = true
				if b.Reason = strings.TrimSpace(fields.Get("Diagnostic-Code")); b.Reason == "" {
					b.Reason = "status " + strings.TrimSpace(fields.Get("Status"))
				}
			}
			if err != nil || fields.Len() == 0 {
				break
			}
		}
		return true
	case "message/rfc822", "text/rfc822-headers", "message/rfc822-headers", "message/global", "message/global-headers":
		if fields, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(body))); err == nil || fields.Len() > 0 {
			mh := mail.Header{Header: message.Header{Header: fields}}
			b.MessageID, _ = mh.MessageID()
		}
		return true
	}
	return false
}

// attachment is an attachment input of the API's shape, so that mail's
// files are checked and scanned by the same rules.
func attachment(name, mediaType, rawType string, data []byte) parley.AttachmentInput {
	if name == "" {
		name = "attachment"
		if _, params, err := mime.ParseMediaType(rawType); err == nil && params["name"] != "" {
			name = params["name"]
		}
	}
	if mediaType == "" {
		mediaType = "application/octet-stream"
	}
	b64 := base64.StdEncoding.EncodeToString(data)
	return parley.AttachmentInput{FileName: &name, MimeType: &mediaType, Data: &b64}
}

// ListenAndServe runs a Listener on addr until ctx ends.
func (l *Listener) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); l.Close() }()
	return l.Serve(ln)
}
