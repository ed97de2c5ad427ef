package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullCustomer is a Create Customer body with every documented field.
func fullCustomer() map[string]any {
	return map[string]any{
		"firstName": "Vernon", "lastName": "Bear", "phone": "+1 555 0100", "photoUrl": "https://img.example.com/v.png",
		"photoType": "gravatar", "jobTitle": "CEO", "background": "Met at the fair.", "location": "Dallas",
		"organization": "Acme Rockets", "gender": "Male", "age": "52", "conversationCount": 99,
		"emails":         []any{map[string]any{"type": "work", "value": "Vernon@Example.com"}, map[string]any{"type": "home", "value": "vern@home.example"}},
		"phones":         []any{map[string]any{"type": "mobile", "value": "+1 555 0101"}},
		"chats":          []any{map[string]any{"type": "skype", "value": "vernon.bear"}},
		"socialProfiles": []any{map[string]any{"type": "twitter", "value": "https://twitter.com/vbear"}},
		"websites":       []any{map[string]any{"value": "https://vernon.example.com"}},
		"address":        map[string]any{"city": "Dallas", "state": "TX", "postalCode": "74206", "country": "US", "lines": []string{"123 West Main St", "Suite 123"}},
		"properties":     map[string]any{"plan": "Gold", "seats": 12, "renewal": "2027-01-31", "homepage": "https://vernon.example.com", "nickname": "Vern"},
	}
}

func definePlanProperties(w *world) {
	w.defineProperty("plan", "Plan", "dropdown", "Silver", "Gold")
	w.defineProperty("seats", "Seats", "number")
	w.defineProperty("renewal", "Renewal", "date")
	w.defineProperty("homepage", "Homepage", "url")
	w.defineProperty("nickname", "Nickname", "text")
}

// optionID finds the id of a dropdown option through the API.
func optionID(t *testing.T, w *world, slug, label string) int64 {
	t.Helper()
	for _, it := range field(t, decode(t, w.get("/v2/customer-properties")), "_embedded", "customer-properties").([]any) {
		m := it.(map[string]any)
		if m["slug"] != slug {
			continue
		}
		for _, o := range m["options"].([]any) {
			if o.(map[string]any)["label"] == label {
				return int64(o.(map[string]any)["id"].(float64))
			}
		}
	}
	t.Fatalf("no option %s of %s", label, slug)
	return 0
}

func TestCreateCustomer(t *testing.T) {
	w := newWorld(t)
	definePlanProperties(w)
	rec := w.call(ownerToken, http.MethodPost, "/v2/customers", fullCustomer())
	id := resourceID(t, rec)
	assert.Equal(t, fmt.Sprintf("https://api.parley.test/v2/customers/%d", id), rec.Header().Get("Location"))
	assert.Empty(t, rec.Body.String())
	goldenJSON(t, "customers/created_full", w.get(fmt.Sprintf("/v2/customers/%d", id)).Body.Bytes())

	t.Run("properties as an array of {slug, value}", func(t *testing.T) {
		silver := optionID(t, w, "plan", "Silver")
		id := w.newCustomer(map[string]any{"firstName": "Ann", "properties": []any{
			map[string]any{"slug": "plan", "value": fmt.Sprint(silver)}, map[string]any{"slug": "seats", "value": "-9223372036854775808"}}})
		props := map[string]any{}
		for _, p := range field(t, w.readCustomer(id), "_embedded", "properties").([]any) {
			m := p.(map[string]any)
			props[m["slug"].(string)] = m["text"]
		}
		assert.Equal(t, map[string]any{"plan": "Silver", "seats": "-9223372036854775808", "renewal": nil, "homepage": nil, "nickname": nil}, props)
	})
	t.Run("organization by name is matched case-insensitively", func(t *testing.T) {
		other := w.newCustomer(map[string]any{"organization": "ACME rockets"})
		first, second := w.readCustomer(id), w.readCustomer(other)
		assert.Equal(t, first["organizationId"], second["organizationId"])
		assert.Equal(t, "Acme Rockets", second["organization"], "the organization's name is returned")
	})
	t.Run("organizationId wins over organization", func(t *testing.T) {
		org := w.newOrganization(map[string]any{"name": "Initech"})
		cu := w.readCustomer(w.newCustomer(map[string]any{"organizationId": org, "organization": "Ignored Inc"}))
		assert.Equal(t, float64(org), cu["organizationId"])
		assert.Equal(t, "Initech", cu["organization"])
	})
	t.Run("an empty body creates an empty customer", func(t *testing.T) {
		cu := w.readCustomer(w.newCustomer(map[string]any{}))
		assert.Equal(t, "", cu["firstName"])
		assert.Equal(t, false, cu["draft"])
		assert.Equal(t, float64(0), cu["conversationCount"], "conversationCount of the request is ignored: it is derived")
	})
	t.Run("entry types default", func(t *testing.T) {
		cu := w.readCustomer(w.newCustomer(map[string]any{"emails": []any{map[string]any{"value": "nodefault@example.com"}},
			"chats": []any{map[string]any{"value": "handle"}}}))
		assert.Equal(t, []string{"work:nodefault@example.com"}, entryValues(t, cu, "emails"))
		assert.Equal(t, []string{"other:handle"}, entryValues(t, cu, "chats"))
	})
}

