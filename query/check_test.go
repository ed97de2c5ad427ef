package query

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func check(t *testing.T, s Schema, in string) (Node, error) {
	t.Helper()
	n, err := Parse(in)
	require.NoError(t, err, in)
	return Check(n, s, testNow)
}

// TestCheckDates pins date semantics: which instants a value or range
// bound stands for at testNow (Saturday 2026-11-21 12:34:56 UTC).
func TestCheckDates(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		// A value with a unit covers the whole unit; an instant is itself.
		{`createdAt:2024`, `[2024-01-01T00:00:00Z TO 2025-01-01T00:00:00Z}`},
		{`createdAt:2024-02`, `[2024-02-01T00:00:00Z TO 2024-03-01T00:00:00Z}`},
		{`createdAt:2024-12-31`, `[2024-12-31T00:00:00Z TO 2025-01-01T00:00:00Z}`},
		{`createdAt:2024-06-01T23:30:00-01:30`, `[2024-06-02T01:00:00Z TO 2024-06-02T01:00:00Z]`},
		{`createdAt:2024-06-01T10:00:00.5Z`, `[2024-06-01T10:00:00.5Z TO 2024-06-01T10:00:00.5Z]`},
		{`createdAt:NOW`, `[2026-11-21T12:34:56Z TO 2026-11-21T12:34:56Z]`},
		{`createdAt:NOW/HOUR`, `[2026-11-21T12:00:00Z TO 2026-11-21T13:00:00Z}`},
		{`createdAt:NOW/MINUTE`, `[2026-11-21T12:34:00Z TO 2026-11-21T12:35:00Z}`},
		{`createdAt:NOW/SECOND`, `[2026-11-21T12:34:56Z TO 2026-11-21T12:34:57Z}`},
		{`createdAt:NOW/WEEK`, `[2026-11-16T00:00:00Z TO 2026-11-23T00:00:00Z}`},
		{`createdAt:NOW-2WEEKS`, `[2026-11-07T12:34:56Z TO 2026-11-07T12:34:56Z]`},
		{`createdAt:NOW-1000HOURS`, `[2026-10-10T20:34:56Z TO 2026-10-10T20:34:56Z]`},
		{`createdAt:NOW+100000SECONDS`, `[2026-11-22T16:21:36Z TO 2026-11-22T16:21:36Z]`},
		{`createdAt:NOW/YEAR+1YEAR`, `[2027-01-01T00:00:00Z TO 2027-01-01T00:00:00Z]`},
		{`createdAt:Now-1Day/Day`, `[2026-11-20T00:00:00Z TO 2026-11-21T00:00:00Z}`},
		// Month arithmetic clamps to the end of shorter months.
		{`createdAt:2024-03-31T00:00:00Z-1MONTH`, `[2024-02-29T00:00:00Z TO 2024-02-29T00:00:00Z]`},
		{`createdAt:2024-02-29T00:00:00Z+1YEAR`, `[2025-02-28T00:00:00Z TO 2025-02-28T00:00:00Z]`},
		// Operations apply left to right.
		{`createdAt:NOW/DAY+1HOUR/DAY`, `[2026-11-21T00:00:00Z TO 2026-11-22T00:00:00Z}`},
		{`createdAt:NOW-1HOUR/DAY-1DAY`, `[2026-11-20T00:00:00Z TO 2026-11-20T00:00:00Z]`},
		// Ranges: brackets widen or narrow bounds that have a unit.
		{`createdAt:[2024 TO 2024]`, `[2024-01-01T00:00:00Z TO 2025-01-01T00:00:00Z}`},
		{`createdAt:{2024 TO 2026}`, `[2025-01-01T00:00:00Z TO 2026-01-01T00:00:00Z}`},
		{`createdAt:[2024-05 TO 2024-06}`, `[2024-05-01T00:00:00Z TO 2024-06-01T00:00:00Z}`},
		{`createdAt:[NOW/DAY TO NOW/DAY]`, `[2026-11-21T00:00:00Z TO 2026-11-22T00:00:00Z}`},
		{`createdAt:{NOW-1HOUR TO NOW}`, `{2026-11-21T11:34:56Z TO 2026-11-21T12:34:56Z}`},
		{`createdAt:[2024-01-01T00:00:00Z TO NOW]`, `[2024-01-01T00:00:00Z TO 2026-11-21T12:34:56Z]`},
		{`createdAt:{* TO 2024-01-01T00:00:00Z]`, `{* TO 2024-01-01T00:00:00Z]`},
	}
	s := newTestSchema()
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := check(t, s, tt.in)
			require.NoError(t, err)
			assert.Equal(t, "time(createdAt, "+tt.want+")", q.String())
		})
	}
}

