package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	parley "github.com/parley/parley"
)

// Poller fetches the unseen messages of an IMAP folder, for operators who
// keep their mail server: each message is received like the SMTP
// listener's (parley.ReceiveMail) into the mailboxes its recipients name,
// then flagged \Seen. A crash between the two fetches it again; its
// Message-ID keeps it from being stored twice.
type Poller struct {
	// Addr is host:port; TLS dials implicit TLS (imaps); without it the
	// connection is plain, which only a loopback server (a local bridge,
	// tests) may take, so a password never crosses a network in clear.
	Addr               string
	TLS                bool
	Username, Password string
	Folder             string // default INBOX
	TLSConfig          *tls.Config

	Store   parley.Store
	Scanner parley.Scanner
	Clock   parley.Clock
	Log     *slog.Logger
	// AutoReplyInterval is how long a customer waits for the next auto
	// reply of a mailbox; default parley.DefaultAutoReplyInterval.
	AutoReplyInterval time.Duration
}

// ParsePollerURL reads imaps://user:password@host:993/Folder (or imap://
// for a plain connection to a loopback bridge) into a Poller.
func ParsePollerURL(raw string) (*Poller, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	p := &Poller{Addr: u.Host, Username: u.User.Username(), Folder: "INBOX"}
	p.Password, _ = u.User.Password()
	switch u.Scheme {
	case "imaps":
		p.TLS = true
		if u.Port() == "" {
			p.Addr += ":993"
		}
	case "imap":
		if u.Port() == "" {
			p.Addr += ":143"
		}
	default:
		return nil, fmt.Errorf("the scheme must be imaps or imap, not %q", u.Scheme)
	}
	if u.Hostname() == "" || p.Username == "" {
		return nil, errors.New("give imaps://user:password@host[:port][/folder]")
	}
	if f := u.Path; len(f) > 1 {
		p.Folder = f[1:]
	}
	return p, nil
}

// pollBatch bounds the messages fetched per poll.
const pollBatch = 50

// PollOnce fetches and receives the folder's unseen messages and returns
// how many it received.
func (p *Poller) PollOnce(ctx context.Context) (int, error) {
	if p.Clock == nil {
		p.Clock = parley.SystemClock
	}
	if p.Log == nil {
		p.Log = slog.Default()
	}
	if p.Scanner == nil {
		p.Scanner = parley.EICARScanner{}
	}
	if p.AutoReplyInterval == 0 {
		p.AutoReplyInterval = parley.DefaultAutoReplyInterval
	}
	opts := &imapclient.Options{TLSConfig: p.TLSConfig}
	var c *imapclient.Client
	var err error
	if host, _, _ := net.SplitHostPort(p.Addr); !p.TLS && !loopback(host) {
		return 0, errors.New("imap: a plain connection is only made to a loopback server; use imaps://")
	}
	if p.TLS {
		c, err = imapclient.DialTLS(p.Addr, opts)
	} else {
		c, err = imapclient.DialInsecure(p.Addr, opts)
	}
	if err != nil {
		return 0, fmt.Errorf("imap: connect: %w", err)
	}
	defer c.Close()
	if err := c.Login(p.Username, p.Password).Wait(); err != nil {
		return 0, fmt.Errorf("imap: login: %w", err)
	}
	folder := p.Folder
	if folder == "" {
		folder = "INBOX"
	}
	if _, err := c.Select(folder, nil).Wait(); err != nil {
		return 0, fmt.Errorf("imap: select %s: %w", folder, err)
	}
	found, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil {
		return 0, fmt.Errorf("imap: search: %w", err)
	}
	uids := found.AllUIDs()
	if len(uids) > pollBatch {
		uids = uids[:pollBatch]
	}
	received := 0
	section := &imap.FetchItemBodySection{Peek: true}
	for _, uid := range uids {
		if ctx.Err() != nil {
			break
		}
		msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}}).Collect()
		if err != nil {
			return received, fmt.Errorf("imap: fetch %d: %w", uid, err)
		}
		if len(msgs) == 0 {
			continue
		}
		raw := msgs[0].FindBodySection(section)
		if err := p.take(ctx, raw); err != nil {
			if parley.IsFailure(err) {
				return received, err // storage trouble: the message stays unseen for the next poll
			}
			p.Log.Info("imap: message refused; flagged seen", "uid", uid, "err", err)
		} else {
			received++
		}
		flags := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
		if err := c.Store(imap.UIDSetNum(uid), flags, nil).Close(); err != nil {
			return received, fmt.Errorf("imap: flag %d seen: %w", uid, err)
		}
	}
	return received, c.Logout().Wait()
}

// take receives one fetched message into the mailboxes its recipients
// name (To, Cc, Delivered-To, X-Original-To); one that names none is
// refused.
func (p *Poller) take(ctx context.Context, raw []byte) error {
	in, err := parse(raw)
	if err != nil {
		return parley.Invalid("message", "", parley.CodeValueNotSupported, "unreadable: "+err.Error(), nil)
	}
	var boxes []*parley.Mailbox
	err = p.Store.View(ctx, func(tx parley.Tx) error {
		for _, a := range in.Recipients {
			m, err := tx.MailboxByEmail(a)
			if parley.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			if !containsMailbox(boxes, m.ID) {
				boxes = append(boxes, m)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(boxes) == 0 {
		return parley.Invalid("message", "", parley.CodeValueNotSupported, "no recipient is a mailbox's address", nil)
	}
	if !parley.ValidEmail(in.From) && in.Bounce == nil {
		return parley.Invalid("message", "", parley.CodeEmail, "no valid sender", in.From)
	}
	return receive(ctx, p.Store, p.Scanner, p.Clock, p.Log, p.AutoReplyInterval, boxes, in)
}

// loopback reports whether a host name or address is this machine.
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func containsMailbox(list []*parley.Mailbox, id int64) bool {
	for _, m := range list {
		if m.ID == id {
			return true
		}
	}
	return false
}

// Run polls every interval until ctx ends.
func (p *Poller) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := p.PollOnce(ctx); err != nil && ctx.Err() == nil {
			p.Log.Error("imap: polling failed; will retry", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
