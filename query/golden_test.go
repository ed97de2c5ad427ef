package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/golden"
)

// validQueries covers every form of the language. Each one is parsed,
// printed, checked against testSchema at testNow, and printed again into
// testdata/valid.golden.
var validQueries = []string{
	// The agents' example search and the documented query forms.
	`(subject:"refund" OR body:"chargeback") AND createdAt:[NOW-7DAY TO *] AND NOT tag:spam`,
	`-tag:spam`,
	`NOT email:"a@b.com"`,
	`email:(a@x.com OR b@y.com)`,
	`replyUserIds:(23 OR 45)`,
	`customerIds: 123`,
	`mailbox:Support`,
	`mailboxName:"Billing Team"`,
	`mailboxid:7`,
	`number:1042`,
	`id:42`,
	`assigned:Unassigned`,
	`attachments:true`,
	`attachment:FALSE`,
	`tag:"needs review"`,
	`status:active`,
	`status:OPEN`,
	`status:all`,
	`status:p*`,
	`status:(open -pending)`,
	`type:email`,
	`folder:3`,
	`SUBJECT:Refund`,

	// Bare words and phrases search the default fields.
	`refund`,
	`"credit card"`,
	`refund "credit card"`,
	`john+tag@example.co.uk`,
	`"john+tag@example.co.uk"`,
	`email:john+tag@example.co.uk`,
	`email:"john+tag@example.co.uk"`,

	// Operators and precedence.
	`refund chargeback`,
	`refund AND chargeback`,
	`refund && chargeback`,
	`refund OR chargeback`,
	`refund || chargeback`,
	`a OR b c`,
	`a AND b OR c AND d`,
	`a OR b AND c OR d`,
	`(a OR b) c`,
	`a NOT b`,
	`!spam`,
	`NOT NOT spam`,
	`+refund -spam`,
	`a && b || !c`,
	`(subject:refund)`,
	`((refund OR chargeback))`,
	`a AND (b AND (c AND d))`,
	`(a OR b) OR (c OR d)`,
	`body:"chargeback" AND NOT (tag:spam OR tag:test)`,
	"subject:refund\tAND\n  tag:vip",
	`subject: refund`,

	// Field groups.
	`subject:(refund OR "credit card")`,
	`body:(refund OR "credit card")`,
	`subject:(a OR (b AND -c))`,
	`subject:(refund body:card)`,
	`createdAt:([2020 TO 2021] OR [2023 TO *])`,
	`tag:(vip -spam)`,

	// Text, keyword and wildcards.
	`subject:refun*`,
	`tag:VI*`,
	`refun*`,
	`email:*`,
	`body:"Order #1234 refund"`,

	// Escapes.
	`subject:a\:b`,
	`subject:\(draft\)`,
	`subject:say\"hi\"`,
	`subject:100\*`,
	`subject:two\ words`,
	`subject:back\\slash`,
	`\-minus`,
	`tag:\AND`,
	`"say \"hi\""`,
	`subject:"a \\ b"`,

	// Numbers.
	`number:-5`,
	`number:1.5`,
	`number:[1 TO 5]`,
	`number:{1 TO 5}`,
	`number:[1 TO 5}`,
	`number:[10 TO *]`,
	`number:[* TO 10}`,
	`number:[* TO *]`,
	`number:[-5 TO +5]`,

	// Dates: partial dates, timestamps, date math and ranges.
	`createdAt:2024`,
	`modifiedAt:2000-11`,
	`createdAt:2024-02-29`,
	`createdAt:2024-01-01T10:00:00Z`,
	`createdAt:2024-01-01T00:00:00.123Z`,
	`createdAt:2024-01-01T10:00:00+02:00`,
	`createdAt:2024-01-01T10:00`,
	`createdAt:NOW`,
	`createdAt:NOW-1HOUR`,
	`createdAt:NOW+2DAYS`,
	`createdAt:NOW/DAY`,
	`createdAt:NOW-7DAYS/DAY`,
	`createdAt:NOW/DAY-7DAYS`,
	`createdAt:NOW-1DAY-2HOURS`,
	`createdAt:NOW/WEEK`,
	`createdAt:now-1month/month`,
	`createdAt:NOW-1YEAR/YEAR`,
	`modifiedAt:NOW-30MINUTES`,
	`modifiedAt:NOW-90SECONDS/MINUTE`,
	`createdAt:2013-01-01T00:00:00Z/YEAR`,
	`createdAt:2013-03-15/MONTH`,
	`createdAt:2024-01-31+1MONTH`,
	`createdAt:[2014 TO 2014-12-01]`,
	`createdAt:[2014 TO 2015}`,
	`createdAt:{2014 TO 2015]`,
	`createdAt:{2014 TO 2015}`,
	`createdAt:[2024-01-01T00:00:00Z TO 2024-01-31T23:59:59Z]`,
	`createdAt:{2024-01-01T00:00:00Z TO 2024-01-31T23:59:59Z}`,
	`createdAt:[NOW/DAY-7DAYS TO NOW]`,
	`createdAt:[NOW-1DAY/DAY TO NOW/DAY}`,
	`createdAt:[* TO 2024}`,
	`createdAt:{NOW-1DAY TO *]`,
	`createdAt:[* TO *]`,
}

