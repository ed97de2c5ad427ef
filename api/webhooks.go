package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// webhookResource renders a webhook; its secret is never shown.
func (s *Server) webhookResource(c *gin.Context, w *parley.Webhook) gin.H {
	self := s.url(c, "v2", "webhooks", w.ID)
	mailboxes := w.MailboxIDs
	if mailboxes == nil {
		mailboxes = []int64{}
	}
	out := gin.H{
		"id": w.ID, "url": w.URL, "label": w.Label, "events": w.Events, "mailboxIds": mailboxes,
		"notification": w.Notification, "payloadVersion": w.PayloadVersion, "state": w.State,
		"createdAt": parley.FormatTime(w.CreatedAt), "updatedAt": parley.FormatTime(w.UpdatedAt),
		"_links": gin.H{"self": link(self), "deliveries": link(self + "/deliveries")},
	}
	if w.DisabledAt != nil {
		out["disabledAt"], out["disabledReason"] = parley.FormatTime(*w.DisabledAt), w.DisabledReason
	}
	if w.LastSuccessAt != nil {
		out["lastSuccessAt"] = parley.FormatTime(*w.LastSuccessAt)
	}
	return out
}

// listWebhooks handles GET /v2/webhooks, 50 a page.
func (s *Server) listWebhooks(c *gin.Context) error {
	if err := parley.WebhookAccess(caller(c)); err != nil {
		return err
	}
	return listRecords(s, c, readParams(c, "page"), "webhooks", (parley.Tx).Webhooks, nil,
		func(w *parley.Webhook) (gin.H, error) { return s.webhookResource(c, w), nil })
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
	var body gin.H
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
	return s.store.View(func(tx parley.Tx) error {
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

// deliveryResource renders one entry of a webhook's delivery log.
func (s *Server) deliveryResource(c *gin.Context, d *parley.Delivery) gin.H {
	self := s.url(c, "v2", "webhooks", d.WebhookID, "deliveries", d.ID)
	status := string(d.Status)
	if d.Paused && !d.Final() {
		status = "paused"
	}
	out := gin.H{
		"id": d.ID, "webhookId": d.WebhookID, "event": d.Event, "resourceId": d.ResourceID, "status": status,
		"attempts": d.Attempts, "replays": d.Replays, "responseCode": nil, "latencyMs": nil,
		"createdAt": parley.FormatTime(d.CreatedAt), "lastAttemptAt": nil, "nextAttemptAt": nil,
		"deliveredAt": nil, "deadAt": nil,
		"_links": gin.H{"self": link(self), "retry": link(self + "/retry"), "webhook": link(s.url(c, "v2", "webhooks", d.WebhookID))},
	}
	if d.LastAttemptAt != nil {
		out["lastAttemptAt"], out["latencyMs"] = parley.FormatTime(*d.LastAttemptAt), d.LatencyMS
		if d.ResponseCode != 0 {
			out["responseCode"] = d.ResponseCode
		}
	}
	if d.LastError != "" {
		out["lastError"] = d.LastError
	}
	if !d.Final() && !d.Paused {
		out["nextAttemptAt"] = parley.FormatTime(d.NextAttemptAt)
	}
	if d.DeliveredAt != nil {
		out["deliveredAt"] = parley.FormatTime(*d.DeliveredAt)
	}
	if d.DeadAt != nil {
		out["deadAt"] = parley.FormatTime(*d.DeadAt)
	}
	return out
}

// listDeliveries handles GET /v2/webhooks/{webhookId}/deliveries: the
// delivery log, newest first, 50 a page.
func (s *Server) listDeliveries(c *gin.Context) error {
	p := readParams(c, "page")
	pg := page{size: DefaultPageSize, number: p.page()}
	var items []gin.H
	err := p.err()
	if err == nil {
		err = s.webhookRead(c, func(tx parley.Tx, w *parley.Webhook) error {
			list, total, err := tx.Deliveries(w.ID, pg.offset(), pg.size)
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
	s.renderPage(c, "deliveries", items, pg)
	return nil
}

// getDelivery handles GET /v2/webhooks/{webhookId}/deliveries/{deliveryId}.
func (s *Server) getDelivery(c *gin.Context) error {
	var body gin.H
	err := s.webhookRead(c, func(tx parley.Tx, w *parley.Webhook) error {
		id, err := pathID(c, "deliveryId")
		if err != nil {
			return err
		}
		d, err := tx.Delivery(w.ID, id)
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
