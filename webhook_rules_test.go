package parley_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestWebhookRules(t *testing.T) {
	w, convID := oneConversation(t, "active")
	plain := w.plainUser(t)
	policy := parley.WebhookPolicy{}
	valid := func() parley.WebhookInput {
		return parley.WebhookInput{URL: parley.Ptr("https://hooks.example/in"), Events: []string{parley.EventConvoCreated, parley.EventConvoCreated}, Secret: parley.Ptr("s3cret")}
	}
	create := func(caller parley.Caller, in parley.WebhookInput) (*parley.Webhook, error) {
		var hook *parley.Webhook
		err := w.write(func(tx parley.Tx) (err error) {
			hook, err = parley.CreateWebhook(tx, caller, &in, policy, ruleNow)
			return err
		})
		return hook, err
	}
	with := func(change func(*parley.WebhookInput)) parley.WebhookInput {
		in := valid()
		change(&in)
		return in
	}
	refused := []struct {
		name string
		in   parley.WebhookInput
		path string
		code string
	}{
		{"no URL", with(func(in *parley.WebhookInput) { in.URL = nil }), "url", parley.CodeNullValue},
		{"plain http", with(func(in *parley.WebhookInput) { in.URL = parley.Ptr("http://hooks.example/in") }), "url", parley.CodeValueNotSupported},
		{"a private address", with(func(in *parley.WebhookInput) { in.URL = parley.Ptr("https://10.0.0.8/in") }), "url", parley.CodeValueNotSupported},
		{"credentials in the URL", with(func(in *parley.WebhookInput) { in.URL = parley.Ptr("https://u:p@hooks.example/in") }), "url", parley.CodeValueNotSupported},
		{"no events", with(func(in *parley.WebhookInput) { in.Events = []string{} }), "events", parley.CodeEmptyValue},
		{"an unknown event", with(func(in *parley.WebhookInput) { in.Events = []string{"convo.exploded"} }), "events[0]", parley.CodeListOfEnumValues},
		{"no secret", with(func(in *parley.WebhookInput) { in.Secret = nil }), "secret", parley.CodeNullValue},
		{"payload V1", with(func(in *parley.WebhookInput) { in.PayloadVersion = parley.Ptr("V1") }), "payloadVersion", parley.CodeValueNotSupported},
		{"an unknown state", with(func(in *parley.WebhookInput) { in.State = parley.Ptr("paused") }), "state", parley.CodeEnumValue},
		{"a mailbox id below one", with(func(in *parley.WebhookInput) { in.MailboxIDs = []int64{0} }), "mailboxIds[0]", parley.CodeInvalidID},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := create(w.caller, tt.in)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	_, err := create(plain, valid())
	assert.Equal(t, parley.KindForbidden, parley.KindOf(err), "only owners and administrators")

	hook, err := create(w.caller, valid())
	require.NoError(t, err)
	assert.Equal(t, []string{parley.EventConvoCreated}, hook.Events, "an event listed twice is kept once")
	assert.Equal(t, parley.WebhookEnabled, hook.State)

	update := func(caller parley.Caller, in parley.WebhookInput) error {
		return w.write(func(tx parley.Tx) error { return parley.UpdateWebhook(tx, caller, hook.ID, &in, policy, ruleNow) })
	}
	assert.Equal(t, parley.KindForbidden, parley.KindOf(update(plain, valid())))
	assert.Equal(t, parley.CodeNullValue, code(t, update(w.caller, with(func(in *parley.WebhookInput) { in.Secret = nil }))), "PUT validates as create does")
	require.NoError(t, update(w.caller, with(func(in *parley.WebhookInput) { in.State = parley.Ptr("disabled") })))
	load := func() *parley.Webhook {
		var got *parley.Webhook
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			got, err = parley.LoadWebhook(tx, w.caller, hook.ID)
			return err
		}))
		return got
	}
	assert.Equal(t, parley.WebhookDisabled, load().State)
	assert.Equal(t, "disabled through the API", load().DisabledReason)
	require.NoError(t, update(w.caller, valid()), "re-saving without a state enables it")
	assert.Equal(t, parley.WebhookEnabled, load().State)
	assert.Nil(t, load().DisabledAt)

	// EventMailbox scopes conversation events to their mailbox; events
	// about account-wide records are not scoped.
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		box, scoped, err := parley.EventMailbox(tx, parley.Event{Kind: parley.EventConvoCreated, CompanyID: w.caller.Company.ID, ResourceID: strconv.FormatInt(convID, 10)})
		require.NoError(t, err)
		assert.Equal(t, []any{w.mailbox, true}, []any{box, scoped})
		box, scoped, err = parley.EventMailbox(tx, parley.Event{Kind: parley.EventConvoCreated, CompanyID: w.caller.Company.ID, ResourceID: "999999"})
		require.NoError(t, err)
		assert.Equal(t, []any{int64(0), true}, []any{box, scoped}, "a conversation that cannot be found has mailbox 0")
		_, scoped, err = parley.EventMailbox(tx, parley.Event{Kind: parley.EventTagCreated, CompanyID: w.caller.Company.ID, ResourceID: "1"})
		require.NoError(t, err)
		assert.False(t, scoped)
		return nil
	}))

	assert.Equal(t, parley.KindForbidden, parley.KindOf(w.write(func(tx parley.Tx) error { return parley.RemoveWebhook(tx, plain, hook.ID) })))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.RemoveWebhook(tx, w.caller, hook.ID) }))
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.RemoveWebhook(tx, w.caller, hook.ID) })))
}
