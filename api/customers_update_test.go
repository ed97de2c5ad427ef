package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	parley "github.com/parley/parley"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverwriteCustomer(t *testing.T) {
	w := newWorld(t)
	definePlanProperties(w)
	id := w.newCustomer(fullCustomer())
	path := fmt.Sprintf("/v2/customers/%d", id)
	before := w.readCustomer(id)
	w.clock.advance(time.Hour)

	rec := w.must(http.MethodPut, path, map[string]any{"firstName": "Vern", "gender": "unknown", "organization": "New Org",
		"emails": []any{map[string]any{"value": "ignored@example.com"}}}, http.StatusNoContent)
	assert.Empty(t, rec.Body.String())
	after := w.readCustomer(id)
	assert.Equal(t, "Vern", after["firstName"])
	assert.Equal(t, "unknown", after["gender"])
	for _, name := range []string{"lastName", "photoUrl", "photoType", "jobTitle", "background", "location", "age"} {
		assert.Equal(t, "", after[name], "%s absent from the request is null", name)
	}
	assert.Equal(t, "New Org", after["organization"], "organization fills organizationId")
	assert.NotEqual(t, before["organizationId"], after["organizationId"])
	assert.Equal(t, "2026-11-21T13:00:00Z", after["updatedAt"])
	for _, name := range []string{"emails", "phones", "chats", "social_profiles", "websites", "properties", "address"} {
		assert.Equal(t, field(t, before, "_embedded", name), field(t, after, "_embedded", name), "%s untouched", name)
	}

	w.must(http.MethodPut, path, map[string]any{"lastName": "Bear"}, http.StatusNoContent)
	after = w.readCustomer(id)
	assert.Equal(t, "", after["firstName"])
	assert.NotContains(t, after, "organizationId", "no organization in the request unlinks it")
	assert.Equal(t, "", after["organization"])

	t.Run("errors", func(t *testing.T) {
		rec := w.call(ownerToken, http.MethodPut, path, map[string]any{"firstName": longText(41), "organizationId": 999})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, []string{"firstName: Size"}, errorSummary(t, rec))
		rec = w.call(ownerToken, http.MethodPut, path, map[string]any{"organizationId": 999})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, []string{"organizationId: Invalid identifier"}, errorSummary(t, rec))
		assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodPut, "/v2/customers/999", map[string]any{}).Code)
	})
}

