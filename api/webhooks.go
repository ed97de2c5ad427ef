package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// webhookView is a webhook; its secret is never shown.
type webhookView struct {
	Links struct {
		Deliveries halLink `json:"deliveries"`
		Self       halLink `json:"self"`
	} `json:"_links"`
	CreatedAt      string              `json:"createdAt"`
	DisabledAt     string              `json:"disabledAt,omitempty"`
	DisabledReason *string             `json:"disabledReason,omitempty"`
	Events         []string            `json:"events"`
	ID             int64               `json:"id"`
	Label          string              `json:"label"`
	LastSuccessAt  string              `json:"lastSuccessAt,omitempty"`
	MailboxIDs     []int64             `json:"mailboxIds"`
	Notification   bool                `json:"notification"`
	PayloadVersion string              `json:"payloadVersion"`
	State          parley.WebhookState `json:"state"`
	UpdatedAt      string              `json:"updatedAt"`
	URL            string              `json:"url"`
	ViewID         int64               `json:"viewId,omitempty"`
}

// webhookResource renders a webhook; its secret is never shown.
func (s *Server) webhookResource(c *gin.Context, w *parley.Webhook) *webhookView {
	self := s.url(c, "v2", "webhooks", w.ID)
	out := &webhookView{
		ID: w.ID, URL: w.URL, Label: w.Label, Events: w.Events, MailboxIDs: nonNil(w.MailboxIDs), ViewID: w.ViewID,
		Notification: w.Notification, PayloadVersion: w.PayloadVersion, State: w.State,
		CreatedAt: parley.FormatTime(w.CreatedAt), UpdatedAt: parley.FormatTime(w.UpdatedAt),
	}
	out.Links.Self, out.Links.Deliveries = link(self), link(self+"/deliveries")
	if w.DisabledAt != nil {
		out.DisabledAt, out.DisabledReason = parley.FormatTime(*w.DisabledAt), &w.DisabledReason
	}
	if w.LastSuccessAt != nil {
		out.LastSuccessAt = parley.FormatTime(*w.LastSuccessAt)
	}
	return out
}

// listWebhooks handles GET /v2/webhooks, 50 a page.
func (s *Server) listWebhooks(c *gin.Context) error {
	if err := parley.WebhookAccess(caller(c)); err != nil {
		return err
	}
	return listRecords(s, c, readParams(c, "page"), "webhooks", (parley.Tx).Webhooks, nil,
		func(w *parley.Webhook) (*webhookView, error) { return s.webhookResource(c, w), nil })
}