func TestCreateCustomerErrors(t *testing.T) {
	w := newWorld(t)
	definePlanProperties(w)
	w.newCustomer(map[string]any{"emails": []any{map[string]any{"type": "work", "value": "taken@example.com"}}})
	globexOrg := resourceID(t, w.call(globexToken, http.MethodPost, "/v2/organizations", map[string]any{"name": "Globex Org"}))
	email := func(v string) []any { return []any{map[string]any{"type": "work", "value": v}} }
	cases := []struct {
		name   string
		body   any
		status int
		want   []string // "path: code" of every error item
	}{
		{"firstName too long", map[string]any{"firstName": longText(41)}, 400, []string{"firstName: Size"}},
		{"firstName empty", map[string]any{"firstName": ""}, 400, []string{"firstName: Size"}},
		{"lastName too long", map[string]any{"lastName": longText(41)}, 400, []string{"lastName: Size"}},
		{"names at the limit", map[string]any{"firstName": longText(40), "lastName": "b"}, 201, nil},
		{"photoUrl too long", map[string]any{"photoUrl": longText(201)}, 400, []string{"photoUrl: Size"}},
		{"background too long", map[string]any{"background": longText(201)}, 400, []string{"background: Size"}},
		{"jobTitle too long", map[string]any{"jobTitle": longText(61)}, 400, []string{"jobTitle: Size"}},
		{"location too long", map[string]any{"location": longText(61)}, 400, []string{"location: Size"}},
		{"organization too long", map[string]any{"organization": longText(61)}, 400, []string{"organization: Size"}},
		{"gender", map[string]any{"gender": "robot"}, 400, []string{"gender: Value not supported"}},
		{"photoType", map[string]any{"photoType": "myspace"}, 400, []string{"photoType: Value not supported"}},
		{"e-mail not well-formed", map[string]any{"emails": email("nope@")}, 400, []string{"emails[0].value: Not well-formed email address"}},
		{"e-mail type", map[string]any{"emails": []any{map[string]any{"type": "office", "value": "a@example.com"}}}, 400, []string{"emails[0].type: Value not supported"}},
		{"e-mail listed twice", map[string]any{"emails": append(email("x@example.com"), email("X@example.com")...)}, 400, []string{"emails[1].value: Conflict"}},
		{"e-mail without value", map[string]any{"emails": []any{map[string]any{"type": "work"}}}, 400, []string{"emails[0].value: Null value"}},
		{"phone type", map[string]any{"phones": []any{map[string]any{"type": "cell", "value": "1"}}}, 400, []string{"phones[0].type: Value not supported"}},
		{"chat type", map[string]any{"chats": []any{map[string]any{"type": "irc", "value": "x"}}}, 400, []string{"chats[0].type: Value not supported"}},
		{"social profile type", map[string]any{"socialProfiles": []any{map[string]any{"type": "myspace", "value": "x"}}}, 400, []string{"socialProfiles[0].type: Value not supported"}},
		{"website with a type", map[string]any{"websites": []any{map[string]any{"type": "work", "value": "https://x.example"}}}, 400, []string{"websites[0].type: Value not supported"}},
		{"website not a URL", map[string]any{"websites": []any{map[string]any{"value": "not a url"}}}, 400, []string{"websites[0].value: Value not supported"}},
		{"address lines", map[string]any{"address": map[string]any{"lines": make([]string, 11)}}, 400, []string{"address.lines: Size"}},
		{"undefined property", map[string]any{"properties": map[string]any{"shoe": "42"}}, 400, []string{"properties.shoe: Value not supported"}},
		{"number property out of range", map[string]any{"properties": map[string]any{"seats": json.RawMessage("9223372036854775808")}}, 400, []string{"properties.seats: Invalid number"}},
		{"number property not an integer", map[string]any{"properties": []any{map[string]any{"slug": "seats", "value": "1.5"}}}, 400, []string{"properties[0]: Invalid number"}},
		{"text property too long", map[string]any{"properties": map[string]any{"nickname": longText(256)}}, 400, []string{"properties.nickname: Size"}},
		{"url property", map[string]any{"properties": map[string]any{"homepage": "example"}}, 400, []string{"properties.homepage: Value not supported"}},
		{"date property", map[string]any{"properties": map[string]any{"renewal": "31/01/2027"}}, 400, []string{"properties.renewal: Malformed date"}},
		{"dropdown property", map[string]any{"properties": map[string]any{"plan": "Platinum"}}, 400, []string{"properties.plan: Value not supported"}},
		{"property value an object", map[string]any{"properties": map[string]any{"plan": map[string]any{}}}, 400, []string{"properties.plan: Invalid JSON"}},
		{"unknown organizationId", map[string]any{"organizationId": 999}, 400, []string{"organizationId: Invalid identifier"}},
		{"another company's organizationId", map[string]any{"organizationId": globexOrg}, 400, []string{"organizationId: Invalid identifier"}},
		{"negative organizationId", map[string]any{"organizationId": -1}, 400, []string{"organizationId: Invalid identifier"}},
		{"e-mail used by another customer", map[string]any{"emails": email("TAKEN@example.com")}, 409, []string{"emails: Conflict"}},
		{"structure mismatch", map[string]any{"emails": "a@example.com"}, 400, []string{"emails: Invalid JSON"}},
		{"not JSON", `{"firstName":`, 400, []string{": Invalid JSON"}},
		{"several problems at once", map[string]any{"firstName": "", "gender": "x", "emails": email("bad")}, 400,
			[]string{"firstName: Size", "gender: Value not supported", "emails[0].value: Not well-formed email address"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := w.call(ownerToken, http.MethodPost, "/v2/customers", tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if tc.want != nil {
				assert.Equal(t, tc.want, errorSummary(t, rec))
				assert.Equal(t, "application/json;charset=UTF-8", rec.Header().Get("Content-Type"))
			}
		})
	}
	t.Run("golden error body", func(t *testing.T) {
		rec := w.call(ownerToken, http.MethodPost, "/v2/customers", map[string]any{"firstName": longText(41), "photoType": "myspace"})
		goldenError(t, "customers/create_errors", rec)
	})
	t.Run("media type", func(t *testing.T) {
		rec := w.do(request{method: http.MethodPost, path: "/v2/customers", token: ownerToken, body: "{}", contentType: "text/plain"})
		assert.Equal(t, "415 Invalid media type: Invalid media type (Content-Type must be application/json)", apiError(t, rec))
	})
}
