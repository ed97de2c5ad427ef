package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCustomersOfAnotherCompany sweeps every customer, customer property
// and organization route with a record of Acme and Globex's token: each
// answers 404, and nothing changes.
func TestCustomersOfAnotherCompany(t *testing.T) {
	w := newWorld(t)
	w.defineProperty("tier", "Tier", "text")
	org := w.newOrganization(map[string]any{"name": "Acme Org"})
	cu := w.newCustomer(map[string]any{"firstName": "Private", "organizationId": org,
		"emails": []any{map[string]any{"value": "private@example.com"}}, "phones": []any{map[string]any{"value": "1"}},
		"chats": []any{map[string]any{"value": "c"}}, "socialProfiles": []any{map[string]any{"value": "s"}},
		"websites": []any{map[string]any{"value": "https://w.example"}}, "address": map[string]any{"city": "Here"}})
	w.must(http.MethodPost, "/v2/organizations/properties", map[string]any{"type": "text", "slug": "tier", "name": "Tier"}, http.StatusCreated)
	w.must(http.MethodPut, fmt.Sprintf("/v2/organizations/%d/properties/tier", org), map[string]any{"value": "Gold"}, http.StatusNoContent)
	before := w.get(fmt.Sprintf("/v2/customers/%d", cu)).Body.String()
	entry := map[string]int64{}
	for _, e := range []struct{ segment, embedded string }{{"emails", "emails"}, {"phones", "phones"}, {"chats", "chats"}, {"social-profiles", "social_profiles"}, {"websites", "websites"}} {
		entry[e.segment] = entryIDs(t, w.readCustomer(cu), e.embedded)[0]
	}
	var prop int64
	for _, it := range field(t, decode(t, w.get("/v2/customer-properties")), "_embedded", "customer-properties").([]any) {
		prop = int64(it.(map[string]any)["id"].(float64))
	}
	c := fmt.Sprintf("/v2/customers/%d", cu)
	o := fmt.Sprintf("/v2/organizations/%d", org)
	patch := []any{map[string]any{"op": "replace", "path": "/firstName", "value": "Stolen"}}
	type route struct {
		method, pattern, path string
		body                  any
	}
	routes := []route{
		{"GET", "/v2/customers/:customerId", c, nil},
		{"PUT", "/v2/customers/:customerId", c, map[string]any{"firstName": "Stolen"}},
		{"PATCH", "/v2/customers/:customerId", c, patch},
		{"DELETE", "/v2/customers/:customerId", c, nil},
		{"GET", "/v2/customers/:customerId/address", c + "/address", nil},
		{"PUT", "/v2/customers/:customerId/address", c + "/address", map[string]any{"city": "There"}},
		{"DELETE", "/v2/customers/:customerId/address", c + "/address", nil},
		{"PATCH", "/v2/customers/:customerId/properties", c + "/properties", []any{map[string]any{"op": "replace", "path": "/tier", "value": "x"}}},
		{"POST", "/v2/customers/:customerId/address", c + "/address", map[string]any{"city": "There"}},
		{"GET", "/v2/customer-properties/:slug", fmt.Sprintf("/v2/customer-properties/%d", prop), nil},
		{"GET", "/v2/customer-properties/:slug", "/v2/customer-properties/tier", nil},
		{"DELETE", "/v2/customer-properties/:slug", "/v2/customer-properties/tier", nil},
		{"DELETE", "/v2/customer-properties/:slug", fmt.Sprintf("/v2/customer-properties/%d", prop), nil},
		{"GET", "/v2/organizations/:organizationId", o, nil},
		{"PUT", "/v2/organizations/:organizationId", o, map[string]any{"name": "Stolen"}},
		{"DELETE", "/v2/organizations/:organizationId", o, nil},
		{"GET", "/v2/organizations/:organizationId/customers", o + "/customers", nil},
		{"GET", "/v2/organizations/:organizationId/conversations", o + "/conversations", nil},
		{"PUT", "/v2/organizations/:organizationId/properties/:slug", o + "/properties/tier", map[string]any{"value": "Stolen"}},
		{"DELETE", "/v2/organizations/:organizationId/properties/:slug", o + "/properties/tier", nil},
		{"GET", "/v2/organizations/properties/:slug", "/v2/organizations/properties/tier", nil},
		{"PUT", "/v2/organizations/properties/:slug", "/v2/organizations/properties/tier", map[string]any{"name": "Stolen"}},
		{"DELETE", "/v2/organizations/properties/:slug", "/v2/organizations/properties/tier", nil},
	}
	for segment, id := range entry {
		value := map[string]any{"value": "https://x.example"}
		if segment == "emails" {
			value = map[string]any{"value": "x@example.com"}
		}
		routes = append(routes,
			route{"GET", "/v2/customers/:customerId/" + segment, c + "/" + segment, nil},
			route{"POST", "/v2/customers/:customerId/" + segment, c + "/" + segment, value},
			route{"PUT", "/v2/customers/:customerId/" + segment + "/:entryId", fmt.Sprintf("%s/%s/%d", c, segment, id), value},
			route{"DELETE", "/v2/customers/:customerId/" + segment + "/:entryId", fmt.Sprintf("%s/%s/%d", c, segment, id), nil})
	}
	covered := map[string]bool{}
	for _, r := range routes {
		covered[r.method+" "+r.pattern] = true
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			rec := w.call(globexToken, r.method, r.path, r.body)
			require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
			assert.Equal(t, "Not found", firstError(t, rec)["code"])
		})
	}
	// Every route with an id of ours is in the table.
	for _, r := range w.server.Routes() {
		if strings.Contains(r.Path, ":customerId") || strings.Contains(r.Path, ":organizationId") || strings.HasPrefix(r.Path, "/v2/customer-properties/") ||
			strings.HasPrefix(r.Path, "/v2/organizations/properties/") {
			assert.True(t, covered[r.Method+" "+r.Path], "route %s %s is not swept", r.Method, r.Path)
		}
	}
	assert.Equal(t, before, w.get(c).Body.String(), "nothing changed")
	assert.Equal(t, "Acme Org", decode(t, w.get(o))["name"])
	assert.Equal(t, "Gold", field(t, decode(t, w.get(o+"?includeProperties=true")), "properties").([]any)[0].(map[string]any)["value"])
	// Lists never show another company's records.
	for _, path := range []string{"/v2/customers", "/v3/customers", "/v2/organizations", "/v2/customer-properties", "/v2/organizations/properties"} {
		rec := w.call(globexToken, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.NotContains(t, rec.Body.String(), "Private", path)
		assert.NotContains(t, rec.Body.String(), "Acme Org", path)
		assert.NotContains(t, rec.Body.String(), "tier", path)
	}
}