// invalidQueries each fail in Parse or in Check; testdata/invalid.golden
// holds the stage, column and message.
var invalidQueries = []string{
	``,
	" \t\n ",
	`(subject:refund`,
	`((a OR b)`,
	`subject:refund)`,
	`)`,
	`()`,
	`subject:refund AND`,
	`OR tag:spam`,
	`tag:spam OR`,
	`a OR OR b`,
	`&& a`,
	`NOT`,
	`tag:spam NOT`,
	`-`,
	`subject:`,
	`(subject:)`,
	`subject:(tag:)`,
	`subject:""`,
	`""`,
	`subject:"refund`,
	`abc\`,
	`a:b:c`,
	`foo"bar"`,
	`*foo`,
	`subject:foo*bar`,
	`sub*ject:x`,
	`john@x.com:foo`,
	`[a TO b]`,
	`createdAt:[2014 2015]`,
	`createdAt:[2014 TO 2015`,
	`createdAt:[ TO 2015]`,
	`createdAt:{2014 TO 2015 2016}`,
	`createdAt:[2014 TO ""]`,
	`createdAt:[2014* TO 2015]`,
	`number:- 5`,
	`tag:spam AND (`,
	"bad \xff byte",
	`subjct:refund`,
	`status:opne`,
	`tag:vip AND status:actve`,
	`status:done`,
	`status:x*`,
	`type:emial`,
	`type:"e mail"`,
	`Subjet:refund`,
	`foo:bar`,
	`http://example.com/refund`,
	`subject:[a TO b]`,
	`tag:[a TO z]`,
	`attachments:[true TO false]`,
	`number:abc`,
	`number:12*`,
	`number:NaN`,
	`number:1e999`,
	`number:[1 TO x]`,
	`attachments:yes`,
	`createdAt:2024-13`,
	`createdAt:2024-02-30`,
	`createdAt:2024-01-01T25:00:00Z`,
	`createdAt:yesterday`,
	`createdAt:NOW-1FORTNIGHT`,
	`createdAt:NOW-1`,
	`createdAt:NOW-9999999999DAYS`,
	`createdAt:NOW+10000YEARS`,
	`createdAt:refund*`,
	`modifiedAt:[2024 TO NOW-1D]`,
	`replyUserIds:(23 OR abc)`,
	strings.Repeat("a ", MaxLength/2+1),
	strings.Repeat("(", MaxDepth+1) + "a" + strings.Repeat(")", MaxDepth+1),
	strings.Repeat("NOT ", MaxDepth+1) + "a",
	strings.Repeat("x ", MaxClauses+1),
}

func TestGoldenValid(t *testing.T) {
	s := newTestSchema()
	var b strings.Builder
	for _, in := range validQueries {
		n, err := Parse(in)
		require.NoError(t, err, "Parse(%q)", in)
		q, err := Check(n, s, testNow)
		require.NoError(t, err, "Check(%q)", in)
		fmt.Fprintf(&b, "%s\nsyntax:  %s\nchecked: %s\n\n", showQuery(in), n, q)
	}
	golden.Assert(t, "valid.golden", b.String())
}

// TestCheckLeavesTheSyntaxAlone: Parse shares the syntax of a query
// parsed before, so checking it must not change it.
func TestCheckLeavesTheSyntaxAlone(t *testing.T) {
	s := newTestSchema()
	for _, in := range validQueries {
		shared, err := Parse(in)
		require.NoError(t, err)
		_, err = Check(shared, s, testNow)
		require.NoError(t, err)
		fresh, err := parse(in)
		require.NoError(t, err)
		assert.Equal(t, fresh, shared, in)
		again, err := Parse(in)
		require.NoError(t, err)
		assert.Equal(t, fresh, again, in)
	}
}

func TestGoldenInvalid(t *testing.T) {
	s := newTestSchema()
	var b strings.Builder
	for _, in := range invalidQueries {
		stage := "parse"
		n, err := Parse(in)
		if err == nil {
			stage = "check"
			_, err = Check(n, s, testNow)
		}
		require.Error(t, err, "%q should fail", in)
		var e *Error
		require.True(t, errors.As(err, &e), "%q: error is %T, want *Error", in, err)
		assert.GreaterOrEqual(t, e.Column, 1, in)
		assert.LessOrEqual(t, e.Column, len([]rune(in))+1, in)
		assert.NotContains(t, e.Message, "participle", in)
		assert.NotRegexp(t, `\bg[A-Z][a-z]+`, e.Message, "%q leaks a grammar struct name", in)
		fmt.Fprintf(&b, "%s\n%s error, column %d: %s\n\n", showQuery(in), stage, e.Column, e.Message)
	}
	golden.Assert(t, "invalid.golden", b.String())
}

// showQuery prints a query on one line: as written, or Go-quoted when it
// holds control characters or is too long to read.
func showQuery(in string) string {
	if len(in) > 200 {
		return fmt.Sprintf("query(%d bytes): %s...", len(in), strconv.Quote(in[:40]))
	}
	if strings.ContainsFunc(in, func(r rune) bool { return r < ' ' || r == 0x7f }) || !utf8.ValidString(in) {
		return "query(quoted): " + strconv.Quote(in)
	}
	return "query: " + in
}
