package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

// TestWebhookPrivateURLs: unless the server allows private webhooks, a URL
// naming a private, loopback, link-local, unspecified or multicast address
// (or a localhost name) is refused at create and update. Names are not
// resolved then; the delivery check covers them (TestWebhookPrivateDelivery).
func TestWebhookPrivateURLs(t *testing.T) {
	w := newWorld(t, func(c *api.Config) { c.InsecureWebhooks = true }) // http to loopback passes the scheme rule
	body := func(url string) map[string]any {
		return map[string]any{"url": url, "secret": hookSecret, "events": []string{"convo.created"}}
	}
	rec := w.call(ownerToken, http.MethodPost, "/v2/webhooks", body("https://hooks.example.com/parley"))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	id := resourceID(t, rec)
	for _, url := range []string{
		"http://127.0.0.1:9/hook", "http://localhost:9/hook", "https://localhost/hook", "https://api.localhost./hook",
		"https://10.1.2.3/hook", "https://172.16.0.1/hook", "https://192.168.1.1/hook", "https://[fd00::1]/hook",
		"https://[::1]/hook", "https://[::ffff:127.0.0.1]/hook", "https://169.254.169.254/latest/meta-data",
		"https://[fe80::1]/hook", "https://0.0.0.0/hook", "https://[::]/hook", "https://224.0.0.1/hook",
		"https://[ff02::1]/hook", "https://100.64.0.1/hook", "https://255.255.255.255/hook",
	} {
		t.Run(url, func(t *testing.T) {
			for _, call := range []struct{ method, path string }{
				{http.MethodPost, "/v2/webhooks"}, {http.MethodPut, fmt.Sprintf("/v2/webhooks/%d", id)},
			} {
				rec := w.call(ownerToken, call.method, call.path, body(url))
				require.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", call.method, rec.Body.String())
				item := firstError(t, rec)
				assert.Equal(t, "url", item["path"])
				assert.Equal(t, "Value not supported", item["code"])
				assert.Equal(t, url, item["rejectedValue"])
			}
		})
	}
	goldenError(t, "webhooks/private_url", w.call(ownerToken, http.MethodPost, "/v2/webhooks", body("https://10.0.0.1/hook")))
	assert.Equal(t, "https://hooks.example.com/parley", decode(t, w.get(fmt.Sprintf("/v2/webhooks/%d", id)))["url"], "refused updates changed nothing")

	allowed := newWorld(t, insecureWebhooks)
	for _, url := range []string{"http://127.0.0.1:9/hook", "https://10.1.2.3/hook"} {
		assert.Equal(t, http.StatusCreated, allowed.call(ownerToken, http.MethodPost, "/v2/webhooks", body(url)).Code, url)
	}
}

// TestWebhookPrivateDelivery: the dispatcher checks the address it dials,
// after resolution: a webhook stored while private addresses were allowed
// (or a name resolving to one, as localhost does) is not delivered by a
// dispatcher that refuses them; the attempt fails with a clear error and
// the receiver sees nothing.
func TestWebhookPrivateDelivery(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			h := newHooks(t)
			h.d = newDispatcherTo(t, h.world, false)
			url := strings.Replace(h.recv.srv.URL, "127.0.0.1", host, 1) + "/hook"
			id := h.hook(map[string]any{"url": url, "events": []string{"convo.created"}})
			h.create(convJSON(nil))
			h.deliver()
			assert.Zero(t, h.recv.callCount(), "nothing reached the private receiver")
			log := h.deliveries(id)
			require.NotEmpty(t, log)
			for _, d := range log {
				assert.Equal(t, "retrying", d["status"])
				assert.Contains(t, d["lastError"], "the receiver's address is private: 127.0.0.1")
			}
		})
	}
}
