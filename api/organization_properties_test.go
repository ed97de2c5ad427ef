package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bodies follow Help Scout's Organization Properties pages
// (developer.helpscout.com/mailbox-api/endpoints/organizations/properties/).
func TestOrganizationProperties(t *testing.T) {
	w := newWorld(t)
	const defs = "/v2/organizations/properties"
	rec := w.must(http.MethodPost, defs, map[string]any{"type": "dropdown", "slug": "industry", "name": "Industry",
		"options": []any{map[string]any{"label": "Technology"}, map[string]any{"label": "Healthcare"}, map[string]any{"label": "Retail"}}}, http.StatusCreated)
	assert.Equal(t, "https://api.parley.test/v2/organizations/properties/industry", rec.Header().Get("Location"))
	w.must(http.MethodPost, defs, map[string]any{"type": "number", "slug": "annual-revenue", "name": "Annual Revenue"}, http.StatusCreated)
	w.must(http.MethodPost, defs, map[string]any{"type": "text", "slug": "tier", "name": "Tier", "options": []any{map[string]any{"label": "ignored"}}}, http.StatusCreated)
	w.must(http.MethodPost, defs, map[string]any{"type": "date", "slug": "founded", "name": "Founded"}, http.StatusCreated)

	rec = w.get(defs)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	goldenJSON(t, "organizations/properties", rec.Body.Bytes())
	rec = w.get(defs + "/industry")
	require.Equal(t, http.StatusOK, rec.Code)
	goldenJSON(t, "organizations/property_industry", rec.Body.Bytes())

	org := w.newOrganization(map[string]any{"name": "Initech"})
	values := fmt.Sprintf("/v2/organizations/%d/properties/", org)
	w.must(http.MethodPut, values+"industry", map[string]any{"value": "Healthcare"}, http.StatusNoContent)
	w.must(http.MethodPut, values+"annual-revenue", map[string]any{"value": "5000000"}, http.StatusNoContent)
	w.must(http.MethodPut, values+"founded", map[string]any{"value": "2020-01-15"}, http.StatusNoContent)
	w.must(http.MethodPut, values+"tier", map[string]any{"value": "Gold"}, http.StatusNoContent)
	w.must(http.MethodDelete, values+"tier", nil, http.StatusNoContent)
	w.must(http.MethodDelete, values+"tier", nil, http.StatusNoContent) // clearing an unset value is no error
	rec = w.get(fmt.Sprintf("/v2/organizations/%d?includeProperties=true", org))
	require.Equal(t, http.StatusOK, rec.Code)
	goldenJSON(t, "organizations/with_properties", rec.Body.Bytes())

	t.Run("update renames and replaces options; values of removed options go", func(t *testing.T) {
		other := w.newOrganization(map[string]any{"name": "Hooli"})
		w.must(http.MethodPut, fmt.Sprintf("/v2/organizations/%d/properties/industry", other), map[string]any{"value": "retail"}, http.StatusNoContent)
		w.must(http.MethodPut, defs+"/industry", map[string]any{"name": "Sector",
			"options": []any{map[string]any{"label": "Technology"}, map[string]any{"label": "Healthcare"}, map[string]any{"label": "Manufacturing"}}}, http.StatusNoContent)
		d := decode(t, w.get(defs+"/industry"))
		assert.Equal(t, "Sector", d["name"])
		assert.Equal(t, []any{map[string]any{"label": "Technology"}, map[string]any{"label": "Healthcare"}, map[string]any{"label": "Manufacturing"}}, d["options"])
		props := decode(t, w.get(fmt.Sprintf("/v2/organizations/%d?includeProperties=true", other)))["properties"]
		assert.Equal(t, []any{}, props, "Retail was removed, and its value with it")
		props = decode(t, w.get(fmt.Sprintf("/v2/organizations/%d?includeProperties=true", org)))["properties"]
		assert.Equal(t, "Healthcare", props.([]any)[2].(map[string]any)["value"], "a kept option keeps its values")
		w.must(http.MethodPut, defs+"/industry", map[string]any{"name": "Sector again"}, http.StatusNoContent)
		assert.Len(t, decode(t, w.get(defs+"/industry"))["options"], 3, "absent options stay")
	})
	t.Run("delete takes the values and frees the slug", func(t *testing.T) {
		w.must(http.MethodDelete, defs+"/founded", nil, http.StatusNoContent)
		assert.Equal(t, http.StatusNotFound, w.get(defs+"/founded").Code)
		w.must(http.MethodPost, defs, map[string]any{"type": "text", "slug": "founded", "name": "Founded"}, http.StatusCreated)
		props := decode(t, w.get(fmt.Sprintf("/v2/organizations/%d?includeProperties=true", org)))["properties"].([]any)
		assert.Len(t, props, 2, "the new definition starts with no values")
	})
	t.Run("other companies see none of it", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, w.call(globexToken, http.MethodGet, defs+"/industry", nil).Code)
		assert.Equal(t, http.StatusNotFound, w.call(globexToken, http.MethodPut, values+"industry", map[string]any{"value": "Technology"}).Code)
		rec := w.call(globexToken, http.MethodGet, defs, nil)
		assert.Equal(t, []any{}, decode(t, rec)["_embedded"].(map[string]any)["organization-properties"])
	})
}

