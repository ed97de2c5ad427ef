package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOrganizationLifecycle(t *testing.T) {
	w := newWorld(t)
	rec := w.must(http.MethodPost, "/v2/organizations", map[string]any{"name": "Initech", "website": "https://initech.example",
		"description": "Software", "location": "Austin", "logoUrl": "https://initech.example/logo.png", "note": "Big account",
		"brandColor": "#FF8800", "domains": []string{"Initech.example", "initech.test"}, "phones": []string{"+1 555 0199"}}, http.StatusCreated)
	id := resourceID(t, rec)
	path := fmt.Sprintf("/v2/organizations/%d", id)
	assert.Equal(t, "https://api.parley.test"+path, rec.Header().Get("Location"))

	alice := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "alice@initech.example", "firstName": "Alice"}}))
	w.create(convJSON(map[string]any{"customer": map[string]any{"email": "alice@initech.example"}, "subject": "Second"}))
	aliceID := int64(field(t, w.conv(alice), "primaryCustomer", "id").(float64))
	w.must(http.MethodPatch, fmt.Sprintf("/v2/customers/%d", aliceID), []any{map[string]any{"op": "replace", "path": "/organizationId", "value": id}}, http.StatusNoContent)
	bob := w.newCustomer(map[string]any{"firstName": "Bob", "organizationId": id})

	rec = w.get(path + "?includeCounts=true&includeProperties=true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "organizations/initech", rec.Body.Bytes())
	plain := decode(t, w.get(path))
	assert.NotContains(t, plain, "customerCount")
	assert.NotContains(t, plain, "properties")

	assert.Equal(t, []int64{aliceID, bob}, ids(t, w.get(path+"/customers"), "customers"))
	convs := ids(t, w.get(path+"/conversations"), "conversations")
	assert.Len(t, convs, 2)
	assert.Equal(t, alice, convs[1], "newest first")
	assert.Len(t, ids(t, w.call(userToken, http.MethodGet, path+"/conversations", nil), "conversations"), 2, "in a mailbox the user sees")

	t.Run("update replaces everything but id and logoUrl", func(t *testing.T) {
		w.clock.advance(time.Minute)
		w.must(http.MethodPut, path, map[string]any{"name": "Initrode", "domains": []string{"initrode.example"}, "logoUrl": "https://ignored.example/x.png"}, http.StatusNoContent)
		o := decode(t, w.get(path))
		assert.Equal(t, "Initrode", o["name"])
		for _, name := range []string{"website", "description", "location", "note", "brandColor"} {
			assert.Nil(t, o[name], "%s missing from the request is null", name)
		}
		assert.Equal(t, []any{}, o["phones"], "a missing array is empty")
		assert.Equal(t, []any{"initrode.example"}, o["domains"], "a given array replaces")
		assert.Equal(t, "https://initech.example/logo.png", o["logoUrl"], "logoUrl is kept")
		assert.Equal(t, "2026-11-21T12:01:00Z", o["updatedAt"])
		assert.Equal(t, "Initrode", w.readCustomer(bob)["organization"], "customers read the current name")
		// The released domain can be taken by another organization.
		w.newOrganization(map[string]any{"name": "Heir", "domains": []string{"initech.example"}})
	})
	t.Run("delete keeps customers, unlinked", func(t *testing.T) {
		w.must(http.MethodDelete, path, nil, http.StatusNoContent)
		assert.Equal(t, http.StatusNotFound, w.get(path).Code)
		cu := w.readCustomer(bob)
		assert.NotContains(t, cu, "organizationId")
		assert.Equal(t, "", cu["organization"])
		assert.Equal(t, http.StatusNotFound, w.get(path+"/customers").Code)
		assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodDelete, path, nil).Code)
	})
}

