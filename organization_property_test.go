package parley_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestOrganizationProperties(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	plain := w.plainUser(t)
	var org *parley.Organization
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		org, err = parley.CreateOrganization(tx, company, &parley.OrganizationInput{Name: parley.Ptr("Initech")}, ruleNow)
		return err
	}))
	define := func(caller parley.Caller, in parley.PropertyDefInput) error {
		return w.write(func(tx parley.Tx) error {
			_, err := parley.DefineOrganizationProperty(tx, caller, &in, ruleNow)
			return err
		})
	}
	tier := parley.PropertyDefInput{Slug: parley.Ptr("tier"), Name: parley.Ptr("Tier"), Type: parley.Ptr("dropdown"), Options: parley.OptionsInput{"Gold", "Silver"}}
	assert.Equal(t, parley.KindForbidden, parley.KindOf(define(plain, tier)))
	require.NoError(t, define(w.caller, tier))
	require.NoError(t, define(w.caller, parley.PropertyDefInput{Slug: parley.Ptr("revenue"), Name: parley.Ptr("Revenue"), Type: parley.Ptr("number")}))

	set := func(slug, raw string) error {
		return w.write(func(tx parley.Tx) error {
			return parley.SetOrganizationProperty(tx, company, org.ID, slug, &parley.PropertyValueInput{Value: json.RawMessage(raw)}, ruleNow)
		})
	}
	values := func() map[string]string {
		var o *parley.Organization
		require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
			o, err = tx.Organization(company, org.ID)
			return err
		}))
		return o.Properties
	}
	assert.Equal(t, parley.CodeNullValue, code(t, set("tier", `null`)))
	assert.Equal(t, parley.CodeInvalidJSON, code(t, set("tier", `["Gold"]`)))
	assert.Equal(t, parley.CodeValueNotSupported, code(t, set("tier", `"Bronze"`)), "not an option")
	assert.Equal(t, parley.CodeInvalidNumber, code(t, set("revenue", `"lots"`)))
	assert.True(t, parley.IsNotFound(set("colour", `"red"`)), "an undefined property")
	require.NoError(t, set("tier", `"gold"`), "an option by its label, any case")
	require.NoError(t, set("revenue", `1200000`), "a number as its text")
	require.Len(t, values(), 2)
	assert.Equal(t, "1200000", values()["revenue"])

	// Revising a dropdown drops the values of the options that went.
	revise := func(caller parley.Caller, in parley.PropertyDefInput) error {
		return w.write(func(tx parley.Tx) error { return parley.ReviseOrganizationProperty(tx, caller, "tier", &in, ruleNow) })
	}
	assert.Equal(t, parley.KindForbidden, parley.KindOf(revise(plain, parley.PropertyDefInput{Name: parley.Ptr("Level")})))
	require.NoError(t, revise(w.caller, parley.PropertyDefInput{Name: parley.Ptr("Level")}), "a rename keeps the options")
	assert.Contains(t, values(), "tier")
	require.NoError(t, revise(w.caller, parley.PropertyDefInput{Name: parley.Ptr("Level"), Options: parley.OptionsInput{"Silver", "Bronze"}}))
	assert.NotContains(t, values(), "tier", "Gold went, and its value with it")

	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.RemoveOrganizationProperty(tx, company, org.ID, "revenue", ruleNow)
	}))
	assert.Empty(t, values())
	assert.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.RemoveOrganizationProperty(tx, company, org.ID, "revenue", ruleNow)
	}), "clearing an unset value")

	require.NoError(t, set("revenue", `5`))
	err := w.write(func(tx parley.Tx) error { return parley.DeleteOrganizationProperty(tx, plain, "revenue", ruleNow) })
	assert.Equal(t, parley.KindForbidden, parley.KindOf(err))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteOrganizationProperty(tx, w.caller, "revenue", ruleNow) }))
	assert.Empty(t, values(), "the definition's values go with it")
	assert.True(t, parley.IsNotFound(set("revenue", `5`)))
}

// TestFindOrganizationPropertyDef: a definition is found by its exact slug
// among the company's organization properties, never among its customer
// properties or another company's.
func TestFindOrganizationPropertyDef(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	other := w.otherCompany(t)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		for _, slug := range []string{"tier", "revenue"} {
			if _, err := parley.DefineOrganizationProperty(tx, w.caller, &parley.PropertyDefInput{Slug: parley.Ptr(slug), Name: parley.Ptr(slug), Type: parley.Ptr("text")}, ruleNow); err != nil {
				return err
			}
		}
		_, err := parley.DefineProperty(tx, w.caller, &parley.PropertyDefInput{Slug: parley.Ptr("seats"), Name: parley.Ptr("Seats"), Type: parley.Ptr("number")}, ruleNow)
		return err
	}))
	cases := []struct {
		name    string
		company int64
		slug    string
		found   bool
	}{
		{"the first", company, "tier", true},
		{"the second", company, "revenue", true},
		{"another case", company, "Tier", false},
		{"a customer property's slug", company, "seats", false},
		{"another company's", other.ID, "tier", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var def *parley.PropertyDef
			err := w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				def, err = parley.FindOrganizationPropertyDef(tx, tc.company, tc.slug)
				return err
			})
			if !tc.found {
				assertRefused(t, err, parley.KindNotFound, "", parley.CodeNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, &parley.PropertyDef{ID: def.ID, CompanyID: company, Slug: tc.slug, Name: tc.slug, Type: "text", CreatedAt: ruleNow}, def)
		})
	}
}