func TestOrganizationPropertyValidation(t *testing.T) {
	w := newWorld(t)
	const defs = "/v2/organizations/properties"
	w.must(http.MethodPost, defs, map[string]any{"type": "dropdown", "slug": "industry", "name": "Industry", "options": []any{map[string]any{"label": "Technology"}}}, http.StatusCreated)
	w.must(http.MethodPost, defs, map[string]any{"type": "number", "slug": "revenue", "name": "Revenue"}, http.StatusCreated)
	org := w.newOrganization(map[string]any{"name": "Initech"})
	cases := []struct {
		name, method, path string
		token              string
		body               any
		status             int
		want               []string
	}{
		{"slug required", "POST", defs, ownerToken, map[string]any{"type": "text", "name": "x"}, 400, []string{"slug: Null value"}},
		{"slug of 120", "POST", defs, ownerToken, map[string]any{"type": "text", "slug": longSlug(120), "name": "x"}, 201, nil},
		{"slug of 121", "POST", defs, ownerToken, map[string]any{"type": "text", "slug": longSlug(121), "name": "x"}, 400, []string{"slug: Size"}},
		{"slug taken", "POST", defs, ownerToken, map[string]any{"type": "text", "slug": "industry", "name": "x"}, 409, []string{"slug: Conflict"}},
		{"type", "POST", defs, ownerToken, map[string]any{"type": "boolean", "slug": "b", "name": "x"}, 400, []string{"type: Enum Value"}},
		{"dropdown without options", "POST", defs, ownerToken, map[string]any{"type": "dropdown", "slug": "d", "name": "x"}, 400, []string{"options: Empty value"}},
		{"label of 101", "POST", defs, ownerToken, map[string]any{"type": "dropdown", "slug": "d", "name": "x", "options": []any{map[string]any{"label": longText(101)}}}, 400, []string{"options[0]: Size"}},
		{"users may not define", "POST", defs, userToken, map[string]any{"type": "text", "slug": "u", "name": "x"}, 403, nil},
		{"update needs a name", "PUT", defs + "/industry", ownerToken, map[string]any{}, 400, []string{"name: Null value"}},
		{"update of none", "PUT", defs + "/nothing", ownerToken, map[string]any{"name": "x"}, 404, nil},
		{"dropdown value is a label", "PUT", fmt.Sprintf("/v2/organizations/%d/properties/industry", org), ownerToken, map[string]any{"value": "Finance"}, 400, []string{"value: Value not supported"}},
		{"number value", "PUT", fmt.Sprintf("/v2/organizations/%d/properties/revenue", org), ownerToken, map[string]any{"value": "lots"}, 400, []string{"value: Invalid number"}},
		{"number given as a number", "PUT", fmt.Sprintf("/v2/organizations/%d/properties/revenue", org), userToken, map[string]any{"value": 100}, 204, nil},
		{"value required", "PUT", fmt.Sprintf("/v2/organizations/%d/properties/revenue", org), ownerToken, map[string]any{}, 400, []string{"value: Null value"}},
		{"value of an undefined property", "PUT", fmt.Sprintf("/v2/organizations/%d/properties/none", org), ownerToken, map[string]any{"value": "x"}, 404, nil},
		{"value on no organization", "PUT", "/v2/organizations/999999/properties/revenue", ownerToken, map[string]any{"value": "1"}, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.call(tc.token, tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
			}
		})
	}
	t.Run("at most 50 a company", func(t *testing.T) {
		rec := w.get(defs)
		have := len(decode(t, rec)["_embedded"].(map[string]any)["organization-properties"].([]any))
		for i := have; i < 50; i++ {
			w.must(http.MethodPost, defs, map[string]any{"type": "text", "slug": fmt.Sprintf("p%d", i), "name": "x"}, http.StatusCreated)
		}
		rec = w.call(ownerToken, http.MethodPost, defs, map[string]any{"type": "text", "slug": "one-too-many", "name": "x"})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, []string{"slug: Size"}, errorSummary(t, rec))
	})
}

func longSlug(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
