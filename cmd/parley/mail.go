package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/email"
)

// mailFlags configure the e-mail channel of serve.
type mailFlags struct {
	relay, username, password, hostname, listen, imapURL *string
	imapEvery                                            *time.Duration
	maxBytes                                             *int64
	maxConns, maxConnsPerAddress                         *int
	idleTimeout, sessionTimeout, autoReplyEvery          *time.Duration
}

// addMailFlags registers the e-mail flags of serve.
func addMailFlags(fs *flag.FlagSet) *mailFlags {
	return &mailFlags{
		relay:     fs.String("smtp-relay", "", "SMTP relay host:port that sends outgoing e-mail (PARLEY_SMTP_RELAY); default: write .eml files to <data>/mail-outbox"),
		username:  fs.String("smtp-username", "", "username for the relay, AUTH PLAIN over STARTTLS (PARLEY_SMTP_USERNAME)"),
		password:  fs.String("smtp-password", "", "password for the relay (PARLEY_SMTP_PASSWORD)"),
		listen:    fs.String("smtp-listen", "", "address of the SMTP listener that receives customers' mail for the mailboxes, e.g. :2525 (PARLEY_SMTP_LISTEN); default: none"),
		imapURL:   fs.String("imap-url", "", "IMAP folder to poll for customers' mail, imaps://user:password@host[:port][/folder] (PARLEY_IMAP_URL); default: none"),
		imapEvery: fs.Duration("imap-interval", time.Minute, "how often the IMAP folder is polled (PARLEY_IMAP_INTERVAL)"),
		hostname:  fs.String("smtp-hostname", "localhost", "this host's name in SMTP greetings (PARLEY_SMTP_HOSTNAME)"),
		maxBytes: fs.Int64("smtp-max-message-bytes", email.DefaultMaxMessageBytes,
			"largest message the SMTP listener takes, in bytes; a larger one is refused with 552 (PARLEY_SMTP_MAX_MESSAGE_BYTES)"),
		maxConns: fs.Int("smtp-max-connections", email.DefaultMaxConns,
			"SMTP connections held at once; more wait (PARLEY_SMTP_MAX_CONNECTIONS)"),
		maxConnsPerAddress: fs.Int("smtp-max-connections-per-address", email.DefaultMaxConnsPerAddress,
			"SMTP connections held from one client address; one more is answered 421 (PARLEY_SMTP_MAX_CONNECTIONS_PER_ADDRESS)"),
		idleTimeout: fs.Duration("smtp-idle-timeout", email.DefaultIdleTimeout,
			"an SMTP connection that sends nothing for this long is closed (PARLEY_SMTP_IDLE_TIMEOUT)"),
		sessionTimeout: fs.Duration("smtp-session-timeout", email.DefaultSessionTimeout,
			"an SMTP connection is closed this long after it opened (PARLEY_SMTP_SESSION_TIMEOUT)"),
		autoReplyEvery: fs.Duration("auto-reply-interval", parley.DefaultAutoReplyInterval,
			"a customer who writes in by e-mail gets at most one auto reply per mailbox in this time (PARLEY_AUTO_REPLY_INTERVAL)"),
	}
}

// check refuses values of the e-mail flags that would disable a bound.
func (f *mailFlags) check() error {
	switch {
	case *f.maxBytes <= 0:
		return fmt.Errorf("%w: --smtp-max-message-bytes must be positive", errUsage)
	case *f.maxConns <= 0 || *f.maxConnsPerAddress <= 0:
		return fmt.Errorf("%w: --smtp-max-connections and --smtp-max-connections-per-address must be positive", errUsage)
	case *f.idleTimeout < time.Second || *f.sessionTimeout < time.Second:
		return fmt.Errorf("%w: --smtp-idle-timeout and --smtp-session-timeout must be at least 1s", errUsage)
	case *f.autoReplyEvery <= 0:
		return fmt.Errorf("%w: --auto-reply-interval must be positive", errUsage)
	}
	return nil
}

