package parley_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

func TestCustomerProperties(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	plain := w.plainUser(t)
	define := func(caller parley.Caller, slug, typ string) error {
		return w.write(func(tx parley.Tx) error {
			_, err := parley.DefineProperty(tx, caller, &parley.PropertyDefInput{Slug: parley.Ptr(slug), Name: parley.Ptr(slug), Type: parley.Ptr(typ)}, ruleNow)
			return err
		})
	}
	assert.Equal(t, parley.KindForbidden, parley.KindOf(define(plain, "seats", "number")), "a plain user may not define properties")
	require.NoError(t, define(w.caller, "seats", "number"))
	require.NoError(t, define(w.caller, "website", "url"))

	patch := func(ops string) error {
		parsed, err := parley.ParsePatch([]byte(ops))
		if err != nil {
			return err
		}
		return w.write(func(tx parley.Tx) error { return parley.PatchProperties(tx, company, w.customer, parsed, ruleNow) })
	}
	refused := []struct {
		name, ops, path, code string
	}{
		{"no operation", `[]`, "", parley.CodeEmptyValue},
		{"an unknown op", `[{"op":"move","path":"/seats","value":1}]`, "[0].op", parley.CodePatchOperation},
		{"a path that is no slug", `[{"op":"add","path":"seats","value":1}]`, "[0].path", parley.CodePatchOperation},
		{"add without a value", `[{"op":"add","path":"/seats","value":null}]`, "[0].value", parley.CodeNullValue},
		{"an undefined property", `[{"op":"add","path":"/colour","value":"red"}]`, "[0].value", parley.CodeValueNotSupported},
		{"a value of the wrong type", `[{"op":"add","path":"/seats","value":"many"}]`, "[0].value", parley.CodeInvalidNumber},
		{"neither string, number nor null", `[{"op":"add","path":"/seats","value":[1]}]`, "[0].value", parley.CodeInvalidJSON},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := patch(tt.ops)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	require.NoError(t, patch(`[{"op":"add","path":"/seats","value":12},{"op":"replace","path":"/website","value":"https://cara.example"}]`))
	assert.Equal(t, map[string]string{"seats": "12", "website": "https://cara.example"}, w.customerRecord(t).Properties)
	require.NoError(t, patch(`[{"op":"remove","path":"/website"}]`))
	assert.Equal(t, map[string]string{"seats": "12"}, w.customerRecord(t).Properties)

	// ApplyProperties reports every problem at once and changes nothing
	// it refuses.
	c := &parley.Customer{Properties: map[string]string{"seats": "3"}}
	var defs []parley.PropertyDef
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		defs, err = tx.PropertyDefs(company)
		return err
	}))
	err := parley.ApplyProperties(c, defs, parley.PropertyValues{
		{Slug: "seats", Value: parley.Ptr("x"), Path: "properties.seats"},
		{Slug: "nope", Value: parley.Ptr("1"), Path: "properties.nope"},
	})
	require.Error(t, err)
	assert.Len(t, err.(*parley.Error).Errors, 2)
	assert.Equal(t, map[string]string{"seats": "3"}, c.Properties)
	require.NoError(t, parley.ApplyProperties(c, defs, parley.PropertyValues{{Slug: "seats", Path: "properties.seats"}}))
	assert.Nil(t, c.Properties, "null removes, and no property left is none")

	// Deleting a definition takes every customer's value with it.
	err = w.write(func(tx parley.Tx) error { return parley.DeleteProperty(tx, plain, "seats") })
	assert.Equal(t, parley.KindForbidden, parley.KindOf(err))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteProperty(tx, w.caller, "seats") }))
	assert.Nil(t, w.customerRecord(t).Properties)
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.DeleteProperty(tx, w.caller, "seats") })))
	require.NoError(t, define(w.caller, "seats", "text"), "the slug is free again")
}
