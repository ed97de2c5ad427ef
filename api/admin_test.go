package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

const operatorToken = "op-secret"

func withOperator(c *api.Config) { c.AdminToken = operatorToken }

// TestAdminAPI drives every admin route: the answers and the error bodies
// are golden (testdata/admin/).
func TestAdminAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path, token, body string
		status                          int
	}{
		{"company_no_token", http.MethodPost, "/admin/companies", "", `{"name":"Initech","owner":{"email":"bill@initech.test"}}`, 401},
		{"company_owner_token", http.MethodPost, "/admin/companies", ownerToken, `{"name":"Initech","owner":{"email":"bill@initech.test"}}`, 401},
		{"company_invalid", http.MethodPost, "/admin/companies", operatorToken,
			`{"name":"","plan":"gold","owner":{"email":"bill","password":"short"},"mailbox":{"email":"x"}}`, 400},
		{"company_owner_taken", http.MethodPost, "/admin/companies", operatorToken, `{"name":"Acme 2","owner":{"email":"olivia@acme.test"}}`, 409},
		{"company_null", http.MethodPost, "/admin/companies", operatorToken, `null`, 400},
		{"company_name_taken", http.MethodPost, "/admin/companies", operatorToken, `{"name":"ACME","owner":{"email":"bill@initech.test"}}`, 409},
		{"company_mailbox_address_taken", http.MethodPost, "/admin/companies", operatorToken,
			`{"name":"Initech","owner":{"email":"bill@initech.test"},"mailbox":{"email":"Help@Globex.test"}}`, 409},
		{"company_owner_address_taken_by_a_mailbox", http.MethodPost, "/admin/companies", operatorToken,
			`{"name":"Initech","owner":{"email":"support@acme.test"}}`, 409},
		{"company_created", http.MethodPost, "/admin/companies", operatorToken,
			`{"name":"Initech","plan":"plus","owner":{"email":"bill@initech.test","firstName":"Bill","lastName":"Lumbergh","password":"tps-reports-2026"},"mailbox":{"name":"Help","email":"help@initech.test"},"appName":"Sync"}`, 201},
		{"mailbox_created", http.MethodPost, "/admin/companies/1/mailboxes", operatorToken, `{"name":"Returns","email":"returns@acme.test"}`, 201},
		{"mailbox_name_taken", http.MethodPost, "/admin/companies/1/mailboxes", operatorToken, `{"name":"support","email":"s2@acme.test"}`, 409},
		{"mailbox_address_of_another_company", http.MethodPost, "/admin/companies/1/mailboxes", operatorToken, `{"name":"Help","email":"help@globex.test"}`, 409},
		{"mailbox_readdressed_to_another_company", http.MethodPatch, "/admin/companies/1/mailboxes/2", operatorToken, `{"email":"HELP@globex.test"}`, 409},
		{"mailbox_invalid", http.MethodPost, "/admin/companies/1/mailboxes", operatorToken, `{"name":"` + strings.Repeat("x", 101) + `"}`, 400},
		{"mailbox_unknown_company", http.MethodPost, "/admin/companies/99/mailboxes", operatorToken, `{"name":"X","email":"x@acme.test"}`, 404},
		{"mailbox_renamed", http.MethodPatch, "/admin/companies/1/mailboxes/2", operatorToken, `{"name":"Accounts"}`, 200},
		{"mailbox_other_company", http.MethodPatch, "/admin/companies/1/mailboxes/3", operatorToken, `{"name":"Mine now"}`, 404},
		{"mailbox_rename_taken", http.MethodPatch, "/admin/companies/1/mailboxes/2", operatorToken, `{"name":"SUPPORT"}`, 409},
		{"field_created", http.MethodPost, "/admin/companies/1/mailboxes/1/fields", operatorToken,
			`{"name":"Region","type":"dropdown","required":true,"options":["EMEA","Americas","APAC"]}`, 201},
		{"field_invalid", http.MethodPost, "/admin/companies/1/mailboxes/1/fields", operatorToken,
			`{"name":"Notes","type":"text","options":["a","a"]}`, 400},
		{"field_dropdown_without_options", http.MethodPost, "/admin/companies/1/mailboxes/1/fields", operatorToken, `{"name":"Tier","type":"dropdown"}`, 400},
		{"field_name_taken", http.MethodPost, "/admin/companies/1/mailboxes/1/fields", operatorToken, `{"name":"priority","type":"number"}`, 409},
		{"widget_created", http.MethodPost, "/admin/companies/1/mailboxes/2/widgets", operatorToken, `{"id":"acme-billing-chat"}`, 201},
		{"widget_taken", http.MethodPost, "/admin/companies/1/mailboxes/2/widgets", operatorToken, `{"id":"globex-widget"}`, 409},
		{"widget_invalid", http.MethodPost, "/admin/companies/1/mailboxes/2/widgets", operatorToken, `{"id":"no spaces!"}`, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, withOperator)
			rec := w.do(request{method: tc.method, path: tc.path, token: tc.token, body: tc.body})
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			if rec.Code >= 400 {
				goldenError(t, "admin/"+tc.name, rec)
				return
			}
			body := decode(t, rec)
			if app, ok := body["app"].(map[string]any); ok { // random: checked, then masked
				assert.Len(t, app["clientId"], 32)
				assert.Len(t, app["clientSecret"], 48)
				app["clientId"], app["clientSecret"] = "<clientId>", "<clientSecret>"
				assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
			}
			if rec.Code == http.StatusCreated {
				assert.Equal(t, fmt.Sprint(body["id"]), rec.Header().Get("Resource-ID"))
			}
			b, err := json.Marshal(body)
			require.NoError(t, err)
			goldenJSON(t, "admin/"+tc.name, b)
		})
	}
}

