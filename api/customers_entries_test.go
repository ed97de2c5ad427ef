package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCustomerEntries(t *testing.T) {
	w := newWorld(t)
	id := w.newCustomer(map[string]any{"firstName": "Eve"})
	other := w.newCustomer(map[string]any{"emails": []any{map[string]any{"value": "held@example.com"}}})
	base := fmt.Sprintf("/v2/customers/%d", id)
	cases := []struct {
		segment, embedded  string
		add, replace       map[string]any
		wantAdded, wantPut string
	}{
		{"emails", "emails", map[string]any{"type": "home", "value": "Eve@Example.com"}, map[string]any{"value": "eve2@example.com"}, "home:eve@example.com", "work:eve2@example.com"},
		{"phones", "phones", map[string]any{"type": "mobile", "value": "555"}, map[string]any{"type": "pager", "value": "556"}, "mobile:555", "pager:556"},
		{"chats", "chats", map[string]any{"type": "aim", "value": "eve"}, map[string]any{"type": "icq", "value": "eve2"}, "aim:eve", "icq:eve2"},
		{"social-profiles", "social_profiles", map[string]any{"type": "twitter", "value": "@eve"}, map[string]any{"type": "facebook", "value": "eve.fb"}, "twitter:@eve", "facebook:eve.fb"},
		{"websites", "websites", map[string]any{"value": "https://eve.example"}, map[string]any{"value": "https://eve2.example"}, "https://eve.example", "https://eve2.example"},
	}
	for _, tc := range cases {
		t.Run(tc.segment, func(t *testing.T) {
			rec := w.must(http.MethodPost, base+"/"+tc.segment, tc.add, http.StatusCreated)
			entry := resourceID(t, rec)
			assert.Equal(t, fmt.Sprintf("https://api.parley.test%s/%s/%d", base, tc.segment, entry), rec.Header().Get("Location"))
			assert.Equal(t, []string{tc.wantAdded}, entryValues(t, w.readCustomer(id), tc.embedded))

			w.must(http.MethodPut, fmt.Sprintf("%s/%s/%d", base, tc.segment, entry), tc.replace, http.StatusNoContent)
			cu := w.readCustomer(id)
			assert.Equal(t, []string{tc.wantPut}, entryValues(t, cu, tc.embedded))
			assert.Equal(t, []int64{entry}, entryIDs(t, cu, tc.embedded))

			assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodPut, fmt.Sprintf("%s/%s/999999", base, tc.segment), tc.replace).Code)
			bad := w.call(ownerToken, http.MethodPost, base+"/"+tc.segment, map[string]any{"type": "nope", "value": tc.add["value"]})
			require.Equal(t, http.StatusBadRequest, bad.Code)
			assert.Equal(t, "Value not supported", firstError(t, bad)["code"])

			w.must(http.MethodDelete, fmt.Sprintf("%s/%s/%d", base, tc.segment, entry), nil, http.StatusNoContent)
			assert.Empty(t, entryValues(t, w.readCustomer(id), tc.embedded))
			assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodDelete, fmt.Sprintf("%s/%s/%d", base, tc.segment, entry), nil).Code)
		})
	}
	t.Run("an e-mail of another customer is a conflict", func(t *testing.T) {
		rec := w.call(ownerToken, http.MethodPost, base+"/emails", map[string]any{"value": "HELD@example.com"})
		require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
		assert.Equal(t, "Conflict", firstError(t, rec)["code"])
		_ = other
	})
	t.Run("the same value twice on one customer is a conflict", func(t *testing.T) {
		w.must(http.MethodPost, base+"/phones", map[string]any{"value": "777"}, http.StatusCreated)
		assert.Equal(t, http.StatusConflict, w.call(ownerToken, http.MethodPost, base+"/phones", map[string]any{"value": "777"}).Code)
	})
	t.Run("an e-mail entry is searchable at once", func(t *testing.T) {
		w.must(http.MethodPost, base+"/emails", map[string]any{"value": "findme@example.com"}, http.StatusCreated)
		assert.Equal(t, []int64{id}, ids(t, w.get("/v2/customers?query=email:findme"), "customers"))
	})
}

