package parley

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNullableRoundTrip(t *testing.T) {
	type body struct {
		AssignTo Nullable[int64] `json:"assignTo,omitzero"`
	}
	for _, tc := range []struct {
		json string
		want Nullable[int64]
	}{
		{`{}`, Nullable[int64]{}},
		{`{"assignTo":null}`, Nullable[int64]{Set: true, Null: true}},
		{`{"assignTo":7}`, Nullable[int64]{Set: true, Value: 7}},
	} {
		var b body
		require.NoError(t, json.Unmarshal([]byte(tc.json), &b))
		assert.Equal(t, tc.want, b.AssignTo, tc.json)
		out, err := json.Marshal(b)
		require.NoError(t, err)
		assert.JSONEq(t, tc.json, string(out))
	}
}
