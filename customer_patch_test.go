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

func TestPatchCustomer(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	patch := func(ops string) error {
		parsed, err := parley.ParsePatch([]byte(ops))
		if err != nil {
			return err
		}
		return w.write(func(tx parley.Tx) error { return parley.PatchCustomer(tx, company, w.customer, parsed, ruleNow) })
	}
	refused := []struct {
		name, ops, path, code string
	}{
		{"an unknown op", `{"op":"copy","path":"/firstName","value":"x"}`, "[0].op", parley.CodePatchOperation},
		{"an empty first name", `{"op":"replace","path":"/firstName","value":" "}`, "[0].value", parley.CodeSize},
		{"too long a job title", `{"op":"replace","path":"/jobTitle","value":"` + strings.Repeat("j", parley.MaxShortTextLength+1) + `"}`, "[0].value", parley.CodeSize},
		{"a gender outside the set", `{"op":"replace","path":"/gender","value":"robot"}`, "[0].value", parley.CodeValueNotSupported},
		{"a number where text goes", `{"op":"replace","path":"/firstName","value":7}`, "[0].value", parley.CodeInvalidJSON},
		{"add on organizationId", `{"op":"add","path":"/organizationId","value":1}`, "[0].op", parley.CodePatchOperation},
		{"an organization that does not exist", `{"op":"replace","path":"/organizationId","value":999}`, "[0].value", parley.CodeInvalidID},
		{"an entry by a bad id", `{"op":"remove","path":"/emails/x"}`, "[0].path", parley.CodeInvalidID},
		{"an unknown path", `{"op":"replace","path":"/shoeSize","value":"44"}`, "[0].path", parley.CodePatchOperation},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := patch(tt.ops)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	before := w.customerRecord(t)
	err := patch(`[{"op":"replace","path":"/lastName","value":"Lind"},{"op":"replace","path":"/gender","value":"robot"}]`)
	require.Error(t, err)
	assert.Equal(t, before.LastName, w.customerRecord(t).LastName, "all or none: nothing of a refused patch is written")

	require.NoError(t, patch(`[{"op":"replace","path":"/lastName","value":" Lind "},{"op":"add","path":"/gender","value":"Female"},
		{"op":"replace","path":"/address/city","value":"Oslo"},{"op":"add","path":"/phones","value":{"value":"555","type":"mobile"}},
		{"op":"replace","path":"/organization","value":"Initech"}]`))
	c := w.customerRecord(t)
	assert.Equal(t, []string{"Lind", "female", "Oslo", "Initech"}, []string{c.LastName, c.Gender, c.Address.City, c.Organization})
	require.Len(t, c.Phones, 1)
	assert.Equal(t, []string{"555", "mobile"}, []string{c.Phones[0].Value, c.Phones[0].Type})
	assert.NotZero(t, c.OrganizationID, "a name links an organization, created when new")
	require.NoError(t, patch(`[{"op":"remove","path":"/gender"},{"op":"remove","path":"/organizationId"}]`))
	c = w.customerRecord(t)
	assert.Equal(t, []any{"", int64(0), ""}, []any{c.Gender, c.OrganizationID, c.Organization})
}

func TestDeleteCustomer(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	var convs []int64
	for range 2 {
		id, err := w.create(t, 1, "customer", "active")
		require.NoError(t, err)
		convs = append(convs, id)
	}
	later := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteCustomer(tx, company, w.customer, later) }))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Customer(company, w.customer)
		assert.True(t, parley.IsNotFound(err), "the customer is gone")
		for _, id := range convs {
			c, err := tx.Conversation(company, id)
			require.NoError(t, err)
			assert.Equal(t, []any{parley.StateDeleted, later}, []any{c.State, c.ModifiedAt}, "and its conversations with it")
		}
		return nil
	}))
	kinds := w.events(t)
	assert.Contains(t, kinds, parley.EventCustomerDeleted)
	assert.Contains(t, kinds, parley.EventConvoDeleted)
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.DeleteCustomer(tx, company, w.customer, later) })))
}

// TestDeleteCustomerWithManyConversations: past MaxDeletableConversations
// the delete is refused and nothing changes.
func TestDeleteCustomerWithManyConversations(t *testing.T) {
	w := newWorld(t)
	company := w.caller.Company.ID
	require.NoError(t, w.write(func(tx parley.Tx) error {
		for i := range parley.MaxDeletableConversations + 1 {
			c := &parley.Conversation{CompanyID: company, MailboxID: w.mailbox, CustomerID: w.customer, Number: int64(i + 1),
				Subject: "old", Status: parley.StatusClosed, State: parley.StatePublished, Type: "email", CreatedAt: ruleNow, ModifiedAt: ruleNow}
			if err := tx.PutConversation(c); err != nil {
				return err
			}
		}
		return nil
	}))
	err := w.write(func(tx parley.Tx) error { return parley.DeleteCustomer(tx, company, w.customer, ruleNow) })
	assert.Equal(t, parley.CodeRejectedRequest, code(t, err))
	assert.NotNil(t, w.customerRecord(t), "the customer stays")
}
