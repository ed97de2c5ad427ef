package index_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// TestSuggestionsAgree misspells the fixtures' words and requires Bleve,
// PostgreSQL and the oracle to offer the same corrections, every one of them made of
// the searching company's words.
func TestSuggestionsAgree(t *testing.T) {
	e := loadEngines(t)
	bleve, postgres := e.open(t, "bleve"), e.open(t, "postgres")
	g := newQueryGen(t, e.db)
	offered := 0
	for i := 0; i < 300; i++ {
		company := int64(1 + i%2)
		w := []rune(pickOne(g.r, g.words))
		if len(w) < 4 {
			continue
		}
		at := g.r.IntN(len(w) - 1)
		switch i % 3 {
		case 0:
			w[at], w[at+1] = w[at+1], w[at] // swap
		case 1:
			w = append(w[:at:at], w[at+1:]...) // drop
		default:
			w[at] = 'q' // substitute
		}
		text := pickOne(g.r, []string{"", "subject:", "body:"}) + string(w)
		run := func(engine index.Engine) []string {
			syntax, err := query.Parse(text)
			require.NoError(t, err, text)
			checked, err := query.Check(syntax, index.ConversationSchemaFor(e.mailboxes[company]), fixtureNow)
			require.NoError(t, err, text)
			r := index.Request{Kind: index.Conversations, Company: company, Query: checked}
			res, err := engine.Search(context.Background(), r)
			require.NoError(t, err)
			if res.Total > 0 {
				return nil
			}
			out, err := index.Suggest(context.Background(), engine, r, text)
			require.NoError(t, err)
			return out
		}
		want := run(e.oracle)
		assert.Equal(t, want, run(bleve), "bleve's suggestions for %q (company %d)", text, company)
		assert.Equal(t, want, run(postgres), "postgres's suggestions for %q (company %d)", text, company)
		for _, s := range want {
			offered++
			for _, word := range index.Tokens(s) {
				if slices.Contains(index.Tokens(text), word) {
					continue // kept as written
				}
				words, err := e.oracle.(index.Suggester).Words(context.Background(), index.Conversations, company, word, 1)
				require.NoError(t, err)
				assert.True(t, slices.Contains(words, word), "%q offers %q, not a word of company %d", text, word, company)
			}
		}
	}
	assert.Greater(t, offered, 50, "too few misspellings got a suggestion")
}

// TestSuggestionsStayInTheCompany: a word only another company uses is
// never offered, by any engine.
func TestSuggestionsStayInTheCompany(t *testing.T) {
	e := loadEngines(t)
	bleve, postgres := e.open(t, "bleve"), e.open(t, "postgres")
	other := index.NewDocument("900001", 2)
	other.Texts["subject"] = []string{"Xylophone recital"}
	for _, engine := range []index.Engine{bleve, postgres, e.oracle} {
		require.NoError(t, engine.Apply(context.Background(), index.Batch{Kind: index.Conversations, Company: 2, Upserts: []index.Document{other}}, nil))
		for company, want := range map[int64][]string{1: nil, 2: {"xylophone"}} {
			q := query.Match{Field: "subject", Text: "xylofone"}
			got, err := index.Suggest(context.Background(), engine, index.Request{Kind: index.Conversations, Company: company, Query: q}, "xylofone")
			require.NoError(t, err)
			assert.Equal(t, want, got, "company %d, %T", company, engine)
		}
	}
}

// TestSuggestionsOfLongWords: a word of MaxSuggestableLength letters is
// corrected and offered like any other; longer words are neither, and a
// query word of any length gets no suggestion rather than an error (Bleve's
// automaton fails past about 2,500 letters).
func TestSuggestionsOfLongWords(t *testing.T) {
	e := loadEngines(t)
	bleve, postgres := e.open(t, "bleve"), e.open(t, "postgres")
	// letters spells n varied letters, so no automaton is small for being
	// repetitive.
	letters := func(n int) string {
		w := make([]byte, n)
		for i := range w {
			w[i] = byte('a' + (i*7+i/26)%26)
		}
		return string(w)
	}
	misspelt := func(w string) string { return "q" + w[1:] }
	longest, tooLong := letters(index.MaxSuggestableLength), letters(index.MaxSuggestableLength+1)
	doc := index.NewDocument("900002", 1)
	doc.Texts["subject"] = []string{longest + " " + tooLong}
	cases := []struct {
		word string
		want []string
	}{
		{misspelt(longest), []string{longest}},
		{misspelt(tooLong), nil},
		{letters(2499), nil},
		{letters(20000), nil},
	}
	for _, engine := range []index.Engine{bleve, postgres, e.oracle} {
		require.NoError(t, engine.Apply(context.Background(), index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{doc}}, nil))
		for _, tc := range cases {
			q := query.Match{Field: "subject", Text: tc.word}
			got, err := index.Suggest(context.Background(), engine, index.Request{Kind: index.Conversations, Company: 1, Query: q}, tc.word)
			require.NoError(t, err, "%T, a word of %d letters", engine, len(tc.word))
			assert.Equal(t, tc.want, got, "%T, a word of %d letters", engine, len(tc.word))
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"refnud", "refund", 1}, {"refund", "refund", 0}, {"refud", "refund", 1}, {"rfnd", "refund", 2},
		{"ca", "abc", 3}, {"café", "cafe", 1}, {"", "abc", 3},
	} {
		assert.Equal(t, tc.want, index.EditDistance(tc.a, tc.b), "%s %s", tc.a, tc.b)
	}
}

func TestReplaceWords(t *testing.T) {
	repl := map[string]string{"refnud": "refund"}
	assert.Equal(t, `subject:(refund OR "the refund") AND refunds`, index.ReplaceWords(`subject:(Refnud OR "the RÉFNUD") AND refunds`, repl))
}
