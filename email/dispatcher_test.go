package email

import (
	"context"
	"crypto/tls"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/email/smtptest"
	"github.com/parley/parley/storage"
)

var epoch = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// seed stores a company with an owner and a mailbox, and returns the
// owner as a caller.
func seed(t *testing.T, db *storage.DB) parley.Caller {
	t.Helper()
	var caller parley.Caller
	_, err := db.Update(func(tx *storage.Tx) error {
		c := &parley.Company{Name: "Acme", Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true, CreatedAt: epoch}
		if err := tx.PutCompany(c); err != nil {
			return err
		}
		u := &parley.User{CompanyID: c.ID, FirstName: "Olivia", LastName: "Owner", Email: "olivia@acme.test", Role: parley.RoleOwner, Active: true, CreatedAt: epoch}
		if err := tx.PutUser(u); err != nil {
			return err
		}
		m := &parley.Mailbox{CompanyID: c.ID, Name: "Support", Email: "support@acme.test", CreatedAt: epoch}
		for _, ft := range parley.SystemFolders {
			m.Folders = append(m.Folders, parley.Folder{Name: string(ft), Type: ft})
		}
		caller = parley.Caller{Company: c, User: u}
		return tx.PutMailbox(m)
	})
	require.NoError(t, err)
	return caller
}

func ptr[T any](v T) *T { return &v }

// replyConversation creates a conversation with a customer thread and a
// reply, the reply's e-mail committed with it.
func replyConversation(t *testing.T, db *storage.DB, caller parley.Caller) *parley.Conversation {
	t.Helper()
	var c *parley.Conversation
	_, err := db.Update(func(tx *storage.Tx) (err error) {
		n := &parley.NewConversation{Subject: ptr("Order"), Type: ptr("email"), MailboxID: ptr(int64(1)), Status: ptr("active"),
			Customer: &parley.CustomerInput{Email: ptr("kim@example.com")},
			Threads:  []parley.NewThread{{Type: ptr("customer"), Text: ptr("Where is it?")}, {Type: ptr("reply"), Text: ptr("On its way.")}}}
		require.NoError(t, n.Validate())
		c, err = parley.CreateConversation(tx, caller, n, nil, epoch)
		return err
	})
	require.NoError(t, err)
	return c
}

func dispatcher(db *storage.DB, relay *smtptest.Server) *Dispatcher {
	return NewDispatcher(Config{DB: db, Sender: &Relay{Addr: relay.Addr}, Clock: parley.ClockFunc(func() time.Time { return epoch }),
		Rand: rand.New(rand.NewPCG(1, 2))})
}

// TestRestartDeliversOnce closes the database between the commit of a
// reply and its delivery (as a kill -9 would leave it), at both points a
// crash can fall: before the message was built, and after it was built
// and stored but before it was sent. Each time the reopened outbox sends
// the message exactly once, with the same Message-ID and bytes.
func TestRestartDeliversOnce(t *testing.T) {
	for _, built := range []bool{false, true} {
		t.Run(map[bool]string{false: "committed", true: "built"}[built], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parley.db")
			db, err := storage.Open(path, storage.Options{})
			require.NoError(t, err)
			relay := smtptest.New(t)
			c := replyConversation(t, db, seed(t, db))
			var raw []byte
			if built {
				m := parley.Mail{ID: 1, CompanyID: c.CompanyID}
				require.NoError(t, dispatcher(db, relay).prepare(context.Background(), &m, epoch))
				raw = m.Raw
				require.NotEmpty(t, raw)
			}
			require.NoError(t, db.Close())

			db, err = storage.Open(path, storage.Options{})
			require.NoError(t, err)
			defer db.Close()
			d := dispatcher(db, relay)
			n, err := d.SendDue(context.Background(), epoch)
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			n, err = d.SendDue(context.Background(), epoch.Add(24*time.Hour))
			require.NoError(t, err)
			assert.Equal(t, 0, n)
			msgs := relay.Messages()
			require.Len(t, msgs, 1)
			assert.Contains(t, string(msgs[0].Data), "Message-Id: <parley.1.2@acme.test>")
			if built {
				assert.Equal(t, string(raw), string(msgs[0].Data))
			}
			require.NoError(t, db.View(func(tx *storage.Tx) error {
				log, err := tx.ConversationMail(c.CompanyID, c.ID)
				require.NoError(t, err)
				require.Len(t, log, 1)
				assert.Equal(t, parley.MailSent, log[0].Status)
				src, err := tx.ThreadSource(log[0].CompanyID, log[0].ThreadID)
				require.NoError(t, err)
				assert.Equal(t, string(msgs[0].Data), string(src), "the original source is what was sent")
				return nil
			}))
		})
	}
}

// TestFolderKeepsOneFilePerMessage writes messages as .eml files; a message
// sent again (after a crash) replaces its file.
func TestFolderKeepsOneFilePerMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail-outbox")
	f := &Folder{Dir: dir}
	for range 2 {
		a := f.Send(context.Background(), "parley.1.2@acme.test", "support@acme.test", []string{"kim@example.com"}, []byte("Subject: hi\r\n\r\nbody\r\n"))
		require.Empty(t, a.Err)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "parley.1.2@acme.test.eml", entries[0].Name())
	data, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	require.NoError(t, err)
	assert.Equal(t, "X-Parley-Envelope-From: support@acme.test\r\nX-Parley-Envelope-To: kim@example.com\r\nSubject: hi\r\n\r\nbody\r\n", string(data))
}

// TestRelayStartTLSAndAuth sends through a relay that offers STARTTLS and
// requires AUTH: the message goes encrypted, authenticated; a wrong
// password is the relay's configuration, retried, not a bounce.
func TestRelayStartTLSAndAuth(t *testing.T) {
	relay, roots := smtptest.NewTLS(t, "parley", "s3cret")
	r := &Relay{Addr: relay.Addr, Username: "parley", Password: "s3cret", TLS: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}}
	a := r.Send(context.Background(), "m@acme.test", "support@acme.test", []string{"kim@example.com"}, []byte("Subject: hi\r\n\r\nbody\r\n"))
	require.Empty(t, a.Err)
	msgs := relay.Messages()
	require.Len(t, msgs, 1)
	assert.True(t, msgs[0].TLS)
	assert.Equal(t, "parley", msgs[0].User)

	r.Password = "wrong"
	a = r.Send(context.Background(), "m@acme.test", "support@acme.test", []string{"kim@example.com"}, []byte("Subject: hi\r\n\r\nbody\r\n"))
	assert.Equal(t, 535, a.Code)
	assert.False(t, a.Permanent)
	assert.Contains(t, a.Err, "authentication")

	// A certificate the client does not trust stops the hand-over.
	r.Password, r.TLS = "s3cret", &tls.Config{ServerName: "127.0.0.1"}
	a = r.Send(context.Background(), "m@acme.test", "support@acme.test", []string{"kim@example.com"}, []byte("Subject: hi\r\n\r\nbody\r\n"))
	assert.NotEmpty(t, a.Err)
	assert.False(t, a.Permanent)
	assert.Len(t, relay.Messages(), 1)
}