func TestCustomerAddress(t *testing.T) {
	w := newWorld(t)
	id := w.newCustomer(map[string]any{"firstName": "Ada"})
	path := fmt.Sprintf("/v2/customers/%d/address", id)
	assert.Equal(t, http.StatusNotFound, w.get(path).Code, "no address yet")
	w.must(http.MethodPut, path, map[string]any{"city": "Paris", "country": "FR", "lines": []string{"1 rue de Rivoli"}}, http.StatusNoContent)
	rec := w.get(path)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
	goldenJSON(t, "customers/address", rec.Body.Bytes())
	w.must(http.MethodPut, path, map[string]any{"city": "Lyon"}, http.StatusNoContent)
	assert.Equal(t, map[string]any{"city": "Lyon", "state": "", "postalCode": "", "country": "", "lines": []any{}},
		field(t, w.readCustomer(id), "_embedded", "address"), "PUT replaces the whole address")
	bad := w.call(ownerToken, http.MethodPut, path, map[string]any{"city": longText(256)})
	require.Equal(t, http.StatusBadRequest, bad.Code)
	assert.Equal(t, []string{"city: Size"}, errorSummary(t, bad))
	w.must(http.MethodDelete, path, nil, http.StatusNoContent)
	assert.Equal(t, http.StatusNotFound, w.get(path).Code)
}