func TestPatchCustomer(t *testing.T) {
	w := newWorld(t)
	definePlanProperties(w)
	org := w.newOrganization(map[string]any{"name": "Initech"})
	id := w.newCustomer(fullCustomer())
	path := fmt.Sprintf("/v2/customers/%d", id)
	cu := w.readCustomer(id)
	email, phone, chat := entryIDs(t, cu, "emails")[0], entryIDs(t, cu, "phones")[1], entryIDs(t, cu, "chats")[0]
	social, website := entryIDs(t, cu, "social_profiles")[0], entryIDs(t, cu, "websites")[0]
	op := func(o, p string, v any) map[string]any {
		m := map[string]any{"op": o, "path": p}
		if v != nil {
			m["value"] = v
		}
		return m
	}
	allowed := []struct {
		name  string
		op    map[string]any
		check func(t *testing.T, c map[string]any)
	}{
		{"replace /firstName", op("replace", "/firstName", "Vera"), func(t *testing.T, c map[string]any) { assert.Equal(t, "Vera", c["firstName"]) }},
		{"add /lastName", op("add", "/lastName", "Bearing"), func(t *testing.T, c map[string]any) { assert.Equal(t, "Bearing", c["lastName"]) }},
		{"remove /lastName", op("remove", "/lastName", nil), func(t *testing.T, c map[string]any) { assert.Equal(t, "", c["lastName"]) }},
		{"replace /age", op("replace", "/age", "53"), func(t *testing.T, c map[string]any) { assert.Equal(t, "53", c["age"]) }},
		{"replace /background", op("replace", "/background", "Notes"), func(t *testing.T, c map[string]any) { assert.Equal(t, "Notes", c["background"]) }},
		{"replace /gender", op("replace", "/gender", "FEMALE"), func(t *testing.T, c map[string]any) { assert.Equal(t, "female", c["gender"]) }},
		{"replace /jobTitle", op("replace", "/jobTitle", "CTO"), func(t *testing.T, c map[string]any) { assert.Equal(t, "CTO", c["jobTitle"]) }},
		{"replace /location", op("replace", "/location", "Austin"), func(t *testing.T, c map[string]any) { assert.Equal(t, "Austin", c["location"]) }},
		{"replace /photoType", op("replace", "/photoType", "twitter"), func(t *testing.T, c map[string]any) { assert.Equal(t, "twitter", c["photoType"]) }},
		{"replace /photoUrl", op("replace", "/photoUrl", "https://x.example/p.png"), func(t *testing.T, c map[string]any) { assert.Equal(t, "https://x.example/p.png", c["photoUrl"]) }},
		{"remove /photoUrl", op("remove", "/photoUrl", nil), func(t *testing.T, c map[string]any) { assert.Equal(t, "", c["photoUrl"]) }},
		{"replace /address/city", op("replace", "/address/city", "Austin"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "Austin", field(t, c, "_embedded", "address", "city"))
		}},
		{"replace /address/country", op("replace", "/address/country", "CA"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "CA", field(t, c, "_embedded", "address", "country"))
		}},
		{"replace /address/postalCode", op("replace", "/address/postalCode", "1"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "1", field(t, c, "_embedded", "address", "postalCode"))
		}},
		{"replace /address/state", op("replace", "/address/state", "ON"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "ON", field(t, c, "_embedded", "address", "state"))
		}},
		{"replace /address/lines", op("replace", "/address/lines", []string{"1 Main"}), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []any{"1 Main"}, field(t, c, "_embedded", "address", "lines"))
		}},
		{"remove /address/lines", op("remove", "/address/lines", nil), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []any{}, field(t, c, "_embedded", "address", "lines"))
		}},
		{"replace /organizationId", op("replace", "/organizationId", org), func(t *testing.T, c map[string]any) {
			assert.Equal(t, float64(org), c["organizationId"])
			assert.Equal(t, "Initech", c["organization"])
		}},
		{"remove /organizationId", op("remove", "/organizationId", nil), func(t *testing.T, c map[string]any) { assert.NotContains(t, c, "organizationId") }},
		{"replace /organization fills organizationId", op("replace", "/organization", "initech"), func(t *testing.T, c map[string]any) { assert.Equal(t, float64(org), c["organizationId"]) }},
		{"remove /organization", op("remove", "/organization", nil), func(t *testing.T, c map[string]any) { assert.NotContains(t, c, "organizationId") }},
		{"add /emails", op("add", "/emails", map[string]any{"type": "other", "value": "third@example.com"}), func(t *testing.T, c map[string]any) {
			assert.Contains(t, entryValues(t, c, "emails"), "other:third@example.com")
		}},
		{"replace /emails/{id}", op("replace", fmt.Sprintf("/emails/%d", email), map[string]any{"type": "home", "value": "v2@example.com"}), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "home:v2@example.com", entryValues(t, c, "emails")[0])
			assert.Equal(t, email, entryIDs(t, c, "emails")[0], "the entry keeps its id")
		}},
		{"replace /emails/{id}/value", op("replace", fmt.Sprintf("/emails/%d/value", email), "v3@example.com"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "home:v3@example.com", entryValues(t, c, "emails")[0])
		}},
		{"replace /emails/{id}/type", op("replace", fmt.Sprintf("/emails/%d/type", email), "work"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "work:v3@example.com", entryValues(t, c, "emails")[0])
		}},
		{"remove /emails/{id}", op("remove", fmt.Sprintf("/emails/%d", email), nil), func(t *testing.T, c map[string]any) { assert.NotContains(t, entryIDs(t, c, "emails"), email) }},
		{"replace /phones/{id}/type", op("replace", fmt.Sprintf("/phones/%d/type", phone), "fax"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, "fax:+1 555 0101", entryValues(t, c, "phones")[1])
		}},
		{"add /phones", op("add", "/phones", map[string]any{"value": "42"}), func(t *testing.T, c map[string]any) { assert.Contains(t, entryValues(t, c, "phones"), "work:42") }},
		{"replace /chats/{id}/value", op("replace", fmt.Sprintf("/chats/%d/value", chat), "vb2"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []string{"skype:vb2"}, entryValues(t, c, "chats"))
		}},
		{"replace /social-profiles/{id}", op("replace", fmt.Sprintf("/social-profiles/%d", social), map[string]any{"type": "linkedin", "value": "in/vb"}), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []string{"linkedin:in/vb"}, entryValues(t, c, "social_profiles"))
		}},
		{"replace /websites/{id}/value", op("replace", fmt.Sprintf("/websites/%d/value", website), "https://new.example"), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []string{"https://new.example"}, entryValues(t, c, "websites"))
		}},
		{"add /websites", op("add", "/websites", map[string]any{"value": "https://two.example"}), func(t *testing.T, c map[string]any) { assert.Len(t, entryValues(t, c, "websites"), 2) }},
		{"remove /websites/{id}", op("remove", fmt.Sprintf("/websites/%d", website), nil), func(t *testing.T, c map[string]any) {
			assert.Equal(t, []string{"https://two.example"}, entryValues(t, c, "websites"))
		}},
	}
	for _, tc := range allowed {
		t.Run(tc.name, func(t *testing.T) {
			w.must(http.MethodPatch, path, []any{tc.op}, http.StatusNoContent)
			tc.check(t, w.readCustomer(id))
		})
	}

	refused := []struct {
		name string
		body any
		want []string
	}{
		{"remove a whole collection", []any{op("remove", "/emails", nil)}, []string{"[0].op: Allowed Patch Operations"}},
		{"replace a whole collection", []any{op("replace", "/phones", []any{})}, []string{"[0].op: Allowed Patch Operations"}},
		{"remove /social-profiles", []any{op("remove", "/social-profiles", nil)}, []string{"[0].op: Allowed Patch Operations"}},
		{"add /organizationId", []any{op("add", "/organizationId", org)}, []string{"[0].op: Allowed Patch Operations"}},
		{"add an entry by id", []any{op("add", fmt.Sprintf("/chats/%d", chat), map[string]any{"value": "x"})}, []string{"[0].op: Allowed Patch Operations"}},
		{"remove an entry value", []any{op("remove", fmt.Sprintf("/chats/%d/value", chat), nil)}, []string{"[0].op: Allowed Patch Operations"}},
		{"type of a website", []any{op("replace", "/websites/1/type", "work")}, []string{"[0].path: Allowed Patch Operations"}},
		{"unknown path", []any{op("replace", "/conversationCount", 5)}, []string{"[0].path: Allowed Patch Operations"}},
		{"unknown op", []any{op("move", "/firstName", "x")}, []string{"[0].op: Allowed Patch Operations"}},
		{"unknown entry", []any{op("remove", "/chats/999999", nil)}, []string{"[0].path: Invalid identifier"}},
		{"entry type not in the set", []any{op("replace", fmt.Sprintf("/chats/%d/type", chat), "irc")}, []string{"[0].type: Value not supported"}},
		{"value too long", []any{op("replace", "/firstName", longText(41))}, []string{"[0].value: Size"}},
		{"value of the wrong type", []any{op("replace", "/firstName", 5)}, []string{"[0].value: Invalid JSON"}},
		{"missing value", []any{op("replace", "/jobTitle", nil)}, []string{"[0].value: Null value"}},
		{"gender not in the set", []any{op("replace", "/gender", "robot")}, []string{"[0].value: Value not supported"}},
		{"unknown organizationId", []any{op("replace", "/organizationId", 999)}, []string{"[0].value: Invalid identifier"}},
		{"bad e-mail", []any{op("add", "/emails", map[string]any{"value": "bad"})}, []string{"[0].value.value: Not well-formed email address"}},
		{"a single object is not an array", op("replace", "/firstName", "Solo"), []string{": Invalid JSON"}},
		{"an empty array", []any{}, []string{": Empty value"}},
		{"every problem, nothing applied", []any{op("replace", "/firstName", "Applied?"), op("remove", "/emails", nil)}, []string{"[1].op: Allowed Patch Operations"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.call(ownerToken, http.MethodPatch, path, tc.body)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, tc.want, errorSummary(t, rec))
		})
	}
	assert.NotEqual(t, "Applied?", w.readCustomer(id)["firstName"], "a refused patch changes nothing")

	t.Run("an e-mail of another customer", func(t *testing.T) {
		w.newCustomer(map[string]any{"emails": []any{map[string]any{"value": "someone@example.com"}}})
		rec := w.call(ownerToken, http.MethodPatch, path, []any{op("add", "/emails", map[string]any{"value": "someone@example.com"})})
		assert.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	})
}

