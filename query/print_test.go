package query

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return &v
	}
	tests := []struct {
		n    Node
		want string
	}{
		{Field{Field: "subject", Value: "refund"}, `subject:refund`},
		{Field{Field: "subject", Value: "refund please", Quoted: true}, `subject:"refund please"`},
		{Field{Field: "subject", Value: "refun", Wildcard: true}, `subject:refun*`},
		{Field{Value: "-x"}, `\-x`},
		{Field{Field: "n", Value: "-x"}, `n:-x`},
		{Field{Value: "OR"}, `\OR`},
		{Field{Value: "a:b c"}, `a\:b\ c`},
		{Field{Value: `say "hi"`, Quoted: true}, `"say \"hi\""`},
		{Range{Field: "createdAt", Lower: "2024", UpperOpen: true, LowerInclusive: true}, `createdAt:[2024 TO *}`},
		{Range{Field: "n", Lower: "a b", Upper: "*", UpperInclusive: true}, `n:{a\ b TO \*]`},
		{Exists{Field: "email"}, `email:*`},
		{And{Nodes: []Node{Field{Value: "a"}, Or{Nodes: []Node{Field{Value: "b"}, Not{Node: Field{Value: "c"}}}}}}, `(a AND (b OR NOT c))`},
		{Not{Node: And{Nodes: []Node{Field{Value: "a"}, Field{Value: "b"}}}}, `NOT (a AND b)`},
		{Not{}, `NOT <nil>`},
		{And{}, `()`},
		{All{}, `ALL`},
		{Match{Field: "subject", Text: "refund please"}, `match(subject, "refund please")`},
		{Phrase{Field: "body", Text: "line\nbreak \"q\""}, `phrase(body, "line\nbreak \"q\"")`},
		{Keyword{Field: "tag", Value: "vip"}, `keyword(tag, "vip")`},
		{Prefix{Field: "subject", Value: "refun"}, `prefix(subject, "refun")`},
		{NumberRange{Field: "number", Min: f(1), Max: f(5), MinInclusive: true, MaxInclusive: true}, `range(number, [1 TO 5])`},
		{NumberRange{Field: "id", Min: f(1234567), Max: f(-0.25)}, `range(id, {1234567 TO -0.25})`},
		{NumberRange{Field: "big", Min: f(1e300), Max: f(math.MaxFloat64)}, `range(big, {1e+300 TO 1.7976931348623157e+308})`},
		{NumberRange{Field: "number"}, `range(number, {* TO *})`},
		{TimeRange{Field: "createdAt", From: at("2024-01-01T00:00:00Z"), To: at("2025-01-01T00:00:00Z"), FromInclusive: true}, `time(createdAt, [2024-01-01T00:00:00Z TO 2025-01-01T00:00:00Z})`},
		{TimeRange{Field: "createdAt", From: at("2024-01-01T02:00:00.25+02:00"), ToInclusive: true}, `time(createdAt, {2024-01-01T00:00:00.25Z TO *])`},
		{FieldExists{Field: "email"}, `exists(email)`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.n.String())
	}
}
