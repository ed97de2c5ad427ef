package api_test

import (
	"net/http"
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
