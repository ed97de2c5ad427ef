package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConversationFacets(t *testing.T) { onEachBackend(t, testConversationFacets) }

func testConversationFacets(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	rec := w.get("/v2/conversations?status=all&facets=status,tag,type,mailbox,assignee,createdAt:month")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "facets/all", rec.Body.Bytes())

	// Facets count over the same filter and query as the page.
	body := decode(t, w.get("/v2/conversations?status=all&facets=status&facets=tag&query=refund"))
	assert.Equal(t, map[string]any{"status": map[string]any{"active": float64(2)}, "tag": map[string]any{"refund": float64(2), "vip": float64(1)}},
		body["facets"], "the page holds %v", body["page"])
	assert.Equal(t, float64(2), body["page"].(map[string]any)["totalElements"])

	// Off unless asked.
	_, present := decode(t, w.get("/v2/conversations?status=all"))["facets"]
	assert.False(t, present)

	// A user sees the facets of its mailboxes only.
	got := decode(t, w.do(request{method: "GET", path: "/v2/conversations?status=all&facets=mailbox", token: userToken}))
	assert.Equal(t, map[string]any{"mailbox": map[string]any{"support": float64(5)}}, got["facets"])

	rec = w.get("/v2/conversations?facets=status,colour")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"facets: List Of Enum Values"}, errorSummary(t, rec))
}

func TestCustomerFacets(t *testing.T) { onEachBackend(t, testCustomerFacets) }

func testCustomerFacets(t *testing.T, on backend) {
	w := newListWorldOn(t, on)
	// Two addresses at one domain count once for it.
	rec := w.do(request{method: http.MethodPost, path: "/v2/customers", token: ownerToken, body: `{"firstName": "Erin", "organization": "Initech",
		"emails": [{"type": "work", "value": "erin@initech.test"}, {"type": "home", "value": "erin.e@initech.test"}]}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	rec = w.get("/v2/customers?facets=emailDomain,mailboxId,organizationId,createdAt:month")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "facets/customers", rec.Body.Bytes())

	// Facets count over the same filter and query as the page.
	body := decode(t, w.get("/v2/customers?facets=emailDomain,mailboxId&mailbox="+fmt.Sprint(billingID)))
	assert.Equal(t, map[string]any{"emailDomain": map[string]any{"example.com": float64(1)}, "mailboxId": map[string]any{fmt.Sprint(billingID): float64(1)}},
		body["facets"], "the page holds %v", body["page"])
	body = decode(t, w.get("/v2/customers?facets=organizationId&query="+url.QueryEscape("firstName:erin")))
	assert.Len(t, body["facets"].(map[string]any)["organizationId"], 1)

	// Off unless asked.
	_, present := decode(t, w.get("/v2/customers"))["facets"]
	assert.False(t, present)

	rec = w.get("/v2/customers?facets=emailDomain,status")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"facets: List Of Enum Values"}, errorSummary(t, rec))
}
