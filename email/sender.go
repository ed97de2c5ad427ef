package email

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	parley "github.com/parley/parley"
)

// Sender hands a message to the world: a relay, or a folder.
type Sender interface {
	// Send delivers raw from the envelope sender to the recipients. The
	// attempt it reports says whether it worked and, if not, whether
	// trying again may help.
	Send(ctx context.Context, messageID, from string, recipients []string, raw []byte) parley.MailAttempt
}

// sendTimeout bounds one hand-over to a relay.
const sendTimeout = time.Minute

// Relay sends through an SMTP relay (a smarthost): STARTTLS when the
// relay offers it, AUTH PLAIN when a username is set (and only over TLS,
// or to a loopback relay, so a password never crosses a network in
// clear).
type Relay struct {
	Addr               string // host:port
	Username, Password string
	// LocalName is the name given in EHLO; default "localhost".
	LocalName string
	// TLS configures STARTTLS; default verifies the relay's host name.
	TLS *tls.Config
}

// Send implements Sender.
func (r *Relay) Send(ctx context.Context, _, from string, recipients []string, raw []byte) parley.MailAttempt {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	c, secure, err := r.dial(ctx)
	if err != nil {
		return attemptOf(err)
	}
	defer c.Close()
	if r.Username != "" {
		if host, _, _ := net.SplitHostPort(r.Addr); !secure && !loopback(host) {
			return parley.MailAttempt{Err: "the relay offers no STARTTLS; refusing to send the password in clear"}
		}
		if err := c.Auth(sasl.NewPlainClient("", r.Username, r.Password)); err != nil {
			a := attemptOf(err)
			a.Err, a.Permanent = "authentication: "+a.Err, false // the relay's configuration, not the message: retry
			return a
		}
	}
	if err := c.SendMail(from, recipients, bytes.NewReader(raw)); err != nil {
		return attemptOf(err)
	}
	c.Quit()
	return parley.MailAttempt{Code: 250}
}

// dial connects and greets the relay, upgrading to TLS when it offers
// STARTTLS (the library upgrades only on a fresh connection, so the
// probing one is closed first).
func (r *Relay) dial(ctx context.Context) (c *smtp.Client, secure bool, err error) {
	name := r.LocalName
	if name == "" {
		name = "localhost"
	}
	connect := func() (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", r.Addr)
		if err != nil {
			return nil, fmt.Errorf("connect: %w", err)
		}
		deadline, _ := ctx.Deadline()
		conn.SetDeadline(deadline)
		return conn, nil
	}
	conn, err := connect()
	if err != nil {
		return nil, false, err
	}
	c = smtp.NewClient(conn)
	if err := c.Hello(name); err != nil {
		c.Close()
		return nil, false, err
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		return c, false, nil
	}
	c.Close()
	if conn, err = connect(); err != nil {
		return nil, false, err
	}
	cfg := r.TLS
	if cfg == nil {
		host, _, _ := net.SplitHostPort(r.Addr)
		cfg = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	// NewClientStartTLS greets as "localhost"; the relay learns our name
	// again after the upgrade.
	if c, err = smtp.NewClientStartTLS(conn, cfg); err != nil {
		return nil, false, fmt.Errorf("STARTTLS: %w", err)
	}
	if err := c.Hello(name); err != nil {
		c.Close()
		return nil, false, err
	}
	return c, true, nil
}

// attemptOf classifies a failure: an SMTP reply of 5xx is permanent (the
// relay refused the message for good); a 4xx, a broken connection or a
// timeout may pass on a later attempt.
func attemptOf(err error) parley.MailAttempt {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return parley.MailAttempt{Code: se.Code, Err: fmt.Sprintf("the relay answered %d %s", se.Code, se.Message),
			Permanent: se.Code >= 500 && se.Code < 600}
	}
	return parley.MailAttempt{Err: err.Error()}
}

// Folder keeps messages as .eml files in a directory instead of sending
// them: development and demos without a relay. A file is named by its
// Message-ID, so a message sent twice (after a crash) is one file.
type Folder struct{ Dir string }

// Send implements Sender: it writes the message atomically (a temporary
// file renamed into place). The envelope is in X-Parley-Envelope-* headers
// at the top of the file, as local delivery agents do.
func (f *Folder) Send(_ context.Context, messageID, from string, recipients []string, raw []byte) parley.MailAttempt {
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return parley.MailAttempt{Err: err.Error()}
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, messageID) + ".eml"
	tmp, err := os.CreateTemp(f.Dir, ".sending-*")
	if err != nil {
		return parley.MailAttempt{Err: err.Error()}
	}
	envelope := "X-Parley-Envelope-From: " + from + "\r\nX-Parley-Envelope-To: " + strings.Join(recipients, ", ") + "\r\n"
	_, err = tmp.WriteString(envelope)
	if err == nil {
		_, err = tmp.Write(raw)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(f.Dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return parley.MailAttempt{Err: err.Error()}
	}
	return parley.MailAttempt{Code: 250}
}
