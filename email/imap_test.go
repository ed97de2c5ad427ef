package email

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// imapServer runs an in-memory IMAP server on loopback with one user.
func imapServer(t *testing.T) string {
	t.Helper()
	mem := imapmemserver.New()
	u := imapmemserver.NewUser("support", "pw")
	require.NoError(t, u.Create("INBOX", nil))
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}},
		InsecureAuth: true,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// deposit appends messages to the INBOX as a mail server would.
func deposit(t *testing.T, addr string, msgs ...string) {
	t.Helper()
	c, err := imapclient.DialInsecure(addr, nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login("support", "pw").Wait())
	for _, m := range msgs {
		m = strings.ReplaceAll(m, "\n", "\r\n")
		cmd := c.Append("INBOX", int64(len(m)), nil)
		_, err := cmd.Write([]byte(m))
		require.NoError(t, err)
		require.NoError(t, cmd.Close())
		_, err = cmd.Wait()
		require.NoError(t, err)
	}
}

func TestPollerReceivesOnce(t *testing.T) {
	db, err := storage.Open(t.TempDir()+"/parley.db", storage.Options{NoSync: true})
	require.NoError(t, err)
	defer db.Close()
	seed(t, db)
	addr := imapServer(t)
	hello := "From: Kim <kim@example.com>\nTo: support@acme.test\nSubject: Hello\nMessage-ID: <h1@example.com>\n\nHi there.\n"
	deposit(t, addr, hello, "From: kim@example.com\nTo: nobody@elsewhere.example\nSubject: Lost\n\nNot for us.\n")

	p, err := ParsePollerURL("imap://support:pw@" + addr + "/INBOX")
	require.NoError(t, err)
	p.Store, p.Clock = db.Store(), parley.ClockFunc(func() time.Time { return epoch })
	n, err := p.PollOnce(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the message for no mailbox is refused (and flagged seen)")
	n, err = p.PollOnce(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0, n, "seen messages are not fetched again")

	deposit(t, addr, hello) // fetched again (as after a crash before the flag)
	_, err = p.PollOnce(context.Background())
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		c, err := tx.Conversation(1, 1)
		require.NoError(t, err)
		assert.Equal(t, "Hello", c.Subject)
		assert.Equal(t, parley.Source{Type: "email", Via: parley.PartyCustomer}, c.Source)
		_, err = tx.Conversation(1, 2)
		assert.True(t, parley.IsNotFound(err), "kept once")
		return nil
	}))
}

func TestPollerURL(t *testing.T) {
	p, err := ParsePollerURL("imaps://me%40acme.test:s%3Acret@imap.acme.test/Support")
	require.NoError(t, err)
	assert.Equal(t, &Poller{Addr: "imap.acme.test:993", TLS: true, Username: "me@acme.test", Password: "s:cret", Folder: "Support"}, p)
	for _, bad := range []string{"http://u:p@h", "imaps://imap.acme.test", "imaps://u:p@/INBOX"} {
		_, err := ParsePollerURL(bad)
		assert.Error(t, err, bad)
	}
	p, err = ParsePollerURL("imap://u:p@imap.acme.test")
	require.NoError(t, err)
	_, err = p.PollOnce(context.Background())
	assert.ErrorContains(t, err, "only made to a loopback server")
}
