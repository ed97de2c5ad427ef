package parley_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestOrganizationValidation(t *testing.T) {
	name := parley.Ptr("Initech")
	tests := []struct {
		name string
		in   parley.OrganizationInput
		path string
		code string
	}{
		{"no name", parley.OrganizationInput{}, "name", parley.CodeNullValue},
		{"too long a name", parley.OrganizationInput{Name: parley.Ptr(strings.Repeat("n", parley.MaxOrganizationNameLength+1))}, "name", parley.CodeSize},
		{"a website that is no URL", parley.OrganizationInput{Name: name, Website: parley.Ptr("initech")}, "website", parley.CodeValueNotSupported},
		{"a logo that is no URL", parley.OrganizationInput{Name: name, LogoURL: parley.Ptr("javascript:x")}, "logoUrl", parley.CodeValueNotSupported},
		{"a brand colour that is no colour", parley.OrganizationInput{Name: name, BrandColor: parley.Nullable[string]{Set: true, Value: "blue"}}, "brandColor", parley.CodeValueNotSupported},
		{"a domain that is no domain", parley.OrganizationInput{Name: name, Domains: []string{"not a domain"}}, "domains[0]", parley.CodeValueNotSupported},
		{"a domain twice", parley.OrganizationInput{Name: name, Domains: []string{"initech.test", "Initech.TEST."}}, "domains[1]", parley.CodeConflict},
		{"an empty phone", parley.OrganizationInput{Name: name, Phones: []string{" "}}, "phones[0]", parley.CodeEmptyValue},
		{"too many phones", parley.OrganizationInput{Name: name, Phones: make([]string, parley.MaxOrganizationListLength+1)}, "phones", parley.CodeSize},
		{"too long a note", parley.OrganizationInput{Name: name, Note: parley.Ptr(strings.Repeat("x", parley.MaxOrganizationTextLength+1))}, "note", parley.CodeSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Validate(true)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, tt.path, e.Errors[0].Path)
			assert.Equal(t, tt.code, e.Errors[0].Code)
		})
	}
	assert.NoError(t, (&parley.OrganizationInput{Name: name, LogoURL: parley.Ptr("javascript:x")}).Validate(false), "an update does not read logoUrl")
}

func TestOrganizationLifecycle(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	var org *parley.Organization
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		org, err = parley.CreateOrganization(tx, company, &parley.OrganizationInput{Name: parley.Ptr(" Initech "),
			Website: parley.Ptr("https://initech.test"), LogoURL: parley.Ptr("https://initech.test/logo.png"),
			BrandColor: parley.Nullable[string]{Set: true, Value: "#123456"}, Domains: []string{"Initech.TEST"}, Phones: []string{" 555 "}}, ruleNow)
		return err
	}))
	assert.Equal(t, "Initech", org.Name)
	assert.Equal(t, []string{"initech.test"}, org.Domains)
	assert.Equal(t, []string{"555"}, org.Phones)

	// A customer linked by id takes the organization's name; by a new
	// name, a new organization; by an empty name, none.
	customer := func() *parley.Customer {
		var c *parley.Customer
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			c, err = tx.Customer(company, w.customer)
			return err
		}))
		return c
	}
	link := func(id *int64, name *string) error {
		return w.write(func(tx parley.Tx) error {
			c, err := tx.Customer(company, w.customer)
			if err != nil {
				return err
			}
			if err := parley.LinkOrganization(tx, c, id, name, "organizationId", ruleNow); err != nil {
				return err
			}
			return tx.PutCustomer(c)
		})
	}
	assert.Equal(t, parley.CodeInvalidID, code(t, link(parley.Ptr(org.ID+1000), nil)))
	require.NoError(t, link(&org.ID, nil))
	assert.Equal(t, []any{org.ID, "Initech"}, []any{customer().OrganizationID, customer().Organization})
	require.NoError(t, link(nil, parley.Ptr("initech")), "a name matches case-insensitively")
	assert.Equal(t, org.ID, customer().OrganizationID)
	require.NoError(t, link(nil, parley.Ptr("Globex")))
	assert.NotEqual(t, org.ID, customer().OrganizationID, "an unknown name creates one")
	assert.Equal(t, "Globex", customer().Organization)
	require.NoError(t, link(nil, parley.Ptr(" ")))
	assert.Equal(t, []any{int64(0), ""}, []any{customer().OrganizationID, customer().Organization})
	require.NoError(t, link(&org.ID, nil))

	// Update replaces every field but the logo.
	later := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.ReplaceOrganization(tx, company, org.ID, &parley.OrganizationInput{Name: parley.Ptr("Initech Corp")}, later)
	}))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		o, err := tx.Organization(company, org.ID)
		require.NoError(t, err)
		assert.Equal(t, "Initech Corp", o.Name)
		assert.Empty(t, o.Website, "a field left out is emptied")
		assert.Empty(t, o.Domains)
		assert.Nil(t, o.BrandColor)
		assert.Equal(t, "https://initech.test/logo.png", o.LogoURL, "the logo stays")
		assert.Equal(t, later, o.UpdatedAt)
		return nil
	}))
	err := w.write(func(tx parley.Tx) error {
		return parley.ReplaceOrganization(tx, company, org.ID+1000, &parley.OrganizationInput{Name: parley.Ptr("x")}, later)
	})
	assert.True(t, parley.IsNotFound(err))

	// Unlinking clears the organization from its customers; removing it
	// does the same (every backend's DeleteOrganization calls it).
	require.NoError(t, w.write(func(tx parley.Tx) error {
		o, err := tx.Organization(company, org.ID)
		if err != nil {
			return err
		}
		return parley.UnlinkOrganizationCustomers(tx, o, later)
	}))
	assert.Equal(t, int64(0), customer().OrganizationID)
	require.NoError(t, link(&org.ID, nil))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.RemoveOrganization(tx, company, org.ID, later) }))
	assert.Equal(t, []any{int64(0), ""}, []any{customer().OrganizationID, customer().Organization})
	assert.Equal(t, later, customer().UpdatedAt, "the customer changed, so it is reindexed")
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.RemoveOrganization(tx, company, org.ID, later) })))
	kinds := w.events(t)
	for _, k := range []string{parley.EventOrganizationCreated, parley.EventOrganizationUpdated, parley.EventOrganizationDeleted} {
		assert.Contains(t, kinds, k)
	}
}
