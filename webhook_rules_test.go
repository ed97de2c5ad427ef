package parley_test

import (
	"context"
	"strconv"
	"testing"
	"time"

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

// TestCopyWebhook: a webhook copied from another server is stored
// disabled, with a stand-in secret when none came, and queues no test
// event; it is validated and guarded as a created one.
func TestCopyWebhook(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t)
	copyHook := func(caller parley.Caller, in parley.WebhookInput) (*parley.Webhook, error) {
		var hook *parley.Webhook
		err := w.write(func(tx parley.Tx) (err error) {
			hook, err = parley.CopyWebhook(tx, caller, &in, parley.WebhookPolicy{}, ruleNow)
			return err
		})
		return hook, err
	}
	input := func(mailboxes ...int64) parley.WebhookInput {
		return parley.WebhookInput{URL: parley.Ptr("https://hooks.example/in"), Events: []string{parley.EventConvoCreated}, MailboxIDs: mailboxes}
	}
	refused := []struct {
		name       string
		caller     parley.Caller
		in         parley.WebhookInput
		kind       parley.Kind
		path, code string
	}{
		{"a user", plain, input(), parley.KindForbidden, "", parley.CodeAccessDenied},
		{"no URL", w.caller, parley.WebhookInput{Events: []string{parley.EventConvoCreated}}, parley.KindInvalid, "url", parley.CodeNullValue},
		{"an unknown mailbox", w.caller, input(w.mailbox, 999), parley.KindInvalid, "mailboxIds[1]", parley.CodeInvalidID},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := copyHook(tc.caller, tc.in)
			assertRefused(t, err, tc.kind, tc.path, tc.code)
		})
	}

	hook, err := copyHook(w.caller, input(w.mailbox))
	require.NoError(t, err)
	var stored *parley.Webhook
	var deliveries int
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		if stored, err = parley.LoadWebhook(tx, w.caller, hook.ID); err != nil {
			return err
		}
		_, deliveries, err = tx.Deliveries(hook.CompanyID, hook.ID, 0, 10)
		return err
	}))
	assert.Len(t, stored.Secret, parley.MaxWebhookSecret/2, "a stand-in secret")
	assert.Equal(t, &parley.Webhook{ID: hook.ID, CompanyID: w.caller.Company.ID, URL: "https://hooks.example/in", Label: "hooks.example", Events: []string{parley.EventConvoCreated},
		MailboxIDs: []int64{w.mailbox}, PayloadVersion: "V2", Secret: stored.Secret, State: parley.WebhookDisabled,
		DisabledAt: &ruleNow, DisabledReason: parley.CopiedWebhookReason, CreatedAt: ruleNow, UpdatedAt: ruleNow}, stored)
	assert.Zero(t, deliveries, "no test event is queued")

	given, err := copyHook(w.caller, parley.WebhookInput{URL: parley.Ptr("https://hooks.example/two"), Events: []string{parley.EventConvoCreated}, Secret: parley.Ptr("kept")})
	require.NoError(t, err)
	assert.Equal(t, "kept", given.Secret, "a secret that came is kept")
}

