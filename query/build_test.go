package query

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConstructors: the canonical form of each constructor's node, with
// the edge cases of none and one value.
func TestConstructors(t *testing.T) {
	tests := []struct {
		name string
		node Node
		want string
	}{
		{"equal", Equal("number", 7), "range(number, [7 TO 7])"},
		{"equal id", EqualID("mailboxId", 3), "range(mailboxId, [3 TO 3])"},
		{"any of none matches nothing", AnyOf(), "NOT ALL"},
		{"any of one is itself", AnyOf(Keyword{Field: "tag", Value: "vip"}), `keyword(tag, "vip")`},
		{"any of two", AnyOf(Keyword{Field: "tag", Value: "a"}, Keyword{Field: "tag", Value: "b"}), `(keyword(tag, "a") OR keyword(tag, "b"))`},
		{"all of none matches everything", AllOf(), "ALL"},
		{"all of nil restricts nothing", AllOf(nil, Keyword{Field: "tag", Value: "vip"}), `keyword(tag, "vip")`},
		{"all of spreads conjunctions", AllOf(And{Nodes: []Node{Keyword{Field: "tag", Value: "a"}, Keyword{Field: "tag", Value: "b"}}}, Keyword{Field: "type", Value: "chat"}),
			`(keyword(tag, "a") AND keyword(tag, "b") AND keyword(type, "chat"))`},
		{"all of keeps disjunctions whole", AllOf(Keyword{Field: "tag", Value: "a"}, Or{Nodes: []Node{Keyword{Field: "tag", Value: "b"}, Keyword{Field: "tag", Value: "c"}}}),
			`(keyword(tag, "a") AND (keyword(tag, "b") OR keyword(tag, "c")))`},
		{"any id of none", AnyID("mailboxId", nil), "NOT ALL"},
		{"any id of two", AnyID("mailboxId", []int64{1, 2}), "(range(mailboxId, [1 TO 1]) OR range(mailboxId, [2 TO 2]))"},
		{"any keyword of none", AnyKeyword("type", nil), "NOT ALL"},
		{"any keyword of one", AnyKeyword("type", []string{"chat"}), `keyword(type, "chat")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.node.String()) })
	}
}
