package parley_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestThreadSourceAndBounce(t *testing.T) {
	w, id := oneConversation(t, "active")
	plain := w.plainUser(t)
	var reply, note *parley.Thread
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		if reply, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Sent")}, parley.EICARScanner{}, ruleNow); err != nil {
			return err
		}
		if note, err = parley.AddThread(tx, w.caller, id, parley.ThreadNote, &parley.ThreadRequest{Text: parley.Ptr("Note")}, parley.EICARScanner{}, ruleNow); err != nil {
			return err
		}
		return tx.PutThreadSource(reply.CompanyID, reply.ID, []byte("Subject: Sent\r\n\r\nSent\r\n"))
	}))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		raw, err := parley.ReadThreadSource(tx, w.caller, id, reply.ID, ruleNow)
		require.NoError(t, err)
		assert.Equal(t, "Subject: Sent\r\n\r\nSent\r\n", string(raw))
		_, err = parley.ReadThreadSource(tx, w.caller, id, note.ID, ruleNow)
		assert.True(t, parley.IsNotFound(err), "a note never was an e-mail")
		_, err = parley.ReadThreadSource(tx, plain, id, reply.ID, ruleNow)
		assert.True(t, parley.IsNotFound(err), "not for a user without the mailbox")
		return nil
	}))

	bounce := func(m parley.Mail) error {
		return w.write(func(tx parley.Tx) error { return parley.BounceThread(tx, &m, ruleNow) })
	}
	require.NoError(t, bounce(parley.Mail{Kind: parley.MailReply, CompanyID: w.caller.Company.ID, ConversationID: id, ThreadID: reply.ID, LastError: "550 no such user"}))
	require.NoError(t, bounce(parley.Mail{Kind: parley.MailReply, CompanyID: w.caller.Company.ID, ConversationID: id + 1000, ThreadID: reply.ID}), "a conversation deleted meanwhile")
	_, threads := w.load(t, id)
	for _, th := range threads {
		if th.ID == reply.ID {
			assert.Equal(t, []any{parley.ThreadBounced, "550 no such user"}, []any{th.State, th.BounceReason})
		}
		if th.ID == note.ID {
			assert.Equal(t, parley.ThreadPublished, th.State)
		}
	}
}

// TestReceiveMail: a customer's e-mail to a mailbox starts a conversation
// or, replying to one its sender may write to, adds a customer thread;
// each is kept once, with its raw message, and a new conversation is
// auto-replied to at most once a day, never for machine-sent mail.
// TestReceiveMailTakesTheTagOutOfTheSubject: a "[#n]" tag that names no
// conversation starts a new one whose subject is the rest, with the
// spaces around the tag made one, wherever the tag sat.
func TestReceiveMailTakesTheTagOutOfTheSubject(t *testing.T) {
	w := newWorld(t)
	cases := []struct{ subject, want string }{
		{"Broken order [#99]", "Broken order"},
		{"[#99] Broken order", "Broken order"},
		{"Broken [#99] order", "Broken order"},
		{"Broken\t[#99]  [#98] order", "Broken order"},
		{"Broken  order", "Broken  order"},
		{"[#99]", "(no subject)"},
	}
	for i, tc := range cases {
		t.Run(tc.subject, func(t *testing.T) {
			in := parley.InboundMail{MessageID: fmt.Sprintf("tag%d@ext", i), From: fmt.Sprintf("dan%d@example.com", i), Subject: tc.subject, Body: "<p>hi</p>"}
			var got *parley.Received
			require.NoError(t, w.write(func(tx parley.Tx) error {
				m, err := tx.Mailbox(w.caller.Company.ID, w.mailbox)
				if err != nil {
					return err
				}
				got, err = parley.ReceiveMail(tx, m, &in, parley.EICARScanner{}, parley.DefaultAutoReplyInterval, ruleNow)
				return err
			}))
			c, _ := w.load(t, got.ConversationID)
			assert.Equal(t, tc.want, c.Subject)
		})
	}
}