// TestAdminCreatedCompanyWorks: a company made through the admin API signs
// in with its printed credentials, sees only its own mailbox, and its new
// widget and field are live.
func TestAdminCreatedCompanyWorks(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withOperator)
	rec := w.do(request{method: http.MethodPost, path: "/admin/companies", token: operatorToken,
		body: `{"name":"Initech","owner":{"email":"bill@initech.test"}}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	created := decode(t, rec)
	owner, app := created["owner"].(map[string]any), created["app"].(map[string]any)
	assert.Len(t, owner["password"], 20, "a generated password is shown once")
	mailbox := created["mailbox"].(map[string]any)
	assert.Equal(t, "Support", mailbox["name"])
	assert.Equal(t, "bill@initech.test", mailbox["email"])

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {app["clientId"].(string)}, "client_secret": {app["clientSecret"].(string)}}
	rec = w.do(request{method: http.MethodPost, path: "/v2/oauth2/token", body: form.Encode(), contentType: "application/x-www-form-urlencoded"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	token := decode(t, rec)["access_token"].(string)

	id := int64(mailbox["id"].(float64))
	rec = w.do(request{method: http.MethodPost, path: fmt.Sprintf("/admin/companies/%v/mailboxes/%d/fields", created["id"], id), token: operatorToken,
		body: `{"name":"Order","type":"number"}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	rec = w.do(request{method: http.MethodGet, path: "/v2/mailboxes", token: token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	list := decode(t, rec)["_embedded"].(map[string]any)["mailboxes"].([]any)
	require.Len(t, list, 1, "the new company sees its own mailbox alone")
	rec = w.do(request{method: http.MethodGet, path: fmt.Sprintf("/v2/mailboxes/%d/fields", id), token: token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"name":"Order"`)
	rec = w.do(request{method: http.MethodGet, path: fmt.Sprintf("/v2/mailboxes/%d/folders", id), token: token})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Len(t, decode(t, rec)["_embedded"].(map[string]any)["folders"], 5, "the system folders")

	rec = w.do(request{method: http.MethodPost, path: fmt.Sprintf("/admin/companies/%v/mailboxes/%d/widgets", created["id"], id), token: operatorToken, body: `{}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	widget := decode(t, rec)["id"].(string)
	rec = w.do(request{method: http.MethodPost, path: "/v2/widgets/" + widget + "/chats",
		body: `{"name":"Milton","email":"milton@initech.test"}`})
	assert.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
}