func TestCustomerChangesReachConversations(t *testing.T) {
	w := newWorld(t)
	conv := w.create(convJSON(map[string]any{"customer": map[string]any{"email": "zed@example.com", "firstName": "Zed"}}))
	cid := int64(field(t, w.conv(conv), "primaryCustomer", "id").(float64))
	search := func(q string) []int64 {
		return ids(t, w.get("/v2/conversations?status=all&query="+q), "conversations")
	}
	require.Equal(t, []int64{conv}, search("zed"))
	w.must(http.MethodPatch, fmt.Sprintf("/v2/customers/%d", cid), []any{
		map[string]any{"op": "replace", "path": "/firstName", "value": "Zachary"},
		map[string]any{"op": "add", "path": "/emails", "value": map[string]any{"value": "zach@example.org"}},
	}, http.StatusNoContent)
	assert.Equal(t, []int64{conv}, search("zachary"), "the conversation's document holds the new name")
	assert.Equal(t, []int64{conv}, search("email:zach@example.org"), "and the new e-mail")
	assert.Empty(t, search("zed"), "the old name is gone")
}

func TestOverwriteCustomerKeepsItsEntries(t *testing.T) {
	onEachBackend(t, testOverwriteCustomerKeepsItsEntries)
}

// testOverwriteCustomerKeepsItsEntries: PUT /v2/customers/{id} replaces the
// customer's own fields and leaves its entries (e-mails, phones, chats,
// social profiles, websites, address) as they were, whatever the body
// says of them (nothing, or empty lists); every entry list and the
// address read the same before and after, on both backends. There is no
// PUT under /v3.
func testOverwriteCustomerKeepsItsEntries(t *testing.T, on backend) {
	w := newWorldOn(t, on)
	definePlanProperties(w)
	id := w.newCustomer(fullCustomer())
	path := fmt.Sprintf("/v2/customers/%d", id)
	entries := func() map[string]any {
		t.Helper()
		out := map[string]any{"embedded": w.readCustomer(id)["_embedded"]}
		for _, k := range parley.EntryKinds {
			rec := w.get(path + "/" + k.Segment)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			out[k.Segment] = decode(t, rec)
		}
		rec := w.get(path + "/address")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		out["address"] = decode(t, rec)
		return out
	}
	before := entries()
	require.Len(t, field(t, before, "emails", "_embedded", "emails"), 2)
	for _, body := range []map[string]any{{"firstName": "Vern"}, {"firstName": "Vern", "lastName": "Bear", "jobTitle": "CTO"},
		{"firstName": "Vern", "emails": []any{}, "phones": nil, "address": nil}, {}} {
		w.clock.advance(time.Minute)
		w.must(http.MethodPut, path, body, http.StatusNoContent)
		after := entries()
		assert.Equal(t, before, after, "PUT %v", body)
	}
	assert.Equal(t, "", w.readCustomer(id)["firstName"], "the last PUT, naming no field, emptied the customer's own fields")
	assert.NotEqual(t, http.StatusNoContent, w.call(ownerToken, http.MethodPut, fmt.Sprintf("/v3/customers/%d", id), map[string]any{"firstName": "Vern"}).Code)
}
