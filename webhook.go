package parley

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Webhook limits and values.
const (
	MaxWebhookSecret = 40   // characters
	MaxWebhookLabel  = 255  // characters
	MaxWebhookURL    = 2000 // bytes
	// PayloadV2 is the only payload version that can be set; V1 was
	// retired on 2022-05-25 (Help Scout's docs, Versioning).
	PayloadV2 = "V2"
	PayloadV1 = "V1"
)

// WebhookState says whether a webhook receives deliveries.
type WebhookState string

// Webhook states.
const (
	WebhookEnabled  WebhookState = "enabled"
	WebhookDisabled WebhookState = "disabled"
)

// Webhook is an integrator's subscription to events of a company.
type Webhook struct {
	ID         int64    `json:"id"`
	CompanyID  int64    `json:"companyId"`
	URL        string   `json:"url"`
	Label      string   `json:"label"`
	Events     []string `json:"events"`
	MailboxIDs []int64  `json:"mailboxIds,omitempty"`
	// ViewID, when set, narrows the webhook to conversation events whose
	// conversation is in the saved view when the event is expanded.
	ViewID         int64        `json:"viewId,omitempty"`
	Notification   bool         `json:"notification"`
	PayloadVersion string       `json:"payloadVersion"`
	Secret         string       `json:"secret"` // kept as is: it signs every delivery
	State          WebhookState `json:"state"`
	DisabledAt     *time.Time   `json:"disabledAt,omitempty"`
	DisabledReason string       `json:"disabledReason,omitempty"`
	// LastSuccessAt is when a delivery last succeeded (nil: never).
	LastSuccessAt *time.Time `json:"lastSuccessAt,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
}

// Wants reports whether the webhook takes an event: it subscribes to the
// kind and, when it has a mailbox filter, the event is about one of those
// mailboxes or is not mailbox-scoped (EventMailbox). A webhook with a view
// also needs the event's conversation in the view, which the dispatcher
// checks.
func (w *Webhook) Wants(kind string, mailboxID int64, scoped bool) bool {
	if !slices.Contains(w.Events, kind) {
		return false
	}
	return !scoped || len(w.MailboxIDs) == 0 || slices.Contains(w.MailboxIDs, mailboxID)
}

// WebhookInput is the body of POST and PUT /v2/webhooks[/{id}]. Nil means
// absent. State is honoured by PUT only: absent re-enables the webhook.
type WebhookInput struct {
	URL            *string  `json:"url"`
	Events         []string `json:"events"`
	Secret         *string  `json:"secret"`
	Label          *string  `json:"label"`
	MailboxIDs     []int64  `json:"mailboxIds"`
	ViewID         *int64   `json:"viewId"`
	Notification   *bool    `json:"notification"`
	PayloadVersion *string  `json:"payloadVersion"`
	State          *string  `json:"state"`
}

// WebhookPolicy is what the operator allows webhook URLs to reach.
type WebhookPolicy struct {
	// InsecureHTTP allows http:// URLs to a loopback address (a server run
	// in insecure mode, for local receivers).
	InsecureHTTP bool
	// AllowPrivate allows addresses PrivateAddr refuses (development and
	// tests with local receivers).
	AllowPrivate bool
}

// Validate checks the body against the policy.
func (in *WebhookInput) Validate(policy WebhookPolicy) error {
	p := &Problems{}
	switch {
	case in.URL == nil:
		p.Add("url", CodeNullValue, "may not be null", nil)
	case !validWebhookURL(*in.URL, policy.InsecureHTTP):
		msg := "must be an https URL"
		if policy.InsecureHTTP {
			msg += " (or http to a loopback address)"
		}
		p.Add("url", CodeValueNotSupported, msg, *in.URL)
	case !policy.AllowPrivate && webhookHostPrivate(*in.URL):
		p.Add("url", CodeValueNotSupported, "must not point to a private, loopback, link-local, unspecified or multicast address", *in.URL)
	}
	switch {
	case in.Events == nil:
		p.Add("events", CodeNullValue, "may not be null", nil)
	case len(in.Events) == 0:
		p.Add("events", CodeEmptyValue, "must name at least one event", []string{})
	}
	for i, e := range in.Events {
		if !slices.Contains(EventKinds, e) {
			p.Add(fmt.Sprintf("events[%d]", i), CodeListOfEnumValues, "must be one of: "+strings.Join(EventKinds, ", "), e)
		}
	}
	switch {
	case in.Secret == nil:
		p.Add("secret", CodeNullValue, "may not be null", nil)
	case *in.Secret == "" || len([]rune(*in.Secret)) > MaxWebhookSecret:
		p.Add("secret", CodeSize, sizeMessage(1, MaxWebhookSecret), nil) // never echo a secret
	}
	if in.Label != nil && len([]rune(*in.Label)) > MaxWebhookLabel {
		p.Add("label", CodeSize, sizeMessage(0, MaxWebhookLabel), *in.Label)
	}
	for i, id := range in.MailboxIDs {
		if id <= 0 {
			p.Add(fmt.Sprintf("mailboxIds[%d]", i), CodeInvalidID, "must be a positive identifier", id)
		}
	}
	if v := in.PayloadVersion; v != nil {
		switch strings.ToUpper(*v) {
		case PayloadV2, "2":
		case PayloadV1, "1":
			p.Add("payloadVersion", CodeValueNotSupported, "payload version V1 was retired on 2022-05-25; use V2", *v)
		default:
			p.Add("payloadVersion", CodeValueNotSupported, "must be V2", *v)
		}
	}
	if in.State != nil && *in.State != string(WebhookEnabled) && *in.State != string(WebhookDisabled) {
		p.Add("state", CodeEnumValue, "must be one of: enabled, disabled", *in.State)
	}
	return p.Err()
}

// validWebhookURL accepts absolute https URLs with a host, and http URLs
// to a loopback host when insecure.
func validWebhookURL(raw string, insecure bool) bool {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > MaxWebhookURL || u.Host == "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		if !insecure {
			return false
		}
		host := u.Hostname()
		ip := net.ParseIP(host)
		return host == "localhost" || (ip != nil && ip.IsLoopback())
	}
	return false
}

// webhookHostPrivate reports whether a valid webhook URL's host is known
// to be private before resolving it (see PrivateHost).
func webhookHostPrivate(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && PrivateHost(u.Hostname())
}

// apply sets the webhook's configuration from a validated input.
func (in *WebhookInput) apply(w *Webhook) {
	w.URL = *in.URL
	w.Events = nil
	for _, e := range in.Events {
		if !slices.Contains(w.Events, e) {
			w.Events = append(w.Events, e)
		}
	}
	w.Secret = *in.Secret
	w.Label = ""
	if in.Label != nil {
		w.Label = strings.TrimSpace(*in.Label)
	}
	if w.Label == "" {
		u, _ := url.Parse(w.URL)
		w.Label = u.Host
	}
	w.MailboxIDs = nil
	for _, id := range in.MailboxIDs {
		if !slices.Contains(w.MailboxIDs, id) {
			w.MailboxIDs = append(w.MailboxIDs, id)
		}
	}
	w.ViewID = 0
	if in.ViewID != nil {
		w.ViewID = *in.ViewID
	}
	w.Notification = in.Notification != nil && *in.Notification
	w.PayloadVersion = PayloadV2
}

// WebhookAccess refuses callers who may not manage webhooks: webhooks see
// every mailbox's events, so only owners and administrators manage them.
func WebhookAccess(caller Caller) error {
	if !caller.User.IsAdmin() {
		return Forbidden(CodeAccessDenied, "only owners and administrators manage webhooks")
	}
	return nil
}

// checkFilters requires every filtered mailbox, and the view, to be the
// caller's.
func checkFilters(tx Tx, caller Caller, in *WebhookInput) error {
	if in.ViewID != nil {
		if err := tx.LockRule(caller.Company.ID, ruleViewsOfWebhooks); err != nil {
			return err
		}
		if _, err := LoadSavedView(tx, caller, *in.ViewID); IsNotFound(err) {
			return InvalidField("viewId", CodeInvalidID, "no view with this id", *in.ViewID)
		} else if err != nil {
			return err
		}
	}
	for i, id := range in.MailboxIDs {
		m, err := tx.Mailbox(caller.Company.ID, id)
		if err != nil && !IsNotFound(err) {
			return err
		}
		if err != nil || !caller.User.CanAccessMailbox(m.ID) {
			return InvalidField(fmt.Sprintf("mailboxIds[%d]", i), CodeInvalidID, "no mailbox with this id", id)
		}
	}
	return nil
}

// CreateWebhook validates and stores a webhook, and queues its test event
// (helpscout.test) in the same transaction.
func CreateWebhook(tx Tx, caller Caller, in *WebhookInput, policy WebhookPolicy, now time.Time) (*Webhook, error) {
	if err := WebhookAccess(caller); err != nil {
		return nil, err
	}
	if err := in.Validate(policy); err != nil {
		return nil, err
	}
	if err := checkFilters(tx, caller, in); err != nil {
		return nil, err
	}
	w := &Webhook{CompanyID: caller.Company.ID, State: WebhookEnabled, CreatedAt: now, UpdatedAt: now}
	in.apply(w)
	if err := tx.PutWebhook(w); err != nil {
		return nil, err
	}
	id := strconv.FormatInt(w.ID, 10)
	body, err := json.Marshal(struct {
		WebhookID int64  `json:"webhookId"`
		Event     string `json:"event"`
		URL       string `json:"url"`
		Test      bool   `json:"test"`
	}{w.ID, EventTest, w.URL, true})
	if err != nil {
		return nil, err
	}
	d := NewDelivery(w, Event{Kind: EventTest, CompanyID: w.CompanyID, ResourceID: id, At: now}, body, now)
	return w, tx.PutDelivery(d)
}

// CopiedWebhookReason is why a webhook copied from another server is
// disabled.
const CopiedWebhookReason = "copied from another server, whose API does not show its secret: re-save it (PUT) with the secret to enable it"

// CopyWebhook stores a webhook copied from another server (parley pull):
// disabled, with no test event, so it calls nothing until an
// administrator re-saves it with its secret, which the source's API does
// not show (a random one stands in until then).
func CopyWebhook(tx Tx, caller Caller, in *WebhookInput, policy WebhookPolicy, now time.Time) (*Webhook, error) {
	if err := WebhookAccess(caller); err != nil {
		return nil, err
	}
	if in.Secret == nil {
		secret := rand.Text()[:MaxWebhookSecret/2]
		in.Secret = &secret
	}
	if err := in.Validate(policy); err != nil {
		return nil, err
	}
	if err := checkFilters(tx, caller, in); err != nil {
		return nil, err
	}
	w := &Webhook{CompanyID: caller.Company.ID, State: WebhookDisabled, CreatedAt: now, UpdatedAt: now,
		DisabledAt: &now, DisabledReason: CopiedWebhookReason}
	in.apply(w)
	return w, tx.PutWebhook(w)
}

// LoadWebhook loads a webhook the caller may manage.
func LoadWebhook(tx Tx, caller Caller, id int64) (*Webhook, error) {
	if err := WebhookAccess(caller); err != nil {
		return nil, err
	}
	return tx.Webhook(caller.Company.ID, id)
}

// UpdateWebhook overwrites a webhook's configuration (PUT). An absent
// state enables it: re-saving a disabled webhook is how it is turned back
// on, and its paused deliveries resume.
func UpdateWebhook(tx Tx, caller Caller, id int64, in *WebhookInput, policy WebhookPolicy, now time.Time) error {
	w, err := LoadWebhook(tx, caller, id)
	if err != nil {
		return err
	}
	if err := in.Validate(policy); err != nil {
		return err
	}
	if err := checkFilters(tx, caller, in); err != nil {
		return err
	}
	in.apply(w)
	w.UpdatedAt = now
	state := WebhookEnabled
	if in.State != nil {
		state = WebhookState(*in.State)
	}
	if state != w.State {
		w.State = state
		w.DisabledAt, w.DisabledReason = nil, ""
		if state == WebhookDisabled {
			w.DisabledAt, w.DisabledReason = &now, "disabled through the API"
		}
		if err := tx.SetDeliveriesPaused(w.CompanyID, w.ID, state == WebhookDisabled, now); err != nil {
			return err
		}
	}
	return tx.PutWebhook(w)
}

// RemoveWebhook deletes a webhook with its delivery log.
func RemoveWebhook(tx Tx, caller Caller, id int64) error {
	w, err := LoadWebhook(tx, caller, id)
	if err != nil {
		return err
	}
	return tx.DeleteWebhook(w)
}

// ReplayDelivery queues a delivery again, due now, with the same id and
// body and a fresh attempt budget. A delivery of a disabled webhook waits,
// paused, until the webhook is enabled again.
func ReplayDelivery(tx Tx, caller Caller, webhookID, deliveryID int64, now time.Time) (*Delivery, error) {
	w, err := LoadWebhook(tx, caller, webhookID)
	if err != nil {
		return nil, err
	}
	d, err := tx.Delivery(w.CompanyID, w.ID, deliveryID)
	if err != nil {
		return nil, err
	}
	d.Replay(now, w.State == WebhookDisabled)
	return d, tx.PutDelivery(d)
}

// HelpScoutSignature is X-HelpScout-Signature: base64 of the HMAC-SHA1 of
// the raw body keyed with the secret (what receivers of this API family
// verify).
func HelpScoutSignature(secret string, body []byte) string {
	m := hmac.New(sha1.New, []byte(secret))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// ParleySignature is X-Parley-Signature: hex of the HMAC-SHA256, keyed
// with the secret, of the timestamp (X-Parley-Timestamp, Unix seconds), a
// dot, and the raw body. The timestamp inside the MAC lets receivers
// refuse replays of old deliveries.
func ParleySignature(secret string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
