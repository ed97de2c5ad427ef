package parley_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// The chat rules, from a visitor starting a chat on a widget to an agent
// ending it into a conversation, on real bbolt storage.

// refusal is the Kind and the first field problem of a domain error.
func refusal(t *testing.T, err error) (parley.Kind, parley.FieldError) {
	t.Helper()
	var e *parley.Error
	require.ErrorAs(t, err, &e)
	require.NotEmpty(t, e.Errors, "%v", err)
	return e.Kind, e.Errors[0]
}

// chatWorld is a world whose owner may chat and whose mailbox has a
// widget; its env numbers the ids it draws.
func chatWorld(t *testing.T) (*world, string, parley.ChatEnv) {
	t.Helper()
	w := newWorld(t)
	w.caller.User.CanChat = true
	const widget = "acme-support"
	require.NoError(t, w.write(func(tx parley.Tx) error {
		if err := tx.PutUser(w.caller.User); err != nil {
			return err
		}
		_, _, err := parley.AddWidget(tx, w.caller.Company.ID, w.mailbox, parley.NewWidget{ID: parley.Ptr(widget)}, ruleNow)
		return err
	}))
	n := 0
	return w, widget, parley.ChatEnv{Now: ruleNow, NewID: func() string { n++; return fmt.Sprintf("id-%d", n) }}
}

// startChat starts a chat from the widget with a first message.
func (w *world) startChat(t *testing.T, widget string, env parley.ChatEnv) *parley.Chat {
	t.Helper()
	var c *parley.Chat
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		c, err = parley.StartChat(tx, widget, &parley.StartChatRequest{Name: parley.Ptr("Vic Tor"),
			Email: parley.Ptr("vic@example.com"), Message: parley.Ptr("Hello?")}, "visitor-secret", env)
		return err
	}))
	return c
}

// storedChat reads a chat back as the owner.
func (w *world) storedChat(t *testing.T, id string) *parley.Chat {
	t.Helper()
	var c *parley.Chat
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		c, err = parley.ReadChat(tx, w.caller, id)
		return err
	}))
	return c
}

func TestStartChat(t *testing.T) {
	w, widget, env := chatWorld(t)
	long := strings.Repeat("x", parley.MaxVisitorNameLength+1)
	cases := []struct {
		name   string
		widget string
		req    parley.StartChatRequest
		kind   parley.Kind
		path   string
		code   string
	}{
		{"no name", widget, parley.StartChatRequest{Email: parley.Ptr("vic@example.com")}, parley.KindInvalid, "name", parley.CodeSize},
		{"too long a name", widget, parley.StartChatRequest{Name: &long, Email: parley.Ptr("vic@example.com")}, parley.KindInvalid, "name", parley.CodeSize},
		{"a bad address", widget, parley.StartChatRequest{Name: parley.Ptr("Vic"), Email: parley.Ptr("vic")}, parley.KindInvalid, "email", parley.CodeEmail},
		{"a blank message", widget, parley.StartChatRequest{Name: parley.Ptr("Vic"), Email: parley.Ptr("vic@example.com"), Message: parley.Ptr(" ")},
			parley.KindUnprocessable, "message", parley.CodeEmptyValue},
		{"an unknown widget", "no-such-widget", parley.StartChatRequest{Name: parley.Ptr("Vic"), Email: parley.Ptr("vic@example.com")},
			parley.KindNotFound, "", parley.CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.StartChat(tx, tc.widget, &tc.req, "secret", env)
				return err
			})
			kind, p := refusal(t, err)
			assert.Equal(t, tc.kind, kind)
			assert.Equal(t, tc.path, p.Path)
			assert.Equal(t, tc.code, p.Code)
		})
	}
	assert.Empty(t, w.events(t), "a refused chat records nothing")

	c := w.startChat(t, widget, env)
	stored := w.storedChat(t, c.ID)
	assert.Equal(t, w.mailbox, stored.MailboxID)
	assert.Equal(t, widget, stored.WidgetID)
	assert.Equal(t, "Hello?", stored.Preview)
	assert.True(t, stored.VisitorCan("visitor-secret"))
	assert.False(t, stored.VisitorCan("guess"))
	require.Len(t, stored.Events, 1)
	assert.Equal(t, parley.ChatEvent{ID: stored.Events[0].ID, Type: parley.ChatMessage, Action: parley.ActionMessageAdded,
		Author: parley.ChatAuthor{Type: parley.PartyCustomer, ID: stored.CustomerID}, CreatedAt: ruleNow, Body: "Hello?"}, stored.Events[0])
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		cu, err := tx.Customer(w.caller.Company.ID, stored.CustomerID)
		require.NoError(t, err)
		assert.Equal(t, "Vic", cu.FirstName)
		assert.Equal(t, "Tor", cu.LastName)
		return nil
	}))
	assert.Equal(t, []string{parley.EventCustomerCreated, parley.EventBeaconChatCreated}, w.events(t), "the visitor became a customer")
}

