package api_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/email"
)

// smtpCode is the reply code of an SMTP error.
func smtpCode(t *testing.T, err error) int {
	t.Helper()
	var se *smtp.SMTPError
	require.ErrorAs(t, err, &se)
	return se.Code
}

// liveHeap is the heap in use once the garbage collector ran.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// indexed waits until the search index holds every change to the
// conversation so far, durably: the heap is measured with the indexing
// done.
func (w *mailWorld) indexed(id int64) {
	w.t.Helper()
	seq, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		c, err := tx.Conversation(acmeID, id)
		if err != nil {
			return err
		}
		return tx.PutConversation(c)
	})
	require.NoError(w.t, err)
	w.world.indexed(seq)
}

// onTheWire is the size of a message as mailIn sends it (CRLF line ends).
func onTheWire(msg string) int { return len(msg) + strings.Count(msg, "\n") }

// bigMessage is a message of at most size bytes on the wire, and not much
// less: a long text, or a short one and files of 9 MiB, Base64-encoded.
func bigMessage(from string, size int, files bool) string {
	head := fmt.Sprintf("From: %s\nTo: support@acme.test\nSubject: a big one\nMIME-Version: 1.0\n", from)
	line := strings.Repeat("all work & no play makes jack a dull boy. ", 23) + "\n"
	if !files {
		return head + "Content-Type: text/plain; charset=utf-8\n\n" + strings.Repeat(line, (size-onTheWire(head)-100)/onTheWire(line))
	}
	var b strings.Builder
	b.WriteString(head + "Content-Type: multipart/mixed; boundary=b1\n\n--b1\nContent-Type: text/plain\n\n" + line)
	var file strings.Builder
	encoded := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("0123456789abcdef", 9<<20/16)))
	for rest := encoded; rest != ""; rest = rest[min(76, len(rest)):] {
		file.WriteString(rest[:min(76, len(rest))] + "\n")
	}
	for i := 0; onTheWire(b.String())+onTheWire(file.String())+200 < size; i++ {
		fmt.Fprintf(&b, "--b1\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename=f%d.bin\nContent-Transfer-Encoding: base64\n\n", i)
		b.WriteString(file.String())
	}
	b.WriteString("--b1--\n")
	return b.String()
}

// TestEmailLargeMessagesKeepMemoryFlat: messages at the default size limit
// (25 MiB), long texts and files, leave the heap where it was once each is
// stored and indexed (the body a thread keeps is bounded, the message
// itself spooled on disk while it arrives); one over the limit is refused
// with 552.
func TestEmailLargeMessagesKeepMemoryFlat(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	const limit = email.DefaultMaxMessageBytes
	text, files := bigMessage("kim@example.com", limit, false), bigMessage("kim@example.com", limit, true)
	over := bigMessage("kim@example.com", limit+64<<10, false)
	for _, msg := range []string{text, files} {
		require.LessOrEqual(t, onTheWire(msg), limit)
	}
	require.Greater(t, onTheWire(text), limit-4<<10)
	require.Greater(t, onTheWire(files), limit-2<<20)
	require.Greater(t, onTheWire(over), limit)

	baseline := liveHeap()
	for i, msg := range []string{text, files, text, files} {
		require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, msg), "message %d", i)
		w.clock.advance(time.Minute) // within the sender's rate
		w.indexed(int64(i + 1))
		heap := liveHeap()
		t.Logf("after message %d: heap %d MiB, baseline %d MiB", i, heap>>20, baseline>>20)

		assert.Less(t, heap, baseline+64<<20, "message %d", i)
	}
	assert.Equal(t, 552, smtpCode(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, over)))

	// Four at once, each sent but for its end: spooled, not in memory.
	crlf := strings.ReplaceAll(text, "\n", "\r\n")
	baseline = liveHeap()
	var inFlight []*rawSMTP
	for i := range 4 {
		c := openData(t, addr, fmt.Sprintf("sender%d@example.com", i))
		c.write(crlf)
		inFlight = append(inFlight, c)
	}
	heap := liveHeap()
	t.Logf("four messages in flight: heap %d MiB, baseline %d MiB", heap>>20, baseline>>20)
	assert.Less(t, heap, baseline+64<<20)
	for _, c := range inFlight {
		c.say(".", "250 ")
	}

	c := w.conv(1)
	body := field(t, c, "_embedded", "threads").([]any)[0].(map[string]any)["body"].(string)
	assert.LessOrEqual(t, len(body), parley.MaxMailBodyBytes)
	assert.True(t, strings.HasSuffix(body, "<p>[This message is longer than 256 KiB: only its beginning is shown. The whole message is its original source.]</p>"), body[len(body)-200:])
	assert.Len(t, field(t, field(t, w.conv(2), "_embedded", "threads").([]any)[0].(map[string]any), "_embedded", "attachments"), 2)
}

