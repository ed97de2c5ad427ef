package parley_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

var customerNow = time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)

// TestCreateCustomer: Create Customer stores the fields, entries,
// properties and organization it was sent, keeps an import's id when free,
// and refuses undefined properties and unknown organizations.
func TestCreateCustomer(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	require.NoError(t, w.write(func(tx parley.Tx) error {
		_, err := parley.DefineProperty(tx, w.caller, &parley.PropertyDefInput{Slug: parley.Ptr("seats"), Name: parley.Ptr("Seats"), Type: parley.Ptr("number")}, ruleNow)
		return err
	}))
	create := func(body string, keep *parley.KeptCustomer) (*parley.Customer, error) {
		var r parley.NewCustomerRequest
		require.NoError(t, json.Unmarshal([]byte(body), &r))
		require.NoError(t, r.Validate())
		r.Keep = keep
		var c *parley.Customer
		err := w.write(func(tx parley.Tx) (err error) {
			c, err = parley.CreateCustomer(tx, company, &r, customerNow)
			return err
		})
		return c, err
	}
	stored := func(id int64) *parley.Customer {
		var c *parley.Customer
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			c, err = tx.Customer(company, id)
			return err
		}))
		return c
	}
	refused := []struct {
		name, body string
		path, code string
	}{
		{"an undefined property", `{"firstName":"Dee","properties":{"tier":"gold"}}`, "properties.tier", parley.CodeValueNotSupported},
		{"a property of the wrong type", `{"firstName":"Dee","properties":[{"slug":"seats","value":"many"}]}`, "properties[0]", parley.CodeInvalidNumber},
		{"an unknown organization", `{"firstName":"Dee","organizationId":999}`, "organizationId", parley.CodeInvalidID},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := w.events(t)
			_, err := create(tc.body, nil)
			assertRefused(t, err, parley.KindInvalid, tc.path, tc.code)
			assert.Equal(t, before, w.events(t), "nothing recorded")
		})
	}

	made, err := create(`{"firstName":" Dee ","lastName":"Lane","gender":"Female","organization":" Initech ",
		"emails":[{"type":"home","value":"Dee@Example.com"}],"phones":[{"value":"555-0100"}],"properties":{"seats":"12"}}`, nil)
	require.NoError(t, err)
	got := stored(made.ID)
	assert.Equal(t, "Dee", got.FirstName)
	assert.Equal(t, "Lane", got.LastName)
	assert.Equal(t, "female", got.Gender)
	assert.Equal(t, map[string]string{"seats": "12"}, got.Properties)
	assert.Equal(t, "Initech", got.Organization)
	assert.NotZero(t, got.OrganizationID, "the organization is created by name")
	require.Len(t, got.Emails, 1)
	assert.Equal(t, []string{"dee@example.com", "home"}, []string{got.Emails[0].Value, got.Emails[0].Type})
	require.Len(t, got.Phones, 1)
	assert.Equal(t, []string{"555-0100", "work"}, []string{got.Phones[0].Value, got.Phones[0].Type})
	assert.Equal(t, customerNow, got.CreatedAt)
	assert.Equal(t, []string{parley.EventOrganizationCreated, parley.EventCustomerCreated}, w.events(t))

	second, err := create(`{"firstName":"Eve","organization":"initech"}`, nil)
	require.NoError(t, err)
	assert.Equal(t, got.OrganizationID, stored(second.ID).OrganizationID, "an organization of that name is reused")

	imported := time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC)
	kept, err := create(`{"firstName":"Fay"}`, &parley.KeptCustomer{ID: 7000, CreatedAt: imported})
	require.NoError(t, err)
	assert.Equal(t, int64(7000), kept.ID, "an import keeps a free id")
	assert.Equal(t, imported, stored(7000).CreatedAt)
	moved, err := create(`{"firstName":"Gia"}`, &parley.KeptCustomer{ID: w.customer})
	require.NoError(t, err)
	assert.NotEqual(t, w.customer, moved.ID, "a taken id is not reused")
	assert.Equal(t, "Cara", stored(w.customer).FirstName, "the customer holding it is untouched")
}
