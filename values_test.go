package parley_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// The domain's small value rules: addresses, domains, previews, mail
// identifiers, MIME types and URLs, plan figures, event names.

func TestAddressForms(t *testing.T) {
	tests := []struct {
		in, email, domain, mailDomain string
	}{
		{"  Ann@Example.COM ", "ann@example.com", "ann@example.com", "example.com"},
		{"support@acme.test", "support@acme.test", "support@acme.test", "acme.test"},
		{"no-at-sign", "no-at-sign", "no-at-sign", "localhost"},
		{"trailing@", "trailing@", "trailing@", "localhost"},
		{"Acme.Test.", "acme.test.", "acme.test", "localhost"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.email, parley.NormalizeEmail(tt.in), "NormalizeEmail(%q)", tt.in)
		assert.Equal(t, tt.domain, parley.NormalizeDomain(tt.in), "NormalizeDomain(%q)", tt.in)
		assert.Equal(t, tt.mailDomain, parley.MailDomain(strings.TrimSpace(tt.in)), "MailDomain(%q)", tt.in)
	}
}

func TestMailIdentifiers(t *testing.T) {
	box := &parley.Mailbox{Email: "Support@Acme.TEST"}
	assert.Equal(t, "parley.42.7@acme.test", parley.MessageID(box, 42, 7))
	assert.Equal(t, "parley.42.auto@acme.test", parley.MessageID(box, 42, 0), "an auto-reply's id names the conversation")
	assert.Equal(t, "[#1234]", parley.SubjectTag(1234))
}

func TestPlainTextAndPreviews(t *testing.T) {
	tests := []struct {
		body, plain, preview string
	}{
		{"Hello", "Hello", "Hello"},
		{"<p>Your order &amp; <b>refund</b></p>", "Your order &  refund", "Your order &amp; refund"},
		{"  spaced\n\n out  ", "spaced\n\n out", "spaced out"},
		{strings.Repeat("é", 200), strings.Repeat("é", 200), strings.Repeat("é", parley.PreviewLength)},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.plain, parley.PlainText(tt.body), "PlainText(%q)", tt.body)
		assert.Equal(t, tt.preview, parley.SavedReplyPreview(tt.body), "SavedReplyPreview(%q)", tt.body)
	}
}

func TestValidMimeTypeAndURL(t *testing.T) {
	for s, want := range map[string]bool{
		"image/png": true, "text/plain; charset=utf-8": true, "application/vnd.ms-excel": true,
		"image": false, "image/": false, "/png": false, "*/*": false, "image/*": false, "": false, "a/b/c": false,
	} {
		assert.Equal(t, want, parley.ValidMimeType(s), "ValidMimeType(%q)", s)
	}
	for s, want := range map[string]bool{
		"https://acme.test/x?y=1": true, "http://localhost:8080": true,
		"ftp://acme.test": false, "javascript:alert(1)": false, "https://": false, "acme.test": false,
		"https://acme.test/a b": false, "": false,
	} {
		assert.Equal(t, want, parley.ValidURL(s), "ValidURL(%q)", s)
	}
}

func TestPlanFigures(t *testing.T) {
	tests := []struct {
		plan          parley.Plan
		rate          int
		users, lights int
	}{
		{parley.PlanStandard, parley.StandardRateLimit, parley.StandardUserSeats, parley.StandardLightUserSeats},
		{parley.PlanPlus, parley.PlusRateLimit, parley.PlusUserSeats, parley.PlusLightUserSeats},
		{parley.PlanPro, parley.ProRateLimit, parley.ProUserSeats, parley.ProLightUserSeats},
		{parley.Plan("unknown"), parley.StandardRateLimit, parley.StandardUserSeats, parley.StandardLightUserSeats},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.rate, parley.DefaultRateLimit(tt.plan), "DefaultRateLimit(%s)", tt.plan)
		users, lights := parley.PlanSeats(tt.plan)
		assert.Equal(t, []int{tt.users, tt.lights}, []int{users, lights}, "PlanSeats(%s)", tt.plan)
	}
	assert.Less(t, parley.DefaultRateLimit(parley.PlanStandard), parley.DefaultRateLimit(parley.PlanPro), "a higher plan calls more")
}