func TestVisitorMessage(t *testing.T) {
	w, widget, env := chatWorld(t)
	c := w.startChat(t, widget, env)
	err := w.write(func(tx parley.Tx) error {
		_, err := parley.VisitorMessage(tx, c, parley.Ptr(strings.Repeat("x", parley.MaxChatMessageLength+1)), env)
		return err
	})
	kind, p := refusal(t, err)
	assert.Equal(t, parley.KindUnprocessable, kind)
	assert.Equal(t, "body", p.Path)
	assert.Equal(t, parley.CodeSize, p.Code)

	require.NoError(t, w.write(func(tx parley.Tx) error {
		_, err := parley.VisitorMessage(tx, c, parley.Ptr("Anyone?"), env)
		return err
	}))
	stored := w.storedChat(t, c.ID)
	require.Len(t, stored.Events, 2)
	assert.Equal(t, "Anyone?", stored.Events[1].Body)
	assert.Equal(t, "Hello?", stored.Preview, "the preview stays the first message")
	assert.Equal(t, []string{parley.EventCustomerCreated, parley.EventBeaconChatCreated, parley.EventBeaconChatReplied}, w.events(t))

	ended := *stored
	ended.EndedAt = &ruleNow
	err = w.write(func(tx parley.Tx) error {
		_, err := parley.VisitorMessage(tx, &ended, parley.Ptr("Still there?"), env)
		return err
	})
	assert.True(t, parley.IsNotFound(err), "an ended chat takes no message: %v", err)
}

func TestReadChat(t *testing.T) {
	w, widget, env := chatWorld(t)
	c := w.startChat(t, widget, env)
	// The owner, but for one of what an agent needs.
	without := func(change func(u *parley.User)) parley.Caller {
		u := *w.caller.User
		change(&u)
		return parley.Caller{Company: w.caller.Company, User: &u}
	}
	callers := map[string]parley.Caller{
		"no chat access":    without(func(u *parley.User) { u.CanChat = false }),
		"no last name":      without(func(u *parley.User) { u.LastName = " " }),
		"no mailbox access": without(func(u *parley.User) { u.Role, u.MailboxIDs = parley.RoleUser, []int64{w.other} }),
	}
	for name, caller := range callers {
		t.Run(name, func(t *testing.T) {
			err := w.st.View(context.Background(), func(tx parley.Tx) error {
				_, err := parley.ReadChat(tx, caller, c.ID)
				return err
			})
			kind, p := refusal(t, err)
			assert.Equal(t, parley.KindForbidden, kind)
			assert.Equal(t, parley.CodeAccessDenied, p.Code)
		})
	}
	err := w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := parley.ReadChat(tx, w.caller, "no-such-chat")
		return err
	})
	assert.True(t, parley.IsNotFound(err))
	assert.Equal(t, c.ID, w.storedChat(t, c.ID).ID)
}

func TestAgentMessage(t *testing.T) {
	w, widget, env := chatWorld(t)
	c := w.startChat(t, widget, env)
	owner := w.caller.User.ID
	post := func(caller parley.Caller, messageID string, r parley.AgentMessageRequest) error {
		return w.write(func(tx parley.Tx) error {
			_, err := parley.AgentMessage(tx, caller, c.ID, messageID, &r, env)
			return err
		})
	}
	require.NoError(t, post(w.caller, "m-1", parley.AgentMessageRequest{Body: parley.Ptr("Hi, Ann here")}))
	require.NoError(t, post(w.caller, "m-2", parley.AgentMessageRequest{Body: parley.Ptr("refund"), Internal: true}))
	stored := w.storedChat(t, c.ID)
	assert.Equal(t, owner, stored.AssigneeID, "the first agent message accepts the chat")
	require.NotNil(t, stored.AcceptedAt)
	agent := parley.ChatAuthor{Type: parley.PartyUser, ID: owner}
	var got []string
	for _, e := range stored.Events[1:] {
		assert.Equal(t, agent, e.Author)
		got = append(got, e.Action+":"+e.Body)
	}
	assert.Equal(t, []string{"chat-accepted:", "message-added:Hi, Ann here", "note-added:refund"}, got)

	other := w.caller
	other.User = &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Oz", LastName: "Admin", Email: "oz@acme.test",
		Role: parley.RoleAdmin, Active: true, CanChat: true}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutUser(other.User) }))
	cases := []struct {
		name      string
		caller    parley.Caller
		messageID string
		body      *string
		kind      parley.Kind
		path      string
		code      string
	}{
		{"no body", w.caller, "m-3", nil, parley.KindUnprocessable, "body", parley.CodeEmptyValue},
		{"a reused message id", w.caller, "m-1", parley.Ptr("again"), parley.KindUnprocessable, "messageId", parley.CodeConflict},
		{"a chat held by another agent", other, "m-4", parley.Ptr("mine now"), parley.KindInvalid, "chatId", parley.CodeValueNotSupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kind, p := refusal(t, post(tc.caller, tc.messageID, parley.AgentMessageRequest{Body: tc.body}))
			assert.Equal(t, tc.kind, kind)
			assert.Equal(t, tc.path, p.Path)
			assert.Equal(t, tc.code, p.Code)
		})
	}
	assert.Equal(t, stored, w.storedChat(t, c.ID), "a refused message changes nothing")
}