func TestCheckTimeRangeValues(t *testing.T) {
	t.Parallel()
	q, err := check(t, newTestSchema(), `modifiedAt:2000-11`)
	require.NoError(t, err)
	from := time.Date(2000, 11, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2000, 12, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, TimeRange{Field: "modifiedAt", From: &from, To: &to, FromInclusive: true}, q)

	// now is used in UTC whatever its location.
	paris := time.FixedZone("CET", 3600)
	n, err := Parse(`createdAt:NOW/DAY`)
	require.NoError(t, err)
	q, err = Check(n, newTestSchema(), time.Date(2026, 1, 1, 0, 30, 0, 0, paris))
	require.NoError(t, err)
	assert.Equal(t, "time(createdAt, [2025-12-31T00:00:00Z TO 2026-01-01T00:00:00Z})", q.String())
}

// defaultsSchema has a default field of every type, to show which ones a
// bare term reaches.
type defaultsSchema struct{ testSchema }

func (defaultsSchema) DefaultFields() []FieldSpec {
	return []FieldSpec{
		{Name: "number", Type: Number, Targets: []string{"number"}},
		{Name: "createdAt", Type: Date, Targets: []string{"createdAt"}},
		{Name: "attachments", Type: Bool, Targets: []string{"hasAttachments"}},
		{Name: "subject", Type: Text, Targets: []string{"subject", "subjectExact"}},
	}
}

func TestCheckDefaultFieldsSkipValuesOfAnotherType(t *testing.T) {
	t.Parallel()
	s := defaultsSchema{newTestSchema()}
	tests := []struct{ in, want string }{
		{`refund`, `(match(subject, "refund") OR match(subjectExact, "refund"))`},
		{`42`, `(range(number, [42 TO 42]) OR match(subject, "42") OR match(subjectExact, "42"))`},
		{`2024`, `(range(number, [2024 TO 2024]) OR time(createdAt, [2024-01-01T00:00:00Z TO 2025-01-01T00:00:00Z}) OR match(subject, "2024") OR match(subjectExact, "2024"))`},
		{`TRUE`, `(keyword(hasAttachments, "true") OR match(subject, "TRUE") OR match(subjectExact, "TRUE"))`},
		{`ref*`, `(prefix(subject, "ref") OR prefix(subjectExact, "ref"))`},
	}
	for _, tt := range tests {
		q, err := check(t, s, tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, q.String(), tt.in)
	}
}

type numbersOnly struct{ testSchema }

func (numbersOnly) DefaultFields() []FieldSpec {
	return []FieldSpec{{Name: "number", Type: Number, Targets: []string{"number"}}}
}

func TestCheckNoDefaultFieldFits(t *testing.T) {
	t.Parallel()
	_, err := check(t, numbersOnly{newTestSchema()}, `1 refund`)
	assert.Equal(t, &Error{Column: 3, Message: `no default field can search "refund" at column 3, name a field as in field:value`}, err)
}

func TestCheckTargets(t *testing.T) {
	t.Parallel()
	s := newTestSchema()
	s.byName["anyemail"] = FieldSpec{Name: "anyEmail", Type: KeywordType, Targets: []string{"to", "cc", "customerEmail"}}
	s.byName["untargeted"] = FieldSpec{Name: "untargeted", Type: Number}
	tests := []struct{ in, want string }{
		{`anyEmail:A@B.com`, `(keyword(to, "a@b.com") OR keyword(cc, "a@b.com") OR keyword(customerEmail, "a@b.com"))`},
		{`anyEmail:*`, `(exists(to) OR exists(cc) OR exists(customerEmail))`},
		{`anyEmail:(a OR b)`, `(keyword(to, "a") OR keyword(cc, "a") OR keyword(customerEmail, "a") OR keyword(to, "b") OR keyword(cc, "b") OR keyword(customerEmail, "b"))`},
		{`untargeted:1`, `range(untargeted, [1 TO 1])`},
	}
	for _, tt := range tests {
		q, err := check(t, s, tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, q.String(), tt.in)
	}
}

func TestCheckKeepsQueryNodes(t *testing.T) {
	t.Parallel()
	company := Keyword{Field: "company", Value: "42"}
	in := And{Nodes: []Node{company, Field{Field: "tag", Value: "VIP", Column: 1}, Not{Node: All{}}}}
	q, err := Check(in, newTestSchema(), testNow)
	require.NoError(t, err)
	assert.Equal(t, And{Nodes: []Node{company, Keyword{Field: "tag", Value: "vip"}, Not{Node: All{}}}}, q)

	_, err = Check(nil, newTestSchema(), testNow)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 1, e.Column)

	_, err = Check(Range{Field: "", Lower: "1", Upper: "2", Column: 4}, newTestSchema(), testNow)
	assert.Equal(t, &Error{Column: 4, Message: "range without a field at column 4"}, err)
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := newTestSchema().Names()
	tests := map[string]string{
		"subjct":      "subject",
		"SUBJET":      "subject",
		"tags":        "tag",
		"createdat":   "createdAt",
		"createAt":    "createdAt",
		"modifedAt":   "modifiedAt",
		"mailboxname": "mailboxName",
		"attachmnts":  "attachments",
		"ib":          "id",
		"foo":         "",
		"customer":    "",
	}
	for in, want := range tests {
		assert.Equal(t, want, suggest(in, names), in)
	}
	assert.Equal(t, "status", suggest("stauts", []string{"state", "status"}), "a swap of neighbours is one edit, a closer match than state's two")
}
