package parley_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// addField adds a custom field to the world's first mailbox.
func (w *world) addField(t *testing.T, req parley.NewField) (parley.FieldDef, error) {
	t.Helper()
	var f parley.FieldDef
	err := w.write(func(tx parley.Tx) (err error) {
		_, f, err = parley.AddField(tx, w.caller.Company.ID, w.mailbox, req, ruleNow)
		return err
	})
	return f, err
}

func TestAddField(t *testing.T) {
	w := newWorld(t)
	refused := []struct {
		name string
		req  parley.NewField
		code string
	}{
		{"no name", parley.NewField{Type: parley.Ptr("number")}, parley.CodeNullValue},
		{"no type", parley.NewField{Name: parley.Ptr("Plan")}, parley.CodeNullValue},
		{"an unknown type", parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("colour")}, parley.CodeEnumValue},
		{"a dropdown without options", parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("dropdown")}, parley.CodeEmptyValue},
		{"options on a number", parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("number"), Options: []string{"1"}}, parley.CodeValueNotSupported},
		{"an option twice", parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("dropdown"), Options: []string{"Gold", "gold"}}, parley.CodeValueNotSupported},
		{"too many options", parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("dropdown"), Options: make([]string, parley.MaxFieldOptions+1)}, parley.CodeSize},
	}
	for _, tt := range refused {
		_, err := w.addField(t, tt.req)
		assert.Equal(t, tt.code, code(t, err), tt.name)
	}
	plan, err := w.addField(t, parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("dropdown"), Options: []string{"Gold", "Silver"}, Required: true})
	require.NoError(t, err)
	assert.Equal(t, []any{"Plan", parley.FieldDropdown, true, 1, 2}, []any{plan.Name, plan.Type, plan.Required, plan.Order, len(plan.Options)})
	_, err = w.addField(t, parley.NewField{Name: parley.Ptr("PLAN"), Type: parley.Ptr("number")})
	assert.Equal(t, parley.KindConflict, parley.KindOf(err), "names are unique in a mailbox, whatever the case")
	seats, err := w.addField(t, parley.NewField{Name: parley.Ptr("Seats"), Type: parley.Ptr("number")})
	require.NoError(t, err)
	assert.Equal(t, 2, seats.Order, "added at the end")
	err = w.write(func(tx parley.Tx) error {
		_, _, err := parley.AddField(tx, w.caller.Company.ID, w.mailbox+1000, parley.NewField{Name: parley.Ptr("x"), Type: parley.Ptr("number")}, ruleNow)
		return err
	})
	assert.True(t, parley.IsNotFound(err))
}

func TestReplaceFields(t *testing.T) {
	w, id := oneConversation(t, "active")
	plan, err := w.addField(t, parley.NewField{Name: parley.Ptr("Plan"), Type: parley.Ptr("dropdown"), Options: []string{"Gold", "Silver"}, Required: true})
	require.NoError(t, err)
	seats, err := w.addField(t, parley.NewField{Name: parley.Ptr("Seats"), Type: parley.Ptr("number")})
	require.NoError(t, err)
	renewal, err := w.addField(t, parley.NewField{Name: parley.Ptr("Renewal"), Type: parley.Ptr("date")})
	require.NoError(t, err)
	gold := strconv.FormatInt(plan.Options[0].ID, 10)
	replace := func(in []parley.FieldValueInput) error {
		return w.write(func(tx parley.Tx) error { return parley.ReplaceFields(tx, w.caller, id, in, ruleNow) })
	}
	value := func(f parley.FieldDef, v string) parley.FieldValueInput {
		return parley.FieldValueInput{ID: parley.Ptr(f.ID), Value: parley.Ptr(v)}
	}
	refused := []struct {
		name string
		in   []parley.FieldValueInput
		path string
		code string
	}{
		{"null", nil, "fields", parley.CodeNullValue},
		{"a value without an id", []parley.FieldValueInput{{Value: parley.Ptr("1")}}, "fields[0]", parley.CodeNullValue},
		{"a field of no mailbox", []parley.FieldValueInput{{ID: parley.Ptr(seats.ID + 1000), Value: parley.Ptr("1")}}, "fields[0].id", parley.CodeInvalidID},
		{"not an option", []parley.FieldValueInput{value(plan, "Gold")}, "fields[0].value", parley.CodeValueNotSupported},
		{"not a number", []parley.FieldValueInput{value(plan, gold), value(seats, "many")}, "fields[1].value", parley.CodeInvalidNumber},
		{"not a date", []parley.FieldValueInput{value(plan, gold), value(renewal, "next week")}, "fields[1].value", parley.CodeMalformedDate},
		{"the required field left out", []parley.FieldValueInput{value(seats, "5")}, "fields", parley.CodeEmptyValue},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := replace(tt.in)
			require.Error(t, err)
			e := err.(*parley.Error)
			assert.Equal(t, []string{tt.path, tt.code}, []string{e.Errors[0].Path, e.Errors[0].Code})
		})
	}
	require.NoError(t, replace([]parley.FieldValueInput{value(plan, gold), value(seats, " 12 "), value(renewal, "2027-01-31")}))
	c, _ := w.load(t, id)
	assert.Equal(t, []parley.FieldValue{{ID: plan.ID, Value: gold}, {ID: seats.ID, Value: "12"}, {ID: renewal.ID, Value: "2027-01-31"}}, c.CustomFields)
	assert.Contains(t, w.events(t), parley.EventConvoCustomFields)
	require.NoError(t, replace([]parley.FieldValueInput{value(plan, gold)}))
	c, _ = w.load(t, id)
	assert.Equal(t, []parley.FieldValue{{ID: plan.ID, Value: gold}}, c.CustomFields, "replaces all")
}

func TestDeleteConversation(t *testing.T) {
	w, id := oneConversation(t, "active")
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.SnoozeConversation(tx, w.caller, id, &parley.SnoozeRequest{SnoozedUntil: parley.Ptr(ruleNow.AddDate(0, 0, 1).Format(parley.TimeLayout))}, ruleNow)
	}))
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteConversation(tx, w.caller, id, ruleNow) }))
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		c, err := tx.Conversation(w.caller.Company.ID, id)
		require.NoError(t, err)
		assert.Equal(t, parley.StateDeleted, c.State)
		assert.Nil(t, c.Snooze, "its snooze goes with it")
		_, err = parley.LoadConversation(tx, w.caller, id, ruleNow)
		assert.True(t, parley.IsNotFound(err), "gone from reads")
		return nil
	}))
	assert.Empty(t, w.laterItems(t, ruleNow.AddDate(0, 0, 2)), "nothing wakes it")
	assert.Contains(t, w.events(t), parley.EventConvoDeleted)
	assert.True(t, parley.IsNotFound(w.write(func(tx parley.Tx) error { return parley.DeleteConversation(tx, w.caller, id, ruleNow) })), "deleting twice")
}