func TestUpdateChatTags(t *testing.T) {
	w, widget, env := chatWorld(t)
	c := w.startChat(t, widget, env)
	cases := []struct {
		name    string
		tags    []string
		present bool
		want    []string // slugs stored
		items   []string // line items added
		path    string   // of the refusal
		code    string
	}{
		{"no tags array", nil, false, nil, nil, "tags", parley.CodeNullValue},
		{"a blank name", []string{"ok", " "}, true, nil, nil, "tags[1]", parley.CodeSize},
		{"too many", make([]string, parley.MaxTags+1), true, nil, nil, "tags", parley.CodeSize},
		{"names lowercased, each once", []string{"VIP", "vip", "Big Order"}, true, []string{"vip", "big-order"},
			[]string{"tag-added:vip", "tag-added:big-order"}, "", ""},
		{"the same set changes nothing", []string{"big order", "VIP"}, true, []string{"vip", "big-order"}, nil, "", ""},
		{"one removed, one added", []string{"vip", "refund"}, true, []string{"vip", "refund"},
			[]string{"tag-removed:big-order", "tag-added:refund"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := w.storedChat(t, c.ID)
			err := w.write(func(tx parley.Tx) error {
				_, err := parley.UpdateChatTags(tx, w.caller, c.ID, tc.tags, tc.present, env)
				return err
			})
			after := w.storedChat(t, c.ID)
			if tc.code != "" {
				kind, p := refusal(t, err)
				assert.Equal(t, parley.KindUnprocessable, kind)
				assert.Equal(t, tc.path, p.Path)
				assert.Equal(t, tc.code, p.Code)
				assert.Equal(t, before, after)
				return
			}
			require.NoError(t, err)
			var slugs, items []string
			for _, tag := range after.Tags {
				slugs = append(slugs, tag.Slug)
			}
			for _, e := range after.Events[len(before.Events):] {
				items = append(items, e.Action+":"+e.Body)
			}
			assert.Equal(t, tc.want, slugs)
			assert.Equal(t, tc.items, items)
		})
	}
}

func TestEndChat(t *testing.T) {
	w, widget, env := chatWorld(t)
	end := func(id, status string) (*parley.Chat, error) {
		var c *parley.Chat
		err := w.write(func(tx parley.Tx) (err error) {
			c, err = parley.EndChat(tx, w.caller, id, &parley.EndChatRequest{Status: &status}, env)
			return err
		})
		return c, err
	}
	c := w.startChat(t, widget, env)
	_, err := end(c.ID, "spam")
	kind, p := refusal(t, err)
	assert.Equal(t, parley.KindUnprocessable, kind)
	assert.Equal(t, "status", p.Path)
	assert.Equal(t, parley.CodeEnumValue, p.Code)

	require.NoError(t, w.write(func(tx parley.Tx) error {
		if _, err := parley.UpdateChatTags(tx, w.caller, c.ID, []string{"vip"}, true, env); err != nil {
			return err
		}
		_, err := parley.AgentMessage(tx, w.caller, c.ID, "m-1", &parley.AgentMessageRequest{Body: parley.Ptr("Hi")}, env)
		return err
	}))
	_, err = end(c.ID, "closed")
	require.NoError(t, err)
	stored := w.storedChat(t, c.ID)
	require.NotNil(t, stored.EndedAt)
	last := stored.Events[len(stored.Events)-1]
	assert.Equal(t, parley.ActionEnded+":"+parley.ClosingAnswered, last.Action+":"+last.Body)
	conv, threads := w.load(t, stored.ConversationID)
	assert.Equal(t, parley.TypeChat, conv.Type)
	assert.Equal(t, parley.StatusClosed, conv.Status)
	assert.Equal(t, w.mailbox, conv.MailboxID)
	assert.Equal(t, stored.CustomerID, conv.CustomerID)
	require.NotNil(t, conv.Assignee)
	assert.Equal(t, w.caller.User.ID, conv.Assignee.ID)
	assert.Equal(t, []string{"vip"}, w.tagNames(t, conv.ID))
	var transcript []string
	for _, th := range threads {
		if th.Type == parley.ThreadChat {
			transcript = append(transcript, th.Body)
		}
	}
	assert.Equal(t, []string{"[12:00:00] Vic Tor: Hello?\n[12:00:00] Ann Owner: Hi"}, transcript)
	assert.Contains(t, w.events(t), parley.EventChatEnded)

	_, err = end(c.ID, "closed")
	assert.True(t, parley.IsNotFound(err), "an ended chat ends once: %v", err)

	unanswered := w.startChat(t, widget, env)
	_, err = end(unanswered.ID, "active")
	require.NoError(t, err)
	stored = w.storedChat(t, unanswered.ID)
	assert.Equal(t, parley.ClosingUnanswered, stored.Events[len(stored.Events)-1].Body)
}
