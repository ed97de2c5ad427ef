package parley

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClipMailBody: a body over MaxMailBodyBytes, or one cut when it was
// read, keeps a beginning that ends at a character outside any tag or
// character reference, then the note; the whole stays within the bound.
func TestClipMailBody(t *testing.T) {
	n := MaxMailBodyBytes - len(mailBodyCut) // what a cut body keeps at most
	a := func(k int) string { return strings.Repeat("a", k) }
	cases := []struct {
		name, body string
		wasCut     bool
		want       string
	}{
		{"short", "<p>hi</p>", false, "<p>hi</p>"},
		{"exactly the bound", a(MaxMailBodyBytes), false, a(MaxMailBodyBytes)},
		{"short, cut when read", "<p>hi</p>", true, "<p>hi</p>" + mailBodyCut},
		{"long", a(MaxMailBodyBytes + 1), false, a(n) + mailBodyCut},
		{"in a tag", a(n-2) + "<span>more" + a(n), false, a(n-2) + mailBodyCut},
		{"in a reference", a(n-3) + "&amp;more" + a(n), false, a(n-3) + mailBodyCut},
		{"after a reference", a(n-5) + "&amp;more" + a(n), false, a(n-5) + "&amp;" + mailBodyCut},
		{"in a character", a(n-1) + "\u20ac" + a(n), false, a(n-1) + mailBodyCut},
		{"a bare ampersand long before", a(n-100) + "& " + a(n), false, a(n-100) + "& " + a(98) + mailBodyCut},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := clipMailBody(tc.body, tc.wasCut)
			tail := func(s string) string { return s[max(0, len(s)-len(mailBodyCut)-20):] }
			assert.True(t, got == tc.want, "got %d bytes ending %q, want %d ending %q", len(got), tail(got), len(tc.want), tail(tc.want))
			assert.LessOrEqual(t, len(got), max(MaxMailBodyBytes, len(tc.body)+len(mailBodyCut)))
		})
	}
}