func TestReceiveMail(t *testing.T) {
	w := newWorld(t)
	var m *parley.Mailbox
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		m, err = parley.SetAutoReply(tx, w.caller, w.mailbox, parley.AutoReply{Enabled: true, Subject: "Got it", Text: "We will answer soon."}, ruleNow)
		return err
	}))
	receive := func(in parley.InboundMail, at time.Time) (*parley.Received, error) {
		var got *parley.Received
		err := w.write(func(tx parley.Tx) (err error) {
			got, err = parley.ReceiveMail(tx, m, &in, parley.EICARScanner{}, parley.DefaultAutoReplyInterval, at)
			return err
		})
		return got, err
	}
	mail := func(id, from, subject string, replyTo ...string) parley.InboundMail {
		return parley.InboundMail{MessageID: id, InReplyTo: replyTo, From: from, FromName: "Dan Dee", Subject: subject, Body: "<p>" + id + "</p>", Raw: []byte("raw " + id)}
	}
	_, err := receive(parley.InboundMail{From: "dan@example.com", CC: make([]string, parley.MaxMailCC+1)}, ruleNow)
	assertRefused(t, err, parley.KindInvalid, "cc", parley.CodeSize)
	_, err = receive(parley.InboundMail{From: "dan@example.com", Attachments: make([]parley.AttachmentInput, parley.MaxMailAttachments+1)}, ruleNow)
	assertRefused(t, err, parley.KindInvalid, "attachments", parley.CodeSize)

	first, err := receive(mail("m1@ext", "dan@example.com", "Broken order [#99]"), ruleNow)
	require.NoError(t, err)
	assert.True(t, first.Created)
	c, threads := w.load(t, first.ConversationID)
	assert.Equal(t, "Broken order", c.Subject, "the subject tag is taken out")
	assert.Equal(t, parley.Source{Type: "email", Via: parley.PartyCustomer}, c.Source)
	require.Len(t, threads, 1)
	assert.Equal(t, []any{parley.ThreadCustomer, "<p>m1@ext</p>", "m1@ext"}, []any{threads[0].Type, threads[0].Body, threads[0].MessageID})
	tag := fmt.Sprintf("Re: [#%d]", c.Number)

	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		mails, err := tx.ConversationMail(m.CompanyID, first.ConversationID)
		require.Len(t, mails, 1)
		assert.Equal(t, []any{parley.MailAutoReply, "Got it"}, []any{mails[0].Kind, mails[0].Subject}, "a new conversation is auto-replied to")
		return err
	}))
	cases := []struct {
		name     string
		in       parley.InboundMail
		at       time.Time
		into     int64 // the conversation it lands in; 0: a new one
		dup      bool
		answered bool // the new conversation was auto-replied to
	}{
		{"a message kept before", mail("m1@ext", "dan@example.com", "Broken order"), ruleNow, first.ConversationID, true, false},
		{"a reply by In-Reply-To", mail("m2@ext", "dan@example.com", "Re: Broken order", "m1@ext"), ruleNow, first.ConversationID, false, false},
		{"a reply by the subject tag", mail("m3@ext", "dan@example.com", tag), ruleNow, first.ConversationID, false, false},
		{"a stranger naming the conversation", mail("m4@ext", "eve@example.com", tag, "m1@ext"), ruleNow, 0, false, true},
		{"another customer naming the conversation", mail("m8@ext", "cara@example.com", tag, "m1@ext"), ruleNow, 0, false, true},
		{"the sender again within a day", mail("m5@ext", "dan@example.com", "Another thing"), ruleNow.Add(time.Hour), 0, false, false},
		{"the sender a day later", mail("m6@ext", "dan@example.com", "And another"), ruleNow.Add(25 * time.Hour), 0, false, true},
		{"machine-sent mail", func() parley.InboundMail {
			in := mail("m7@ext", "bot@example.com", "Out of office")
			in.AutoSubmitted = true
			return in
		}(), ruleNow, 0, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := receive(tc.in, tc.at)
			require.NoError(t, err)
			assert.Equal(t, tc.dup, got.Duplicate)
			assert.Equal(t, tc.into == 0, got.Created)
			if tc.into != 0 {
				assert.Equal(t, tc.into, got.ConversationID)
			}
			if tc.dup {
				return
			}
			require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
				raw, err := tx.ThreadSource(m.CompanyID, got.ThreadID)
				require.NoError(t, err)
				assert.Equal(t, tc.in.Raw, raw, "the raw message is kept")
				mails, err := tx.ConversationMail(m.CompanyID, got.ConversationID)
				require.NoError(t, err)
				replied := false
				for _, out := range mails {
					replied = replied || out.Kind == parley.MailAutoReply
				}
				if got.Created {
					assert.Equal(t, tc.answered, replied, "auto reply")
				}
				return nil
			}))
		})
	}
	_, threads = w.load(t, first.ConversationID)
	assert.Len(t, threads, 3, "the message and its two replies")

	dropped, err := receive(parley.InboundMail{Bounce: &parley.InboundBounce{Failed: true, MessageID: "nobody@ext"}}, ruleNow)
	require.NoError(t, err)
	assert.True(t, dropped.Dropped, "a bounce of no message of Parley's")
}