// mailSpool is the folder the SMTP listener writes messages to while they
// arrive; nothing in it outlives a message.
func mailSpool(dataDir string) string { return filepath.Join(dataDir, "mail-spool") }

// mailOutbox is the folder outgoing e-mail is written to without a relay.
func mailOutbox(dataDir string) string { return filepath.Join(dataDir, "mail-outbox") }

// sender is where outgoing e-mail goes: the relay, else the outbox folder.
func (f *mailFlags) sender(dataDir string) (email.Sender, string, error) {
	if *f.relay == "" {
		dir := mailOutbox(dataDir)
		return &email.Folder{Dir: dir}, "folder " + dir, nil
	}
	if _, _, err := net.SplitHostPort(*f.relay); err != nil {
		return nil, "", fmt.Errorf("%w: --smtp-relay must be host:port: %v", errUsage, err)
	}
	return &email.Relay{Addr: *f.relay, Username: *f.username, Password: *f.password, LocalName: *f.hostname}, "relay " + *f.relay, nil
}

// startMail runs the e-mail dispatcher beside the webhook dispatcher, the
// SMTP listener when an address is set, and the IMAP poller when a URL is.
// It returns a function that stops them and waits, and the address the
// SMTP listener listens on ("" for none: with port 0, the one it got).
func startMail(f *mailFlags, db parley.MailSource, dataDir string, log *slog.Logger) (func(), string, error) {
	sender, where, err := f.sender(dataDir)
	if err != nil {
		return nil, "", err
	}
	var poller *email.Poller
	if *f.imapURL != "" {
		if poller, err = email.ParsePollerURL(*f.imapURL); err != nil {
			return nil, "", fmt.Errorf("%w: --imap-url: %v", errUsage, err)
		}
		if *f.imapEvery < time.Second {
			return nil, "", fmt.Errorf("%w: --imap-interval must be at least 1s", errUsage)
		}
		poller.Store, poller.Clock, poller.Log, poller.AutoReplyInterval = db.Store(), parley.SystemClock, log, *f.autoReplyEvery
	}
	var ln net.Listener
	if *f.listen != "" {
		// Spooled messages of a run that stopped were never answered 250:
		// their senders send them again.
		spool := mailSpool(dataDir)
		if err := os.RemoveAll(spool); err != nil {
			return nil, "", err
		}
		if err := os.MkdirAll(spool, 0o700); err != nil {
			return nil, "", err
		}
		if ln, err = net.Listen("tcp", *f.listen); err != nil {
			return nil, "", fmt.Errorf("--smtp-listen: %w", err)
		}
	}
	d := email.NewDispatcher(email.Config{DB: db, Sender: sender, Clock: parley.SystemClock, Log: log})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { d.Run(ctx) })
	log.Info("outgoing e-mail", "to", where)
	smtpAddr := ""
	if ln != nil {
		smtpAddr = ln.Addr().String()
		l := &email.Listener{Store: db.Store(), Clock: parley.SystemClock, Log: log, Domain: *f.hostname,
			MaxBytes: *f.maxBytes, MaxConns: *f.maxConns, MaxConnsPerAddress: *f.maxConnsPerAddress,
			IdleTimeout: *f.idleTimeout, SessionTimeout: *f.sessionTimeout, AutoReplyInterval: *f.autoReplyEvery,
			SpoolDir: mailSpool(dataDir)}
		wg.Go(func() {
			if err := l.Serve(ln); err != nil {
				log.Error("smtp listener stopped", "err", err)
			}
		})
		wg.Go(func() { <-ctx.Done(); l.Close() })
		log.Info("receiving e-mail", "addr", smtpAddr)
	}
	if poller != nil {
		wg.Go(func() { poller.Run(ctx, *f.imapEvery) })
		log.Info("polling IMAP for e-mail", "addr", poller.Addr, "folder", poller.Folder, "every", f.imapEvery.String())
	}
	return func() { stop(); wg.Wait() }, smtpAddr, nil
}
