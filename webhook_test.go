package parley

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWebhookSignatures(t *testing.T) {
	body := []byte(`{"id":1}`)
	assert.Equal(t, "pkq9ASkZdrNd69hwrROjDJQ0ODE=", HelpScoutSignature("secret", body))
	assert.Equal(t, "3dd1b9aef568d75f6790a84bd2e5dfa1f44409eef3cbdbd3f10b837376100c11", ParleySignature("secret", 1700000000, body))
}

func TestRetryDelay(t *testing.T) {
	cases := []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{1, 0.5, 30 * time.Second},
		{1, 0, 24 * time.Second},
		{2, 0.5, time.Minute},
		{9, 0.5, 128 * time.Minute},
		{9, 0.999999, 153*time.Minute + 36*time.Second},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, RetryDelay(tc.attempt, tc.jitter), "attempt %d jitter %v", tc.attempt, tc.jitter)
	}
}

func TestDeliveryRecordDisablesOnlyADeadEndpoint(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fail := Attempt{Code: 500}
	cases := []struct {
		name        string
		lastSuccess *time.Time
		disabled    bool
	}{
		{"never succeeded", nil, true},
		{"succeeded before the dead delivery began", Ptr(start.Add(-time.Hour)), true},
		{"another delivery succeeded meanwhile: one bad payload", Ptr(start.Add(time.Hour)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &Webhook{ID: 1, State: WebhookEnabled, LastSuccessAt: tc.lastSuccess}
			d := NewDelivery(w, Event{Kind: EventConvoCreated, ResourceID: "7"}, []byte(`{}`), start)
			now := start
			for i := 1; i < MaxDeliveryAttempts; i++ {
				assert.False(t, d.Record(w, fail, now, 0.5))
				assert.Equal(t, DeliveryRetrying, d.Status)
				now = d.NextAttemptAt
			}
			assert.Equal(t, tc.disabled, d.Record(w, fail, now, 0.5))
			assert.Equal(t, DeliveryDead, d.Status)
			assert.Equal(t, tc.disabled, w.State == WebhookDisabled)
		})
	}
}

func TestWebhookWants(t *testing.T) {
	w := &Webhook{Events: []string{EventConvoCreated, EventCustomerCreated}, MailboxIDs: []int64{2}}
	assert.True(t, w.Wants(EventConvoCreated, 2, true))
	assert.False(t, w.Wants(EventConvoCreated, 1, true), "another mailbox")
	assert.True(t, w.Wants(EventCustomerCreated, 0, false), "customer.created ignores the mailbox filter")
	assert.False(t, w.Wants(EventConvoNote, 2, true), "not subscribed")
}