// TestEmailLongBodyCut: a body longer than the thread keeps is cut at
// MaxMailBodyBytes, outside any tag or character reference, with a note;
// the original source is the whole message.
func TestEmailLongBodyCut(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	paragraph := "<p>Fish &amp; chips, caf\u00e9 cr\u00e8me.</p>\n" // é and è are two bytes each
	msg := "From: kim@example.com\nSubject: long\nContent-Type: text/html; charset=utf-8\n\n" + strings.Repeat(paragraph, 10000)
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, msg))
	th := field(t, w.conv(1), "_embedded", "threads").([]any)[0].(map[string]any)
	body := th["body"].(string)
	const note = "\n<p>[This message is longer than 256 KiB: only its beginning is shown. The whole message is its original source.]</p>"
	require.True(t, strings.HasSuffix(body, note))
	kept := strings.TrimSuffix(body, note)
	assert.LessOrEqual(t, len(body), parley.MaxMailBodyBytes)
	assert.Greater(t, len(body), parley.MaxMailBodyBytes*9/10, "what was read, but its CRLF line ends (kept as LF)")
	assert.True(t, strings.HasPrefix(strings.Repeat(paragraph, 10000), kept), "a prefix of the message")
	assert.True(t, utf8.ValidString(kept), "not cut in a character")
	assert.False(t, strings.LastIndex(kept, "<") > strings.LastIndex(kept, ">"), "not cut in a tag: %q", kept[len(kept)-40:])
	assert.False(t, strings.LastIndex(kept, "&") > strings.LastIndex(kept, ";"), "not cut in a reference: %q", kept[len(kept)-40:])
	src := w.send("GET", fmt.Sprintf("/v2/conversations/1/threads/%d/original-source", int64(th["id"].(float64))), "", http.StatusOK)
	assert.Equal(t, strings.ReplaceAll(msg, "\n", "\r\n"), src["original"])
}