// TestReplayDelivery: a replayed delivery is due again with a fresh
// attempt budget, paused while its webhook is disabled.
func TestReplayDelivery(t *testing.T) {
	w := newWorld(t)
	plain := w.plainUser(t)
	var hook *parley.Webhook
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		hook, err = parley.CreateWebhook(tx, w.caller, &parley.WebhookInput{URL: parley.Ptr("https://hooks.example/in"),
			Events: []string{parley.EventConvoCreated}, Secret: parley.Ptr("s3cret")}, parley.WebhookPolicy{}, ruleNow)
		return err
	}))
	dead := ruleNow.Add(time.Hour)
	var delivery parley.Delivery
	require.NoError(t, w.write(func(tx parley.Tx) error {
		queued, _, err := tx.Deliveries(hook.CompanyID, hook.ID, 0, 1)
		if err != nil {
			return err
		}
		delivery = queued[0]
		delivery.Status, delivery.Attempts, delivery.DeadAt, delivery.ResponseCode = parley.DeliveryDead, 8, &dead, 500
		return tx.PutDelivery(&delivery)
	}))
	replay := func(caller parley.Caller, webhookID, deliveryID int64, at time.Time) error {
		return w.write(func(tx parley.Tx) error {
			_, err := parley.ReplayDelivery(tx, caller, webhookID, deliveryID, at)
			return err
		})
	}
	load := func() parley.Delivery {
		var d *parley.Delivery
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			d, err = tx.Delivery(hook.CompanyID, hook.ID, delivery.ID)
			return err
		}))
		return *d
	}
	assertRefused(t, replay(plain, hook.ID, delivery.ID, dead), parley.KindForbidden, "", parley.CodeAccessDenied)
	assert.True(t, parley.IsNotFound(replay(w.caller, hook.ID, delivery.ID+100, dead)), "an unknown delivery")
	assert.True(t, parley.IsNotFound(replay(w.caller, hook.ID+100, delivery.ID, dead)), "an unknown webhook")
	assert.Equal(t, delivery, load(), "a refused replay changes nothing")

	again := dead.Add(time.Hour)
	require.NoError(t, replay(w.caller, hook.ID, delivery.ID, again))
	want := delivery
	want.Status, want.Attempts, want.Replays, want.DeadAt = parley.DeliveryPending, 0, 1, nil
	want.RoundStartedAt, want.NextAttemptAt = again, again
	assert.Equal(t, want, load())

	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.UpdateWebhook(tx, w.caller, hook.ID, &parley.WebhookInput{URL: parley.Ptr("https://hooks.example/in"),
			Events: []string{parley.EventConvoCreated}, Secret: parley.Ptr("s3cret"), State: parley.Ptr("disabled")}, parley.WebhookPolicy{}, again)
	}))
	require.NoError(t, replay(w.caller, hook.ID, delivery.ID, again))
	assert.True(t, load().Paused, "a disabled webhook's delivery waits")
	assert.Equal(t, 2, load().Replays)
}

// TestEventConversation: the conversation of a conversation event, the
// rated one of a rating event, and nothing for other events or a
// conversation gone.
func TestEventConversation(t *testing.T) {
	w, id := oneConversation(t, "active")
	company := w.caller.Company.ID
	var ratingID int64
	require.NoError(t, w.write(func(tx parley.Tx) error {
		reply, err := parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Done")}, parley.EICARScanner{}, ruleNow)
		if err != nil {
			return err
		}
		if err := parley.RateThread(tx, w.caller, id, reply.ID, &parley.RatingInput{Rating: parley.Ptr("great")}, ruleNow); err != nil {
			return err
		}
		threads, err := tx.Threads(w.caller.Company.ID, id)
		for _, th := range threads {
			if th.ID == reply.ID {
				ratingID = th.Rating.ID
			}
		}
		return err
	}))
	convID := strconv.FormatInt(id, 10)
	cases := []struct {
		name  string
		event parley.Event
		want  int64 // the conversation's id, 0 for none
	}{
		{"a conversation event", parley.Event{Kind: parley.EventConvoCreated, CompanyID: company, ResourceID: convID}, id},
		{"a rating event", parley.Event{Kind: parley.EventSurveyResponse, CompanyID: company, ResourceID: strconv.FormatInt(ratingID, 10)}, id},
		{"a customer event", parley.Event{Kind: parley.EventCustomerCreated, CompanyID: company, ResourceID: convID}, 0},
		{"a conversation gone", parley.Event{Kind: parley.EventConvoCreated, CompanyID: company, ResourceID: "999999"}, 0},
		{"another company's", parley.Event{Kind: parley.EventConvoCreated, CompanyID: company + 1, ResourceID: convID}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c *parley.Conversation
			require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				c, err = parley.EventConversation(tx, tc.event)
				return err
			}))
			if tc.want == 0 {
				assert.Nil(t, c)
				return
			}
			require.NotNil(t, c)
			assert.Equal(t, tc.want, c.ID)
		})
	}
}
