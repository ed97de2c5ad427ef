package bleveindex

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// TestStemMatchFindsEveryForm: an unquoted word matches every document
// with a word of the same stem, whether that word is in the stemmed field
// (stemming changed it) or only in the exact twin (stemming left it
// alone), scored or not; a word whose stem is not its own stem is not
// found through the twin.
func TestStemMatchFindsEveryForm(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	subjects := map[string]string{
		"1": "refund", "2": "Refunds", "3": "refunded order", "4": "convers",
		"5": "conversation", "6": "nothing here", "7": "order refunds",
	}
	var docs []index.Document
	for id, s := range subjects {
		docs = append(docs, conversation(id, 1, s))
	}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs})

	for _, tc := range []struct {
		text string
		want []string
	}{
		{"refund", []string{"1", "2", "3", "7"}},
		{"refunding", []string{"1", "2", "3", "7"}},
		{"order", []string{"3", "7"}},
		{"refunds order", []string{"3", "7"}},
		// "conversation" stems to "convers", whose own stem is "conver":
		// the word "convers" (subject 4) does not share its stem.
		{"conversation", []string{"5"}},
		{"convers", []string{"4"}},
		{"refund conversation", nil},
		{"absent", nil},
	} {
		node := query.Match{Field: "subject", Text: tc.text}
		for _, sorts := range [][]index.Sort{nil, {{Field: index.ScoreField, Desc: true}}} {
			res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Query: node, Sort: sorts, Limit: 10})
			require.NoError(t, err)
			got := slices.Clone(res.IDs)
			slices.Sort(got)
			assert.Equal(t, tc.want, nilIfEmpty(got), "%q sorted by %v", tc.text, sorts)
			assert.Equal(t, len(tc.want), res.Total, "%q sorted by %v", tc.text, sorts)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestStemFieldHoldsOnlyChangedStems: the stemmed field's terms are the
// stems that differ from their words; the exact twin has every word.
func TestStemFieldHoldsOnlyChangedStems(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{
		conversation("1", 1, "Refund for refunded orders, conversation"),
	}})
	assert.Equal(t, []string{"convers", "order", "refund"}, fieldTerms(t, e, 1, "subject"))
	assert.Equal(t, []string{"conversation", "for", "orders", "refund", "refunded"}, fieldTerms(t, e, 1, index.ExactField("subject")))
}
