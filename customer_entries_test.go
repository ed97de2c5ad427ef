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

func (w *world) customerRecord(t *testing.T) *parley.Customer {
	t.Helper()
	var c *parley.Customer
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
		c, err = tx.Customer(w.caller.Company.ID, w.customer)
		return err
	}))
	return c
}

func TestCustomerEntries(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	add := func(k parley.EntryKind, value, typ *string) (*parley.Entry, error) {
		var e *parley.Entry
		err := w.write(func(tx parley.Tx) (err error) {
			e, err = parley.AddEntry(tx, company, w.customer, k, &parley.EntryInput{Value: value, Type: typ}, ruleNow)
			return err
		})
		return e, err
	}
	refused := []struct {
		name        string
		kind        parley.EntryKind
		value, typ  *string
		path, wants string
	}{
		{"no value", parley.PhoneEntries, nil, nil, "value", parley.CodeNullValue},
		{"an empty value", parley.PhoneEntries, parley.Ptr(" "), nil, "value", parley.CodeEmptyValue},
		{"too long a value", parley.PhoneEntries, parley.Ptr(strings.Repeat("5", parley.MaxEntryValueLength+1)), nil, "value", parley.CodeSize},
		{"an e-mail that is not one", parley.EmailEntries, parley.Ptr("cara at example"), nil, "value", parley.CodeEmail},
		{"a website that is no URL", parley.WebsiteEntries, parley.Ptr("example.com"), nil, "value", parley.CodeValueNotSupported},
		{"a type the kind lacks", parley.PhoneEntries, parley.Ptr("555"), parley.Ptr("carrier-pigeon"), "type", parley.CodeValueNotSupported},
		{"a website has no type", parley.WebsiteEntries, parley.Ptr("https://example.com"), parley.Ptr("work"), "type", parley.CodeValueNotSupported},
		{"an e-mail the customer has", parley.EmailEntries, parley.Ptr(" CARA@example.com "), nil, "value", parley.CodeConflict},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := add(tt.kind, tt.value, tt.typ)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.wants}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	_, err := add(parley.PhoneEntries, parley.Ptr("555"), nil)
	require.NoError(t, err)

	email, err := add(parley.EmailEntries, parley.Ptr(" Cara.Work@Example.COM "), parley.Ptr("HOME"))
	require.NoError(t, err)
	assert.Equal(t, []string{"cara.work@example.com", "home"}, []string{email.Value, email.Type}, "normalized")
	assert.NotZero(t, email.ID)
	phone := w.customerRecord(t).Phones[0]
	assert.Equal(t, []string{"555", "work"}, []string{phone.Value, phone.Type}, "a phone without a type is a work phone")

	later := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.ReplaceEntry(tx, company, w.customer, parley.EmailEntries, email.ID, &parley.EntryInput{Value: parley.Ptr("cara@work.example")}, later)
	}))
	c := w.customerRecord(t)
	assert.Equal(t, parley.Entry{ID: email.ID, Value: "cara@work.example", Type: "work"}, c.Emails[1], "replaced, the type back to the default")
	assert.Equal(t, later, c.UpdatedAt)
	err = w.write(func(tx parley.Tx) error {
		return parley.ReplaceEntry(tx, company, w.customer, parley.EmailEntries, email.ID+1000, &parley.EntryInput{Value: parley.Ptr("x@y.example")}, later)
	})
	assert.True(t, parley.IsNotFound(err), "an unknown entry")

	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.RemoveEntry(tx, company, w.customer, parley.EmailEntries, email.ID, later)
	}))
	assert.Len(t, w.customerRecord(t).Emails, 1)
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error {
		return parley.RemoveEntry(tx, company, w.customer, parley.EmailEntries, email.ID, later)
	})), "removing twice")
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error {
		return parley.RemoveEntry(tx, company, w.customer+1000, parley.PhoneEntries, phone.ID, later)
	})), "an unknown customer")
}

func TestCustomerAddress(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	in := &parley.AddressInput{City: parley.Ptr(" Lyon "), Country: parley.Ptr("FR"), Lines: []string{"1 rue de la Paix"}}
	create := func(in *parley.AddressInput) error {
		return w.write(func(tx parley.Tx) error { return parley.CreateAddress(tx, company, w.customer, in, ruleNow) })
	}
	assert.Equal(t, parley.CodeSize, code(t, create(&parley.AddressInput{City: parley.Ptr(strings.Repeat("c", parley.MaxAddressFieldLength+1))})))
	assert.Equal(t, parley.CodeSize, code(t, create(&parley.AddressInput{Lines: make([]string, parley.MaxAddressLines+1)})))
	require.NoError(t, create(in))
	a := w.customerRecord(t).Address
	require.NotNil(t, a)
	assert.Equal(t, parley.Address{City: "Lyon", Country: "FR", Lines: []string{"1 rue de la Paix"}}, *a)
	assert.Equal(t, parley.KindConflict, parley.KindOf(create(in)), "a create never overwrites")

	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.SetAddress(tx, company, w.customer, &parley.AddressInput{City: parley.Ptr("Paris")}, ruleNow)
	}))
	assert.Equal(t, parley.Address{City: "Paris"}, *w.customerRecord(t).Address, "PUT replaces the whole address")

	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.RemoveAddress(tx, company, w.customer, ruleNow) }))
	assert.Nil(t, w.customerRecord(t).Address)
	assert.NoError(t, w.write(func(tx parley.Tx) error { return parley.RemoveAddress(tx, company, w.customer, ruleNow) }), "none is not an error")
	require.NoError(t, create(in), "and it can be created again")
}