// TestEmailMessageCaps: a message may name at most MaxMailCC Cc addresses
// and carry at most MaxMailAttachments files; one over either is refused
// and nothing of it is kept. (RCPT TO is capped too: TestEmailListenerLimits.)
func TestEmailMessageCaps(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	cc := func(n int) string {
		list := make([]string, n)
		for i := range list {
			list[i] = fmt.Sprintf("cc%d@example.com", i)
		}
		return "Cc: " + strings.Join(list, ",\n ") + "\n"
	}
	files := func(n int) string {
		var b strings.Builder
		b.WriteString("Content-Type: multipart/mixed; boundary=b1\n\n--b1\nContent-Type: text/plain\n\nsee the files\n")
		for i := range n {
			fmt.Fprintf(&b, "--b1\nContent-Type: text/plain\nContent-Disposition: attachment; filename=f%d.txt\n\nfile %d\n", i, i)
		}
		return b.String() + "--b1--\n"
	}
	cases := []struct {
		name, headers, body string
		refused             string // the reply's text; "" when accepted
	}{
		{"50 Cc", cc(parley.MaxMailCC), "\nhi\n", ""},
		{"51 Cc", cc(parley.MaxMailCC + 1), "\nhi\n", "cc: a message may have at most 50 Cc addresses"},
		{"50 files", "", files(parley.MaxMailAttachments), ""},
		{"51 files", "", files(parley.MaxMailAttachments + 1), "attachments: a message may have at most 50 attachments"},
	}
	stored := 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from := fmt.Sprintf("sender%d@example.com", i)
			err := mailIn(t, addr, from, []string{"support@acme.test"}, "From: "+from+"\nSubject: "+tc.name+"\nMIME-Version: 1.0\n"+tc.headers+tc.body)
			if tc.refused == "" {
				require.NoError(t, err)
				stored++
				return
			}
			assert.Equal(t, 554, smtpCode(t, err))
			assert.Contains(t, err.Error(), tc.refused)
		})
	}
	require.NoError(t, w.store.View(context.Background(), func(tx parley.Tx) error {
		for id := int64(1); id <= int64(stored)+1; id++ {
			_, err := tx.Conversation(acmeID, id)
			assert.Equal(t, id <= int64(stored), err == nil, "conversation %d", id)
		}
		return nil
	}))
	c := w.conv(1)
	assert.Len(t, c["cc"], parley.MaxMailCC)
	assert.Len(t, field(t, field(t, w.conv(2), "_embedded", "threads").([]any)[0].(map[string]any), "_embedded", "attachments"), parley.MaxMailAttachments)

}

// greeting dials the listener from a loopback address and reads the first
// line the server says.
func greeting(t *testing.T, addr, from string) (string, *bufio.Reader, func()) {
	t.Helper()
	conn := dial(t, addr, from)
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	return line, r, func() { conn.Close() }
}

// TestEmailConnectionCaps: one client address holds at most
// MaxConnsPerAddress connections (one more is answered 421 and closed);
// past MaxConns in all, a new connection waits for a place.
func TestEmailConnectionCaps(t *testing.T) {
	w := newMailWorld(t)
	addr := w.serveMail(&email.Listener{MaxConns: 3, MaxConnsPerAddress: 2})
	first, _, closeFirst := greeting(t, addr, "127.0.0.1")
	second, _, _ := greeting(t, addr, "127.0.0.1")
	assert.True(t, strings.HasPrefix(first, "220 "), first)
	assert.True(t, strings.HasPrefix(second, "220 "), second)
	over, r, _ := greeting(t, addr, "127.0.0.1")
	assert.Equal(t, "421 4.7.0 localhost too many connections from your address; try again later\r\n", over)
	_, err := r.ReadString('\n')
	assert.Error(t, err, "closed")

	other, _, _ := greeting(t, addr, "127.0.0.2")
	assert.True(t, strings.HasPrefix(other, "220 "), "another address has places of its own: %s", other)

	// Three are open: a fourth waits, whatever its address, until one closes.
	waiting := dial(t, addr, "127.0.0.3")
	require.NoError(t, waiting.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = bufio.NewReader(waiting).ReadString('\n')
	require.Error(t, err, "no greeting while the listener is full")
	require.NoError(t, waiting.SetReadDeadline(time.Now().Add(safety)))
	closeFirst()
	line, err := bufio.NewReader(waiting).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(line, "220 "), line)
}

// rawSMTP is a client speaking SMTP line by line.
type rawSMTP struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

// openData connects and starts a message from a sender to the support
// mailbox: after it, what is written is the message.
func openData(t *testing.T, addr, from string) *rawSMTP {
	t.Helper()
	c := &rawSMTP{t: t, conn: dial(t, addr, "")}
	c.r = bufio.NewReader(c.conn)
	c.say("", "220 ")
	c.say("HELO client.example.com", "250 ")
	c.say("MAIL FROM:<"+from+">", "250 ")
	c.say("RCPT TO:<support@acme.test>", "250 ")
	c.say("DATA", "354 ")
	return c
}

// rawStep bounds one write or reply of a rawSMTP: generous, as a message
// of 25 MiB may take it under the race detector.
const rawStep = time.Minute

