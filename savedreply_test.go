package parley_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestSavedReplies(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t) // no mailbox of its own
	create := func(caller parley.Caller, mailbox int64, in parley.SavedReplyInput) (*parley.SavedReply, error) {
		var r *parley.SavedReply
		err := w.write(func(tx parley.Tx) (err error) {
			r, err = parley.CreateSavedReply(tx, caller, mailbox, &in, ruleNow)
			return err
		})
		return r, err
	}
	refused := []struct {
		name   string
		caller parley.Caller
		in     parley.SavedReplyInput
		code   string
		kind   parley.Kind
	}{
		{"no name", w.caller, parley.SavedReplyInput{Text: parley.Ptr("Hi")}, parley.CodeNullValue, parley.KindInvalid},
		{"no text of either kind", w.caller, parley.SavedReplyInput{Name: parley.Ptr("Hi"), Text: parley.Ptr("  ")}, parley.CodeEmptyValue, parley.KindInvalid},
		{"too long a text", w.caller, parley.SavedReplyInput{Name: parley.Ptr("Hi"), Text: parley.Ptr(strings.Repeat("a", parley.MaxSavedReplyText+1))}, parley.CodeSize, parley.KindInvalid},
		{"a mailbox the caller cannot use", plain, parley.SavedReplyInput{Name: parley.Ptr("Hi"), Text: parley.Ptr("Hi")}, "", parley.KindNotFound},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := create(tt.caller, w.mailbox, tt.in)
			require.Error(t, err)
			assert.Equal(t, tt.kind, parley.KindOf(err))
			if tt.code != "" {
				assert.Equal(t, tt.code, code(t, err))
			}
		})
	}

	email, err := create(w.caller, w.mailbox, parley.SavedReplyInput{Name: parley.Ptr(" Refund timing "), Text: parley.Ptr(" <p>Refunds take 5 days.</p> ")})
	require.NoError(t, err)
	assert.Equal(t, []string{"Refund timing", "<p>Refunds take 5 days.</p>", ""}, []string{email.Name, email.Text, email.ChatText}, "trimmed")
	chat, err := create(w.caller, w.mailbox, parley.SavedReplyInput{Name: parley.Ptr("Hello"), ChatText: parley.Ptr("Hi there!")})
	require.NoError(t, err)
	assert.True(t, chat.ChatOnly())
	_, err = create(w.caller, w.other, parley.SavedReplyInput{Name: parley.Ptr("Elsewhere"), Text: parley.Ptr("x")})
	require.NoError(t, err)

	list := func(includeChat bool) []string {
		var names []string
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
			all, err := parley.SavedRepliesOf(tx, w.caller, w.mailbox, includeChat)
			for _, r := range all {
				names = append(names, r.Name)
			}
			return err
		}))
		return names
	}
	assert.Equal(t, []string{"Refund timing"}, list(false), "chat-only replies only when asked, and only this mailbox's")
	assert.Equal(t, []string{"Refund timing", "Hello"}, list(true))

	later := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.UpdateSavedReply(tx, w.caller, w.mailbox, email.ID, &parley.SavedReplyInput{Name: parley.Ptr("Refunds"), ChatText: parley.Ptr("5 days")}, later)
	}))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		r, err := parley.LoadSavedReply(tx, w.caller, w.mailbox, email.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{"Refunds", "", "5 days"}, []string{r.Name, r.Text, r.ChatText}, "PUT replaces both texts")
		assert.Equal(t, later, r.UpdatedAt)
		_, err = parley.LoadSavedReply(tx, w.caller, w.other, email.ID)
		assert.True(t, parley.IsNotFound(err), "a reply is found only under its own mailbox")
		return nil
	}))
	err = w.write(func(tx parley.Tx) error {
		return parley.UpdateSavedReply(tx, w.caller, w.mailbox, email.ID, &parley.SavedReplyInput{Name: parley.Ptr("x")}, later)
	})
	assert.Equal(t, parley.CodeEmptyValue, code(t, err), "a replacement needs a text too")

	err = w.write(func(tx parley.Tx) error { return parley.DeleteSavedReply(tx, plain, w.mailbox, chat.ID) })
	assert.True(t, parley.IsNotFound(err), "not through a mailbox the caller cannot use")
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteSavedReply(tx, w.caller, w.mailbox, chat.ID) }))
	assert.Equal(t, []string{"Refunds"}, list(true))
	err = w.write(func(tx parley.Tx) error { return parley.DeleteSavedReply(tx, w.caller, w.mailbox, chat.ID) })
	assert.True(t, parley.IsNotFound(err), "deleting twice")
}