func TestCustomerProperties(t *testing.T) {
	w := newWorld(t)
	t.Run("definitions", func(t *testing.T) {
		cases := []struct {
			name   string
			token  string
			body   map[string]any
			status int
			want   []string
		}{
			{"a text property", ownerToken, map[string]any{"slug": "nick_name-2", "name": "Nickname", "type": "text"}, 201, nil},
			{"a dropdown by an administrator", userToken, map[string]any{"slug": "tier", "name": "Tier", "type": "dropdown", "options": []string{"Free", "Paid"}}, 403, []string{": Access denied"}},
			{"slug taken", ownerToken, map[string]any{"slug": "nick_name-2", "name": "Again", "type": "text"}, 409, []string{"slug: Conflict"}},
			{"reserved slug", ownerToken, map[string]any{"slug": "jobTitle", "name": "x", "type": "text"}, 400, []string{"slug: Value not supported"}},
			{"reserved slug in another case", ownerToken, map[string]any{"slug": "EMAIL", "name": "x", "type": "text"}, 400, []string{"slug: Value not supported"}},
			{"slug characters", ownerToken, map[string]any{"slug": "has space", "name": "x", "type": "text"}, 400, []string{"slug: Size"}},
			{"slug too long", ownerToken, map[string]any{"slug": longText(101), "name": "x", "type": "text"}, 400, []string{"slug: Size"}},
			{"slug at the limit", ownerToken, map[string]any{"slug": longText(100), "name": "x", "type": "number"}, 201, nil},
			{"type", ownerToken, map[string]any{"slug": "x", "name": "x", "type": "boolean"}, 400, []string{"type: Enum Value"}},
			{"dropdown without options", ownerToken, map[string]any{"slug": "x", "name": "x", "type": "dropdown"}, 400, []string{"options: Empty value"}},
			{"options on a text", ownerToken, map[string]any{"slug": "x", "name": "x", "type": "text", "options": []string{"a"}}, 400, []string{"options: Value not supported"}},
			{"missing fields", ownerToken, map[string]any{}, 400, []string{"slug: Null value", "name: Null value", "type: Null value"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rec := w.call(tc.token, http.MethodPost, "/v2/customer-properties", tc.body)
				require.Equal(t, tc.status, rec.Code, rec.Body.String())
				if tc.want != nil {
					assert.Equal(t, tc.want, errorSummary(t, rec))
				} else {
					assert.Contains(t, rec.Header().Get("Location"), "/v2/customer-properties/")
				}
			})
		}
	})
	w.defineProperty("tier", "Tier", "dropdown", "Free", "Paid")
	goldenJSON(t, "customers/properties", w.get("/v2/customer-properties").Body.Bytes())
	assert.Equal(t, http.StatusOK, w.call(userToken, http.MethodGet, "/v2/customer-properties", nil).Code, "every user reads definitions")

	id := w.newCustomer(map[string]any{"properties": map[string]any{"tier": "free"}})
	path := fmt.Sprintf("/v2/customers/%d/properties", id)
	value := func(slug string) (any, any) {
		for _, p := range field(t, w.readCustomer(id), "_embedded", "properties").([]any) {
			if m := p.(map[string]any); m["slug"] == slug {
				return m["value"], m["text"]
			}
		}
		return nil, nil
	}
	v, text := value("tier")
	assert.Equal(t, fmt.Sprint(optionID(t, w, "tier", "Free")), v, "a dropdown stores the option id")
	assert.Equal(t, "Free", text, "and reads its label as text")

	w.must(http.MethodPatch, path, []any{map[string]any{"op": "replace", "path": "/tier", "value": "Paid"},
		map[string]any{"op": "add", "path": "/nick_name-2", "value": "Bo"}}, http.StatusNoContent)
	_, text = value("tier")
	assert.Equal(t, "Paid", text)
	_, text = value("nick_name-2")
	assert.Equal(t, "Bo", text)
	w.must(http.MethodPatch, path, []any{map[string]any{"op": "remove", "path": "/tier"}}, http.StatusNoContent)
	v, _ = value("tier")
	assert.Nil(t, v, "a removed value is absent")

	for name, tc := range map[string]struct {
		body any
		want []string
	}{
		"undefined slug":   {[]any{map[string]any{"op": "replace", "path": "/shoe", "value": "1"}}, []string{"[0].value: Value not supported"}},
		"bad value":        {[]any{map[string]any{"op": "replace", "path": "/tier", "value": "Gold"}}, []string{"[0].value: Value not supported"}},
		"op":               {[]any{map[string]any{"op": "copy", "path": "/tier"}}, []string{"[0].op: Allowed Patch Operations"}},
		"path":             {[]any{map[string]any{"op": "replace", "path": "tier", "value": "Paid"}}, []string{"[0].path: Allowed Patch Operations"}},
		"missing value":    {[]any{map[string]any{"op": "replace", "path": "/tier"}}, []string{"[0].value: Null value"}},
		"not an array":     {map[string]any{"op": "replace", "path": "/tier", "value": "Paid"}, []string{": Invalid JSON"}},
		"no customer here": {nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.body == nil {
				assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodPatch, "/v2/customers/999/properties", []any{map[string]any{"op": "remove", "path": "/tier"}}).Code)
				return
			}
			rec := w.call(ownerToken, http.MethodPatch, path, tc.body)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, tc.want, errorSummary(t, rec))
		})
	}
}

func TestCustomerEntryLists(t *testing.T) {
	w := newWorld(t)
	id := w.newCustomer(map[string]any{"firstName": "Lin",
		"emails":         []any{map[string]any{"type": "work", "value": "lin@example.com"}, map[string]any{"type": "home", "value": "lin@home.example"}},
		"phones":         []any{map[string]any{"type": "mobile", "value": "555-0101"}},
		"chats":          []any{map[string]any{"type": "skype", "value": "lin.s"}},
		"socialProfiles": []any{map[string]any{"type": "twitter", "value": "@lin"}},
		"websites":       []any{map[string]any{"value": "https://lin.example"}},
	})
	for _, segment := range []string{"emails", "phones", "chats", "social-profiles", "websites"} {
		t.Run(segment, func(t *testing.T) {
			rec := w.get(fmt.Sprintf("/v2/customers/%d/%s", id, segment))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "application/hal+json;charset=UTF-8", rec.Header().Get("Content-Type"))
			goldenJSON(t, "customers/entries_"+segment, rec.Body.Bytes())
		})
	}
	t.Run("an unknown customer is not found", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, w.get("/v2/customers/999999/emails").Code)
	})
	t.Run("another company's customer is not found", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, w.call(globexToken, http.MethodGet, fmt.Sprintf("/v2/customers/%d/emails", id), nil).Code)
	})
}