// say sends a command (none when "") and reads the reply, which must start
// with want.
func (c *rawSMTP) say(cmd, want string) {
	c.t.Helper()
	if cmd != "" {
		c.write(cmd + "\r\n")
	}
	require.NoError(c.t, c.conn.SetReadDeadline(time.Now().Add(rawStep)))
	for {
		line, err := c.r.ReadString('\n')
		require.NoError(c.t, err)
		if len(line) < 4 || line[3] != '-' {
			require.True(c.t, strings.HasPrefix(line, want), "%s: %s", cmd, line)
			return
		}
	}
}

func (c *rawSMTP) write(s string) {
	c.t.Helper()
	require.NoError(c.t, c.conn.SetWriteDeadline(time.Now().Add(rawStep)))
	_, err := io.WriteString(c.conn, s)
	require.NoError(c.t, err)
}

// TestEmailConnectionDeadlines: a connection that sends nothing for the
// idle timeout is closed with 421; one that sends a message slowly, byte
// after byte within the idle timeout, is served; any connection ends at
// the session timeout, however busy.
func TestEmailConnectionDeadlines(t *testing.T) {
	w := newMailWorld(t)
	const idle, session = 500 * time.Millisecond, 5 * time.Second
	addr := w.serveMail(&email.Listener{IdleTimeout: idle, SessionTimeout: session})

	_, r, _ := greeting(t, addr, "")
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "421 4.4.2 Idle timeout, bye bye\r\n", line)

	// A message that takes three idle timeouts to arrive.
	c := openData(t, addr, "kim@example.com")
	c.write("From: kim@example.com\r\nSubject: slow\r\n\r\n")
	for start := time.Now(); time.Since(start) < 3*idle; {
		c.write("s l o w\r\n")
		time.Sleep(idle / 5)
	}
	c.say(".", "250 ")
	assert.Equal(t, "slow", w.conv(1)["subject"])

	// Busy, never idle, and still ended at the session timeout.
	c = &rawSMTP{t: t, conn: dial(t, addr, "")}
	c.r = bufio.NewReader(c.conn)
	c.say("", "220 ")
	opened := time.Now()
	for {
		if _, err := fmt.Fprint(c.conn, "NOOP\r\n"); err != nil {
			break
		}
		if _, err := c.r.ReadString('\n'); err != nil {
			break
		}
		require.Less(t, time.Since(opened), session+safety, "the session outlived its timeout")
		time.Sleep(idle / 5)
	}
	assert.GreaterOrEqual(t, time.Since(opened), session-time.Second/2)
}

// ccList is a Cc header of addresses cc<from>..cc<to-1>@example.com.
func ccList(from, to int) string {
	var list []string
	for i := from; i < to; i++ {
		list = append(list, fmt.Sprintf("cc%d@example.com", i))
	}
	return "Cc: " + strings.Join(list, ",\n ") + "\n"
}

