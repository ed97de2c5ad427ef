package index_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/parley/parley/index"
)

func TestAnalysis(t *testing.T) {
	for _, tc := range []struct {
		in            string
		tokens, stems []string
	}{
		{"Refund for ORDER #1001: Café Ünïcode; a@b.com",
			[]string{"refund", "for", "order", "1001", "cafe", "unicode", "a", "b", "com"},
			[]string{"refund", "for", "order", "1001", "cafe", "unicod", "a", "b", "com"}},
		{"refunds, refunded and REFUNDING", []string{"refunds", "refunded", "and", "refunding"}, []string{"refund", "refund", "and", "refund"}},
		{"subscriptions subscription", []string{"subscriptions", "subscription"}, []string{"subscript", "subscript"}},
		// Decomposed accents (e + U+0301) fold like composed ones, and do
		// not split a word.
		{"Re\u0301sume\u0301 résumé RÉSUMÉ", []string{"resume", "resume", "resume"}, []string{"resum", "resum", "resum"}},
		// Letters without a decomposition stay.
		{"Straße Øresund", []string{"straße", "øresund"}, []string{"straße", "øresund"}},
		{"İstanbul", []string{"istanbul"}, []string{"istanbul"}},
		{" ?! ", nil, nil},
	} {
		assert.Equal(t, tc.tokens, index.Tokens(tc.in), tc.in)
		assert.Equal(t, tc.stems, index.Stems(tc.in), tc.in)
	}
}

func TestFold(t *testing.T) {
	assert.Equal(t, "cafe-creme", index.Fold("Café-Crème"))
	assert.Equal(t, "refund", index.Fold("REFUND"))
}