func TestEventNames(t *testing.T) {
	tests := []struct {
		kind, resource string
		deleted        bool
	}{
		{"convo.created", parley.ResourceConversation, false},
		{"convo.deleted", parley.ResourceConversation, true},
		{"satisfaction.ratings", parley.ResourceConversation, false},
		{"customer.deleted", parley.ResourceCustomer, true},
		{"organization.updated", parley.ResourceOrganization, false},
		{"tag.created", parley.ResourceTag, false},
		{"user.deleted", parley.ResourceUser, true},
		{"widget.chat.started", parley.ResourceChat, false},
		{"beacon.chat.created", parley.ResourceChat, false},
		{"webhook.test", parley.ResourceWebhook, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.resource, parley.EventResource(tt.kind), "EventResource(%q)", tt.kind)
		assert.Equal(t, tt.deleted, parley.IsDeleteEvent(tt.kind), "IsDeleteEvent(%q)", tt.kind)
	}
}

func TestDefaultEntryType(t *testing.T) {
	for kind, want := range map[string]string{
		parley.EmailEntries.Segment: "work", parley.PhoneEntries.Segment: "work",
		parley.ChatEntries.Segment: "other", parley.SocialEntries.Segment: "other", parley.WebsiteEntries.Segment: "",
	} {
		var k parley.EntryKind
		for _, e := range parley.EntryKinds {
			if e.Segment == kind {
				k = e
			}
		}
		assert.Equal(t, want, parley.DefaultEntryType(k), "DefaultEntryType(%s)", kind)
	}
}

func TestUnmarshalValue(t *testing.T) {
	var n int64
	require.NoError(t, parley.UnmarshalValue(json.RawMessage(`5`), &n))
	assert.Equal(t, int64(5), n)
	require.NoError(t, parley.UnmarshalValue(json.RawMessage(`" 7 "`), &n), "a number sent as a string, as SDKs do")
	assert.Equal(t, int64(7), n)
	var b bool
	require.NoError(t, parley.UnmarshalValue(json.RawMessage(`"true"`), &b))
	assert.True(t, b)
	assert.Error(t, parley.UnmarshalValue(json.RawMessage(`"seven"`), &n), "words are not numbers")
	assert.Error(t, parley.UnmarshalValue(json.RawMessage(`"yes"`), &b))
	var s string
	require.NoError(t, parley.UnmarshalValue(json.RawMessage(`"5"`), &s), "a string stays a string")
	assert.Equal(t, "5", s)
}

func TestVisitorName(t *testing.T) {
	assert.Equal(t, "Dana W.", parley.VisitorName(&parley.User{FirstName: "Dana", LastName: "Whitfield"}))
	assert.Equal(t, "Émile Ö.", parley.VisitorName(&parley.User{FirstName: "Émile", LastName: " Örsted"}))
	assert.Equal(t, "Dana", parley.VisitorName(&parley.User{FirstName: "Dana"}))
}

func TestWeekHour(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	sunday := time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC) // a Sunday
	day, hour := parley.WeekHour(sunday, time.UTC)
	assert.Equal(t, []int{7, 23}, []int{day, hour}, "Sunday is 7")
	day, hour = parley.WeekHour(sunday, berlin)
	assert.Equal(t, []int{1, 0}, []int{day, hour}, "in Berlin it is already Monday")
}

func TestSecretsAndAccess(t *testing.T) {
	a, b := parley.NewSecret(), parley.NewSecret()
	assert.NotEqual(t, a, b)
	assert.GreaterOrEqual(t, len(a), 40, "at least 240 random bits, URL-safe")
	assert.NotContains(t, a, "+")
	assert.Equal(t, parley.HashToken(a), parley.HashToken(a), "the stored form is stable")
	assert.NotEqual(t, a, parley.HashToken(a), "and is not the secret")
	assert.NotEqual(t, parley.HashToken(a), parley.HashToken(b))

	co := &parley.Company{ID: 1}
	for role, admin := range map[parley.Role]bool{parley.RoleOwner: true, parley.RoleAdmin: true, parley.RoleUser: false} {
		caller := parley.Caller{Company: co, User: &parley.User{Role: role}}
		for name, check := range map[string]error{
			"RequireAdmin":  parley.RequireAdmin(caller, "rename tags"),
			"WebhookAccess": parley.WebhookAccess(caller),
		} {
			if admin {
				assert.NoError(t, check, "%s for %s", name, role)
				continue
			}
			assert.Equal(t, parley.KindForbidden, parley.KindOf(check), "%s for %s", name, role)
		}
	}
	assert.Contains(t, parley.RequireAdmin(parley.Caller{Company: co, User: &parley.User{Role: parley.RoleUser}}, "rename tags").Error(), "rename tags")
}

func TestIsNotFound(t *testing.T) {
	assert.True(t, parley.IsNotFound(parley.NotFound("no such conversation")))
	assert.False(t, parley.IsNotFound(parley.Forbidden(parley.CodeAccessDenied, "no")))
	assert.False(t, parley.IsNotFound(nil))
}