// TestEmailReplyCCBounded: a reply without cc of its own goes to the
// conversation's cc as the agent saw it when publishing, and to at most
// MaxMailCC of its addresses (the first), however many messages added.
func TestEmailReplyCCBounded(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	kim := func(subject, headers string) {
		t.Helper()
		require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"},
			"From: kim@example.com\nSubject: "+subject+"\n"+headers+"\nhello\n"))
	}
	kim("Many friends", ccList(0, parley.MaxMailCC))
	kim("Re: Many friends [#1]", ccList(parley.MaxMailCC, parley.MaxMailCC+10))
	assert.Len(t, w.conv(1)["cc"], parley.MaxMailCC+10, "the conversation keeps every address")
	w.postThread("/v2/conversations/1/reply", reply(map[string]any{"text": "Hello all."}))
	require.Equal(t, 1, w.deliver())
	want := []string{"kim@example.com"}
	for i := range parley.MaxMailCC {
		want = append(want, fmt.Sprintf("cc%d@example.com", i))
	}
	assert.Equal(t, want, w.relay.Messages()[0].To)

	// A reply queued, then a message adding a Cc before it is built: the
	// reply goes where the agent saw; the next one to the new address too.
	kim("Just us", "Cc: partner@example.com\n")
	w.postThread("/v2/conversations/2/reply", reply(map[string]any{"text": "Hello two."}))
	kim("Re: Just us [#2]", "Cc: late@example.com\n")
	assert.Equal(t, []any{"partner@example.com", "late@example.com"}, w.conv(2)["cc"])
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, []string{"kim@example.com", "partner@example.com"}, w.relay.Messages()[1].To)
	w.postThread("/v2/conversations/2/reply", reply(map[string]any{"text": "Hello three."}))
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, []string{"kim@example.com", "partner@example.com", "late@example.com"}, w.relay.Messages()[2].To)

	// An e-mail queued by a version that kept no cc with it takes the
	// conversation's when it is built, bounded all the same.
	w.postThread("/v2/conversations/1/reply", reply(map[string]any{"text": "Queued long ago."}))
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		log, err := tx.ConversationMail(1, 1)
		if err != nil {
			return err
		}
		old := log[len(log)-1]
		require.True(t, old.Inherits)
		old.Inherits, old.InheritedCC = false, nil
		return tx.PutMail(&old)
	})
	require.NoError(t, err)
	require.Equal(t, 1, w.deliver())
	assert.Equal(t, want, w.relay.Messages()[3].To)
}

// autoReplies counts the auto replies sent since the last call, by
// recipient.
func (w *mailWorld) autoReplies() map[string]int {
	w.t.Helper()
	before := len(w.relay.Messages())
	w.deliver()
	out := map[string]int{}
	for _, m := range w.relay.Messages()[before:] {
		p := parseMessage(w.t, m)
		if subject, _ := p.header.Subject(); strings.HasPrefix(subject, "Got it") {
			out[strings.Join(m.To, ",")]++
		}
	}
	return out
}

