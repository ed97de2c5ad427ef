package parley

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPropertyNormalize(t *testing.T) {
	dropdown := PropertyDef{Type: PropertyDropdown, Options: []PropertyOption{{ID: 7, Label: "Gold"}}}
	cases := []struct {
		def        PropertyDef
		in, stored string
		code       string
	}{
		{PropertyDef{Type: PropertyNumber}, "9223372036854775807", "9223372036854775807", ""},
		{PropertyDef{Type: PropertyNumber}, "-9223372036854775808", "-9223372036854775808", ""},
		{PropertyDef{Type: PropertyNumber}, "9223372036854775808", "", CodeInvalidNumber},
		{PropertyDef{Type: PropertyNumber}, "1e3", "", CodeInvalidNumber},
		{PropertyDef{Type: PropertyText}, strings.Repeat("é", 255), strings.Repeat("é", 255), ""},
		{PropertyDef{Type: PropertyText}, strings.Repeat("é", 256), "", CodeSize},
		{PropertyDef{Type: PropertyURL}, "https://example.com/a?b", "https://example.com/a?b", ""},
		{PropertyDef{Type: PropertyURL}, "example.com", "", CodeValueNotSupported},
		{PropertyDef{Type: PropertyDate}, "2024-02-29", "2024-02-29", ""},
		{PropertyDef{Type: PropertyDate}, "2023-02-29", "", CodeMalformedDate},
		{dropdown, "7", "7", ""},
		{dropdown, "gold", "7", ""},
		{dropdown, "8", "", CodeValueNotSupported},
	}
	for _, tc := range cases {
		stored, code, _ := tc.def.Normalize(tc.in)
		assert.Equal(t, tc.code, code, "%s %q", tc.def.Type, tc.in)
		assert.Equal(t, tc.stored, stored, "%s %q", tc.def.Type, tc.in)
	}
	assert.Equal(t, "Gold", dropdown.Text("7"))
}

func TestValidSlug(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "A-b_9": true, "": false, "a b": false, "é": false,
		strings.Repeat("a", 100): true, strings.Repeat("a", 101): false} {
		assert.Equal(t, want, ValidSlug(s), "%q", s)
	}
}