func TestOrganizationValidation(t *testing.T) {
	w := newWorld(t)
	w.newOrganization(map[string]any{"name": "Taken", "domains": []string{"taken.example"}})
	cases := []struct {
		name   string
		body   any
		status int
		want   []string
	}{
		{"name required", map[string]any{}, 400, []string{"name: Null value"}},
		{"name empty", map[string]any{"name": " "}, 400, []string{"name: Empty value"}},
		{"name too long", map[string]any{"name": longText(61)}, 400, []string{"name: Size"}},
		{"name at the limit", map[string]any{"name": longText(60)}, 201, nil},
		{"brand colour", map[string]any{"name": "x", "brandColor": "orange"}, 400, []string{"brandColor: Value not supported"}},
		{"brand colour null", map[string]any{"name": "x", "brandColor": nil}, 201, nil},
		{"website", map[string]any{"name": "x", "website": "initech"}, 400, []string{"website: Value not supported"}},
		{"domain", map[string]any{"name": "x", "domains": []string{"not a domain"}}, 400, []string{"domains[0]: Value not supported"}},
		{"domain twice", map[string]any{"name": "x", "domains": []string{"a.example", "A.example"}}, 400, []string{"domains[1]: Conflict"}},
		{"domain of another organization", map[string]any{"name": "x", "domains": []string{"TAKEN.example"}}, 409, []string{"domains[0]: Conflict"}},
		{"empty phone", map[string]any{"name": "x", "phones": []string{""}}, 400, []string{"phones[0]: Empty value"}},
		{"description too long", map[string]any{"name": "x", "description": longText(2001)}, 400, []string{"description: Size"}},
		{"structure", map[string]any{"name": "x", "domains": "a.example"}, 400, []string{"domains: Invalid JSON"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.call(ownerToken, http.MethodPost, "/v2/organizations", tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
	t.Run("another company may use the same domain", func(t *testing.T) {
		rec := w.call(globexToken, http.MethodPost, "/v2/organizations", map[string]any{"name": "G", "domains": []string{"taken.example"}})
		assert.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	})
	t.Run("update validates too", func(t *testing.T) {
		id := w.newOrganization(map[string]any{"name": "Upd"})
		rec := w.call(ownerToken, http.MethodPut, fmt.Sprintf("/v2/organizations/%d", id), map[string]any{"brandColor": "#12345"})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, []string{"name: Null value", "brandColor: Value not supported"}, errorSummary(t, rec))
	})
}

func TestListOrganizations(t *testing.T) {
	w := newWorld(t)
	names := []string{"Delta", "alpha", "Charlie", "bravo"}
	var created []int64
	for i, n := range names {
		created = append(created, w.newOrganization(map[string]any{"name": n, "domains": []string{fmt.Sprintf("d%d.%s.example", i, n)}}))
		w.clock.advance(time.Minute)
	}
	delta, alpha, charlie, bravo := created[0], created[1], created[2], created[3]
	cases := []struct {
		query string
		want  []int64
	}{
		{"", []int64{alpha, bravo, charlie, delta}},
		{"sortOrder=desc", []int64{delta, charlie, bravo, alpha}},
		{"sortField=createdAt", []int64{delta, alpha, charlie, bravo}},
		{"sortField=createdAt&sortOrder=desc", []int64{bravo, charlie, alpha, delta}},
		{"query=ALP", []int64{alpha}},
		{"query=d3.", []int64{bravo}},
		{"query=nothing", []int64{}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			assert.Equal(t, tc.want, ids(t, w.get("/v2/organizations?"+tc.query), "organizations"))
		})
	}
	assert.Equal(t, []int64{}, ids(t, w.call(globexToken, http.MethodGet, "/v2/organizations", nil), "organizations"))
	rec := w.get("/v2/organizations?sortField=size&page=0")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, []string{"sortField: Enum Value", "page: Invalid number"}, errorSummary(t, rec))

	t.Run("paging by 50", func(t *testing.T) {
		for i := 0; i < 50; i++ {
			w.newOrganization(map[string]any{"name": fmt.Sprintf("Org %02d", i)})
		}
		body := decode(t, w.get("/v2/organizations?page=2"))
		page := body["page"].(map[string]any)
		assert.Equal(t, map[string]any{"size": 50.0, "totalElements": 54.0, "totalPages": 2.0, "number": 2.0}, page)
		assert.Len(t, field(t, body, "_embedded", "organizations"), 4)
		raw, _ := json.Marshal(body["_links"])
		assert.Contains(t, string(raw), "previous")
	})
}

// TestConversationCustomerLinksOrganization: a customer created with a
// conversation is linked the way Create Customer links one, by id (which
// must be the company's) or by name (matched or created).
func TestConversationCustomerLinksOrganization(t *testing.T) {
	w := newWorld(t)
	initech := w.newOrganization(map[string]any{"name": "Initech"})
	customerOf := func(conv int64) map[string]any {
		return w.readCustomer(int64(field(t, w.conv(conv), "primaryCustomer", "id").(float64)))
	}

	byID := customerOf(w.create(convJSON(map[string]any{"customer": map[string]any{"email": "ann@initech.example", "organizationId": initech}})))
	assert.Equal(t, float64(initech), byID["organizationId"])
	assert.Equal(t, "Initech", byID["organization"])

	byName := customerOf(w.create(convJSON(map[string]any{"customer": map[string]any{"email": "ben@initech.example", "organization": "initech"}})))
	assert.Equal(t, float64(initech), byName["organizationId"], "an existing name is matched, case aside")

	fresh := customerOf(w.create(convJSON(map[string]any{"customer": map[string]any{"email": "cy@hooli.example", "organization": "Hooli"}})))
	assert.Equal(t, "Hooli", fresh["organization"])
	hooli := int64(fresh["organizationId"].(float64))
	assert.Equal(t, "Hooli", decode(t, w.get(fmt.Sprintf("/v2/organizations/%d", hooli)))["name"], "a new name is created")

	globex := resourceID(t, w.call(globexToken, http.MethodPost, "/v2/organizations", map[string]any{"name": "Globex Corp"}))
	for _, id := range []int64{999, globex} {
		rec := w.do(request{method: http.MethodPost, path: "/v2/conversations", token: ownerToken,
			body: convJSON(map[string]any{"customer": map[string]any{"email": "dee@example.com", "organizationId": id}})})
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, []string{"customer.organizationId: Invalid identifier"}, errorSummary(t, rec), "organization %d", id)
	}
}