// enableAutoReplies turns the auto reply of the Acme mailboxes on.
func (w *mailWorld) enableAutoReplies() {
	w.t.Helper()
	owner := parley.Caller{Company: &parley.Company{ID: acmeID}, User: &parley.User{ID: ownerID, CompanyID: acmeID, Role: parley.RoleOwner}}
	_, err := w.store.Update(context.Background(), func(tx parley.Tx) error {
		for _, id := range []int64{supportID, billingID} {
			if _, err := parley.SetAutoReply(tx, owner, id, parley.AutoReply{Enabled: true, Subject: "Got it", Text: "Thanks."}, w.clock.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(w.t, err)
}

// TestEmailAutoReplyOncePerInterval: a customer who starts conversations
// by mail gets one auto reply per mailbox per interval (a day unless
// configured); the count is read from what is stored, so a restarted
// listener keeps it, on both backends.
func TestEmailAutoReplyOncePerInterval(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		w := newMailWorldOn(t, on)
		w.enableAutoReplies()
		write := func(addr, from, to, subject string) {
			t.Helper()
			require.NoError(t, mailIn(t, addr, from, []string{to}, "From: "+from+"\nSubject: "+subject+"\n\nHello.\n"))
		}
		first := w.listen(0)
		for i := range 4 {
			write(first, "kim@example.com", "support@acme.test", fmt.Sprintf("Question %d", i))
		}
		assert.Equal(t, map[string]int{"kim@example.com": 1}, w.autoReplies(), "four messages, one auto reply")

		restarted := w.listen(0)
		write(restarted, "kim@example.com", "support@acme.test", "Question 5")
		write(restarted, "bo@example.com", "support@acme.test", "Mine")
		write(restarted, "kim@example.com", "billing@acme.test", "Invoice")
		assert.Equal(t, map[string]int{"bo@example.com": 1, "kim@example.com": 1}, w.autoReplies(),
			"none to kim from support after a restart; one to another customer, one from another mailbox")

		w.clock.advance(parley.DefaultAutoReplyInterval - time.Minute)
		write(restarted, "kim@example.com", "support@acme.test", "Still there?")
		assert.Empty(t, w.autoReplies(), "within the day")
		w.clock.advance(time.Minute)
		write(restarted, "kim@example.com", "support@acme.test", "A day later")
		assert.Equal(t, map[string]int{"kim@example.com": 1}, w.autoReplies(), "a day later")

		hourly := w.serveMail(&email.Listener{AutoReplyInterval: time.Hour})
		w.clock.advance(time.Hour)
		write(hourly, "kim@example.com", "support@acme.test", "An hour later")
		assert.Equal(t, map[string]int{"kim@example.com": 1}, w.autoReplies(), "the interval is configured")
	})
}

// TestEmailAutoReplyMachineSent: no auto reply answers a message that
// says a machine sent it (RFC 3834), nor one with a null sender.
func TestEmailAutoReplyMachineSent(t *testing.T) {
	w := newMailWorld(t)
	w.enableAutoReplies()
	addr := w.listen(0)
	cases := []struct {
		header   string
		answered bool
	}{
		{"Auto-Submitted: auto-replied", false},
		{"Auto-Submitted: auto-generated", false},
		{"Auto-Submitted: no", true},
		{"Precedence: bulk", false},
		{"Precedence: junk", false},
		{"Precedence: list", false},
		{"Precedence: auto_reply", false},
		{"Precedence: first-class", true},
		{"List-Id: Newsletter <news.example.com>", false},
		{"X-Autoreply: yes", false},
		{"X-Autorespond: Out of office", false},
		{"X-Auto-Response-Suppress: All", false},
		{"X-Auto-Response-Suppress: OOF, AutoReply", false},
		{"X-Auto-Response-Suppress: DR, RN", true},
		{"X-Mailer: a person's mail client", true},
	}
	for i, tc := range cases {
		from := fmt.Sprintf("sender%d@example.com", i)
		require.NoError(t, mailIn(t, addr, from, []string{"support@acme.test"}, "From: "+from+"\n"+tc.header+"\nSubject: Hello\n\nHello.\n"))
		want := map[string]int{}
		if tc.answered {
			want[from] = 1
		}
		assert.Equal(t, want, w.autoReplies(), tc.header)
	}
	require.NoError(t, mailIn(t, addr, "", []string{"support@acme.test"}, "From: robot@example.com\nSubject: Hello\n\nHello.\n"))
	assert.Empty(t, w.autoReplies(), "a null sender")
	assert.Equal(t, "robot@example.com", field(t, w.conv(int64(len(cases)+1)), "primaryCustomer", "email"), "kept all the same")
}

// TestEmailReferencesBounded: a reply is found by the last 100 Message-IDs
// of its References (and of its In-Reply-To), not by older ones: each is
// a lookup while the message is stored.
func TestEmailReferencesBounded(t *testing.T) {
	w := newMailWorld(t)
	addr := w.listen(0)
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"},
		"From: kim@example.com\nSubject: First\nMessage-ID: <first@example.com>\n\nhello\n"))
	refs := func(newer int) string {
		list := []string{"<first@example.com>"}
		for i := range newer {
			list = append(list, fmt.Sprintf("<other%d@example.com>", i))
		}
		return "References: " + strings.Join(list, "\n ") + "\n"
	}
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, "From: kim@example.com\nSubject: Second\n"+refs(99)+"\nagain\n"))
	assert.Len(t, field(t, w.conv(1), "_embedded", "threads").([]any), 2, "among the last 100: the same conversation")
	require.NoError(t, mailIn(t, addr, "kim@example.com", []string{"support@acme.test"}, "From: kim@example.com\nSubject: Third\n"+refs(100)+"\nagain\n"))
	assert.Len(t, field(t, w.conv(1), "_embedded", "threads").([]any), 2)
	assert.Equal(t, "Third", w.conv(2)["subject"], "older than the last 100: a conversation of its own")
}
