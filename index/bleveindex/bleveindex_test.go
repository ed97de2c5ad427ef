package bleveindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

func TestOpenRebuildsOnMappingVersionChange(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	assert.True(t, e.Fresh(), "a new index needs a build")
	doc := index.NewDocument("7", 1)
	doc.Numbers["id"] = []float64{7}
	persisted := make(chan error, 1)
	require.NoError(t, e.Apply(context.Background(), index.Conversations, []index.Document{doc}, nil, func(err error) { persisted <- err }))
	require.NoError(t, <-persisted, "the batch is reported durable")
	assert.True(t, e.Fresh(), "not built until marked")
	require.NoError(t, e.MarkBuilt())
	require.NoError(t, e.Close())

	e, err = Open(dir)
	require.NoError(t, err)
	assert.False(t, e.Fresh(), "same mapping version: reused")
	res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"7"}, res.IDs)
	require.NoError(t, e.Close())

	// Pretend the index was built by an older Parley.
	idx, err := bleve.Open(filepath.Join(dir, "conversation.bleve"))
	require.NoError(t, err)
	require.NoError(t, setInternalDurably(idx, versionKey, "0"))
	require.NoError(t, idx.Close())

	e, err = Open(dir)
	require.NoError(t, err)
	defer e.Close()
	assert.True(t, e.Fresh(), "outdated mapping: recreated empty, to be rebuilt")
	res, err = e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Total)
}

func TestUnmarkedIndexIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, e.Close()) // a crash before the rebuild completed
	e, err = Open(dir)
	require.NoError(t, err)
	defer e.Close()
	assert.True(t, e.Fresh(), "an index never marked built is built again")
}

func TestUnreadableIndexIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, e.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conversation.bleve", "index_meta.json"), []byte("{broken"), 0o600))
	e, err = Open(dir)
	require.NoError(t, err, "an unreadable index is replaced, not fatal")
	defer e.Close()
	assert.True(t, e.Fresh())
}

func TestTokenizersMatchAnalysis(t *testing.T) {
	for _, s := range []string{"Refund for ORDER #1001: Café", "", "  x  ", "a@b.com/ünï-code_42", "Refunds refunded RÉSUMÉS"} {
		for _, tc := range []struct {
			tokenizer wordTokenizer
			want      []string
		}{{wordTokenizer{analyse: index.Tokens}, index.Tokens(s)}, {wordTokenizer{analyse: index.Stems}, index.Stems(s)}} {
			var got []string
			for i, tok := range tc.tokenizer.Tokenize([]byte(s)) {
				got = append(got, string(tok.Term))
				assert.Equal(t, i+1, tok.Position)
			}
			assert.Equal(t, tc.want, got, s)
		}
	}
}

// TestSortKeyOrdersLikeNumbers: byte order of the keys is numeric order,
// across signs, zero, fractions and the magnitudes dates and ids have.
func TestSortKeyOrdersLikeNumbers(t *testing.T) {
	values := []float64{-1e15, -250.5, -1, -0.25, 0, 0.25, 1, 2, 10, 250.5, 1764000000000, 1e15}
	for i := 1; i < len(values); i++ {
		a, b := sortKey(values[i-1]), sortKey(values[i])
		assert.Less(t, a, b, "%v before %v", values[i-1], values[i])
		assert.Len(t, b, 16)
	}
}

// TestTrivialFilterIsTheCompanyAlone: a filter that restricts nothing must
// not put a match-all (a walk over every document) beside the company.
func TestTrivialFilterIsTheCompanyAlone(t *testing.T) {
	q, err := filterQuery(index.Conversations, 7, query.And{Nodes: []query.Node{query.All{}}})
	require.NoError(t, err)
	term, ok := q.(*bq.TermQuery)
	require.True(t, ok, "got %T", q)
	assert.Equal(t, "7", term.Term)
}
