package parley_test

import (
	"context"
	"testing"

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
		return tx.PutThreadSource(reply.ID, []byte("Subject: Sent\r\n\r\nSent\r\n"))
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