func TestCustomerAddressCreate(t *testing.T) {
	w := newWorld(t)
	id := w.newCustomer(map[string]any{"firstName": "Ada"})
	path := fmt.Sprintf("/v2/customers/%d/address", id)
	rec := w.must(http.MethodPost, path, map[string]any{"city": "Dallas", "state": "TX", "postalCode": "74206", "country": "US",
		"lines": []string{"123 West Main St", "Suite 123"}}, http.StatusCreated)
	assert.Equal(t, "https://api.parley.test"+path, rec.Header().Get("Location"))
	assert.Equal(t, map[string]any{"city": "Dallas", "state": "TX", "postalCode": "74206", "country": "US",
		"lines": []any{"123 West Main St", "Suite 123"}}, field(t, w.readCustomer(id), "_embedded", "address"))

	again := w.call(ownerToken, http.MethodPost, path, map[string]any{"city": "Lyon"})
	require.Equal(t, http.StatusConflict, again.Code, again.Body.String())
	goldenJSON(t, "errors/address_exists", again.Body.Bytes())
	assert.Equal(t, "Dallas", field(t, w.readCustomer(id), "_embedded", "address", "city"), "a refused create changes nothing")

	bad := w.call(ownerToken, http.MethodPost, fmt.Sprintf("/v2/customers/%d/address", w.newCustomer(map[string]any{"firstName": "Bo"})),
		map[string]any{"city": longText(256)})
	assert.Equal(t, http.StatusBadRequest, bad.Code)
	assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodPost, "/v2/customers/999999/address", map[string]any{"city": "X"}).Code)
}

func TestCustomerPropertyBySlug(t *testing.T) {
	w := newWorld(t)
	id := w.defineProperty("plan", "Plan", "dropdown", "Free", "Paid")
	w.defineProperty("seats", "Seats", "number")
	holder := w.newCustomer(map[string]any{"firstName": "Holder", "properties": map[string]any{"plan": "Paid", "seats": "3"}})

	bySlug := w.get("/v2/customer-properties/plan")
	require.Equal(t, http.StatusOK, bySlug.Code, bySlug.Body.String())
	goldenJSON(t, "customers/property_plan", bySlug.Body.Bytes())
	assert.Equal(t, bySlug.Body.String(), w.get(fmt.Sprintf("/v2/customer-properties/%d", id)).Body.String(), "the id still addresses it")
	assert.Equal(t, http.StatusNotFound, w.get("/v2/customer-properties/nope").Code)

	t.Run("only owners and administrators delete", func(t *testing.T) {
		rec := w.call(userToken, http.MethodDelete, "/v2/customer-properties/plan", nil)
		require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
		assert.Equal(t, http.StatusOK, w.get("/v2/customer-properties/plan").Code)
	})
	t.Run("delete removes the values and frees the slug", func(t *testing.T) {
		w.must(http.MethodDelete, "/v2/customer-properties/plan", nil, http.StatusNoContent)
		assert.Equal(t, http.StatusNotFound, w.get("/v2/customer-properties/plan").Code)
		assert.Equal(t, http.StatusNotFound, w.call(ownerToken, http.MethodDelete, "/v2/customer-properties/plan", nil).Code)
		w.defineProperty("plan", "Plan again", "text")
		var plan map[string]any
		for _, p := range field(t, w.readCustomer(holder), "_embedded", "properties").([]any) {
			if m := p.(map[string]any); m["slug"] == "plan" {
				plan = m
			}
		}
		assert.Equal(t, map[string]any{"type": "text", "slug": "plan", "name": "Plan again", "source": map[string]any{"name": "API"}}, plan,
			"the new definition starts with no value")
		assert.Equal(t, "3", func() any {
			for _, p := range field(t, w.readCustomer(holder), "_embedded", "properties").([]any) {
				if m := p.(map[string]any); m["slug"] == "seats" {
					return m["value"]
				}
			}
			return nil
		}(), "other properties keep their values")
	})
}