// createWebhook handles POST /v2/webhooks: 201 with Resource-ID and
// Location; the helpscout.test event is queued for the new webhook.
func (s *Server) createWebhook(c *gin.Context) error {
	var in parley.WebhookInput
	var w *parley.Webhook
	err := decodeJSON(c, &in)
	if err == nil {
		err = s.write(c, func(tx parley.Tx) (err error) {
			w, err = parley.CreateWebhook(tx, caller(c), &in, s.webhookPolicy(), s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	s.created(c, w.ID, s.url(c, "v2", "webhooks", w.ID))
	return nil
}

// getWebhook handles GET /v2/webhooks/{webhookId}.
func (s *Server) getWebhook(c *gin.Context) error {
	var body *webhookView
	err := s.webhookRead(c, func(tx parley.Tx, w *parley.Webhook) error {
		body = s.webhookResource(c, w)
		return nil
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// webhookRead loads the webhook of the path in a read transaction.
func (s *Server) webhookRead(c *gin.Context, fn func(tx parley.Tx, w *parley.Webhook) error) error {
	id, err := pathID(c, "webhookId")
	if err != nil {
		return err
	}
	return s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		w, err := parley.LoadWebhook(tx, caller(c), id)
		if err != nil {
			return err
		}
		return fn(tx, w)
	})
}

// updateWebhook handles PUT /v2/webhooks/{webhookId}: an overwrite (absent
// optional fields take their defaults; an absent state enables); 204.
func (s *Server) updateWebhook(c *gin.Context) error {
	var in parley.WebhookInput
	id, err := pathID(c, "webhookId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.UpdateWebhook(tx, caller(c), id, &in, s.webhookPolicy(), s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deleteWebhook handles DELETE /v2/webhooks/{webhookId}; its delivery log
// goes with it; 204.
func (s *Server) deleteWebhook(c *gin.Context) error {
	id, err := pathID(c, "webhookId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return parley.RemoveWebhook(tx, caller(c), id) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// deliveryView is one entry of a webhook's delivery log; what has not
// happened (yet) is null.
type deliveryView struct {
	Links struct {
		Retry   halLink `json:"retry"`
		Self    halLink `json:"self"`
		Webhook halLink `json:"webhook"`
	} `json:"_links"`
	Attempts      int     `json:"attempts"`
	CreatedAt     string  `json:"createdAt"`
	DeadAt        *string `json:"deadAt"`
	DeliveredAt   *string `json:"deliveredAt"`
	Event         string  `json:"event"`
	ID            int64   `json:"id"`
	LastAttemptAt *string `json:"lastAttemptAt"`
	LastError     string  `json:"lastError,omitempty"`
	LatencyMS     *int64  `json:"latencyMs"`
	NextAttemptAt *string `json:"nextAttemptAt"`
	Replays       int     `json:"replays"`
	ResourceID    string  `json:"resourceId"`
	ResponseCode  *int    `json:"responseCode"`
	Status        string  `json:"status"`
	WebhookID     int64   `json:"webhookId"`
}

// deliveryResource renders one entry of a webhook's delivery log.
func (s *Server) deliveryResource(c *gin.Context, d *parley.Delivery) *deliveryView {
	self := s.url(c, "v2", "webhooks", d.WebhookID, "deliveries", d.ID)
	status := string(d.Status)
	if d.Paused && !d.Final() {
		status = "paused"
	}
	out := &deliveryView{
		ID: d.ID, WebhookID: d.WebhookID, Event: d.Event, ResourceID: d.ResourceID, Status: status,
		Attempts: d.Attempts, Replays: d.Replays, CreatedAt: parley.FormatTime(d.CreatedAt), LastError: d.LastError,
	}
	out.Links.Self, out.Links.Retry, out.Links.Webhook = link(self), link(self+"/retry"), link(s.url(c, "v2", "webhooks", d.WebhookID))
	at := func(t time.Time) *string {
		v := parley.FormatTime(t)
		return &v
	}
	if d.LastAttemptAt != nil {
		out.LastAttemptAt, out.LatencyMS = at(*d.LastAttemptAt), &d.LatencyMS
		if d.ResponseCode != 0 {
			out.ResponseCode = &d.ResponseCode
		}
	}
	if !d.Final() && !d.Paused {
		out.NextAttemptAt = at(d.NextAttemptAt)
	}
	if d.DeliveredAt != nil {
		out.DeliveredAt = at(*d.DeliveredAt)
	}
	if d.DeadAt != nil {
		out.DeadAt = at(*d.DeadAt)
	}
	return out
}

// listDeliveries handles GET /v2/webhooks/{webhookId}/deliveries: the
// delivery log, newest first, 50 a page.
func (s *Server) listDeliveries(c *gin.Context) error {
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	var items []*deliveryView
	err := p.err()
	if err == nil {
		err = s.webhookRead(c, func(tx parley.Tx, w *parley.Webhook) error {
			list, total, err := tx.Deliveries(w.CompanyID, w.ID, pg.offset(), pg.size)
			pg.total = total
			for i := range list {
				items = append(items, s.deliveryResource(c, &list[i]))
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	renderPage(s, c, "deliveries", items, pg)
	return nil
}

// getDelivery handles GET /v2/webhooks/{webhookId}/deliveries/{deliveryId}.
func (s *Server) getDelivery(c *gin.Context) error {
	var body *deliveryView
	err := s.webhookRead(c, func(tx parley.Tx, w *parley.Webhook) error {
		id, err := pathID(c, "deliveryId")
		if err != nil {
			return err
		}
		d, err := tx.Delivery(w.CompanyID, w.ID, id)
		if err == nil {
			body = s.deliveryResource(c, d)
		}
		return err
	})
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// retryDelivery handles POST /v2/webhooks/{webhookId}/deliveries/{deliveryId}/retry:
// the delivery is queued again (same id and body, a fresh attempt budget);
// 202 with the delivery.
func (s *Server) retryDelivery(c *gin.Context) error {
	webhookID, err := pathID(c, "webhookId")
	var deliveryID int64
	if err == nil {
		deliveryID, err = pathID(c, "deliveryId")
	}
	var d *parley.Delivery
	if err == nil {
		err = s.write(c, func(tx parley.Tx) (err error) {
			d, err = parley.ReplayDelivery(tx, caller(c), webhookID, deliveryID, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	c.Header("Location", s.url(c, "v2", "webhooks", webhookID, "deliveries", deliveryID))
	c.Header("Resource-ID", strconv.FormatInt(d.ID, 10))
	render(c, http.StatusAccepted, s.deliveryResource(c, d))
	return nil
}
