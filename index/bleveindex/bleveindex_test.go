package bleveindex

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bq "github.com/blevesearch/bleve/v2/search/query"
	bi "github.com/blevesearch/bleve_index_api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// apply indexes docs of one company and waits until they are durable.
func apply(t *testing.T, e *Engine, b index.Batch) {
	t.Helper()
	persisted := make(chan error, 1)
	require.NoError(t, e.Apply(context.Background(), b, func(err error) { persisted <- err }))
	require.NoError(t, <-persisted, "the batch is reported durable")
}

// fieldTerms lists a field's dictionary in company's conversation
// partition, in the dictionary's order.
func fieldTerms(t *testing.T, e *Engine, company int64, field string) []string {
	t.Helper()
	p, err := e.acquire(partitionKey{index.Conversations, company}, false)
	require.NoError(t, err)
	defer e.release(p)
	d, err := p.idx.FieldDict(field)
	require.NoError(t, err)
	defer d.Close()
	var out []string
	for entry, err := d.Next(); entry != nil; entry, err = d.Next() {
		require.NoError(t, err)
		out = append(out, entry.Term)
	}
	return out
}

// snapshot holds company's conversation partition open and reads its
// current snapshot; done closes the snapshot and releases the partition.
func snapshot(t *testing.T, e *Engine, company int64) (p *partition, snap *scorch.IndexSnapshot, done func()) {
	t.Helper()
	p, err := e.acquire(partitionKey{index.Conversations, company}, false)
	require.NoError(t, err)
	in, err := p.idx.Advanced()
	require.NoError(t, err)
	r, err := in.Reader()
	require.NoError(t, err)
	return p, r.(*scorch.IndexSnapshot), func() { r.Close(); e.release(p) }
}

// firstPosting reads the first posting of term in field of company's
// conversation partition, with its frequency, norm and locations.
func firstPosting(t *testing.T, e *Engine, company int64, field, term string) *bi.TermFieldDoc {
	t.Helper()
	_, r, done := snapshot(t, e, company)
	defer done()
	postings, err := r.TermFieldReader(context.Background(), []byte(term), field, true, true, true)
	require.NoError(t, err)
	defer postings.Close()
	hit, err := postings.Next(nil)
	require.NoError(t, err)
	require.NotNil(t, hit)
	return hit
}

func conversation(id string, company int64, subject string) index.Document {
	d := index.NewDocument(id, company)
	n, _ := strconv.ParseFloat(id, 64)
	d.Numbers["id"] = []float64{n}
	d.Texts["subject"] = []string{subject}
	return d
}

func searchIDs(t *testing.T, e *Engine, company int64, q query.Node) []string {
	t.Helper()
	res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: company, Query: q, Limit: 10})
	require.NoError(t, err)
	return res.IDs
}

func TestOpenRebuildsOnMappingVersionChange(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	assert.True(t, e.Fresh(), "a new index needs a build")
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{conversation("7", 1, "hello")}})
	assert.True(t, e.Fresh(), "not built until marked")
	require.NoError(t, e.MarkBuilt())
	require.NoError(t, e.Close())

	e, err = Open(dir)
	require.NoError(t, err)
	assert.False(t, e.Fresh(), "same mapping version: reused")
	assert.Equal(t, []string{"7"}, searchIDs(t, e, 1, nil))
	require.NoError(t, e.Close())

	// Pretend the index was built by an older Parley.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte("0"), 0o600))
	e, err = Open(dir)
	require.NoError(t, err)
	defer e.Close()
	assert.True(t, e.Fresh(), "outdated mapping: recreated empty, to be rebuilt")
	assert.Empty(t, searchIDs(t, e, 1, nil))
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

// TestUnreadablePartitionIsRebuiltAtNextStart: a partition that cannot be
// read answers an error that says what happens, and the next start
// rebuilds the index rather than serving it without that company.
func TestUnreadablePartitionIsRebuiltAtNextStart(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 3, Upserts: []index.Document{conversation("1", 3, "hello")}})
	require.NoError(t, e.MarkBuilt())
	require.NoError(t, e.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conversation", "3.bleve", "index_meta.json"), []byte("{broken"), 0o600))

	e, err = Open(dir)
	require.NoError(t, err)
	assert.False(t, e.Fresh(), "partitions open lazily")
	_, err = e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 3, Limit: 10})
	require.ErrorContains(t, err, "rebuilt at the next start")
	require.NoError(t, e.Close())

	e, err = Open(dir)
	require.NoError(t, err)
	defer e.Close()
	assert.True(t, e.Fresh())
}

// TestPartitionsKeepCompaniesApart: a thousand companies share words but
// never documents or suggestions; no more partitions stay open than the
// limit, and a closed one reopens on demand with its documents.
func TestPartitionsKeepCompaniesApart(t *testing.T) {
	const companies, maxOpen = 1000, 8
	dir := t.TempDir()
	e, err := OpenWith(dir, Options{MaxOpen: maxOpen})
	require.NoError(t, err)
	for c := int64(1); c <= companies; c++ {
		id := strconv.FormatInt(c*10, 10)
		apply(t, e, index.Batch{Kind: index.Conversations, Company: c, Upserts: []index.Document{conversation(id, c, fmt.Sprintf("refund order%d", c))}})
		assert.LessOrEqual(t, e.OpenPartitions(), maxOpen+1, "company %d", c)
	}
	refund := query.Match{Field: "subject", Text: "refund"}
	for _, c := range []int64{1, 2, 500, 999, 1000, 3} {
		assert.Equal(t, []string{strconv.FormatInt(c*10, 10)}, searchIDs(t, e, c, refund), "company %d", c)
		words, err := e.Words(context.Background(), index.Conversations, c, "order1", 1)
		require.NoError(t, err)
		for _, w := range words {
			assert.Equal(t, fmt.Sprintf("order%d", c), w, "company %d is offered only its own words", c)
		}
	}
	assert.Empty(t, searchIDs(t, e, companies+1, refund), "a company with no partition has no documents")
	assert.LessOrEqual(t, e.OpenPartitions(), maxOpen)

	// A deletion of unknown company (an outbox entry from before entries
	// named theirs) finds the document in whichever partition holds it.
	apply(t, e, index.Batch{Kind: index.Conversations, Deletes: []string{"5000"}})
	assert.Empty(t, searchIDs(t, e, 500, refund))
	assert.Equal(t, []string{"5010"}, searchIDs(t, e, 501, refund))

	err = e.Apply(context.Background(), index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{conversation("1", 2, "x")}}, nil)
	require.ErrorContains(t, err, "in a batch of company 1", "a batch never mixes companies")
	require.NoError(t, e.MarkBuilt())
	require.NoError(t, e.Close())

	e, err = OpenWith(dir, Options{MaxOpen: maxOpen})
	require.NoError(t, err)
	defer e.Close()
	assert.False(t, e.Fresh())
	assert.Equal(t, 0, e.OpenPartitions(), "nothing opens until asked")
	assert.Equal(t, []string{"7770"}, searchIDs(t, e, 777, refund))
	assert.Equal(t, 1, e.OpenPartitions())
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

// TestTrivialFilterMatchesThePartition: a filter that restricts nothing is
// a match-all over the company's own partition, not a conjunction.
func TestTrivialFilterMatchesThePartition(t *testing.T) {
	q, err := filterQuery(index.Conversations, query.And{Nodes: []query.Node{query.All{}}})
	require.NoError(t, err)
	_, ok := q.(*bq.MatchAllQuery)
	assert.True(t, ok, "got %T", q)
}

// TestCompactLeavesOneSegment: after many small batches (a bulk load),
// Compact merges each partition into one segment, every document is still
// found, and the partition's directory keeps that segment alone: the
// replaced segments leave the disk before Compact returns, also when a
// reader (the warmer, a search) held the old snapshot through the merge.
func TestCompactLeavesOneSegment(t *testing.T) {
	for _, heldFor := range []time.Duration{0, 300 * time.Millisecond} {
		t.Run(heldFor.String(), func(t *testing.T) {
			e, err := Open(t.TempDir())
			require.NoError(t, err)
			defer e.Close()
			n := 0 // documents loaded, one batch each
			load := func() {
				n++
				apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{conversation(strconv.Itoa(n), 1, "refund")}})
			}
			for n < 40 {
				load()
			}
			k := partitionKey{index.Conversations, 1}
			p, err := e.acquire(k, false)
			require.NoError(t, err)
			defer e.release(p)
			in, err := p.idx.Advanced()
			require.NoError(t, err)
			s := in.(*scorch.Scorch)
			segments := func() uint64 {
				stats := s.StatsMap()
				return stats["TotFileSegmentsAtRoot"].(uint64) + stats["TotMemorySegmentsAtRoot"].(uint64)
			}
			// The background merger may have caught up with the load
			// (it does on a busy machine); one more batch is one more
			// segment, which it leaves alone while the partition holds
			// few.
			for segments() < 2 && n < 100 {
				load()
			}
			require.Greater(t, segments(), uint64(1), "the load left several segments")
			if heldFor > 0 {
				r, err := s.Reader()
				require.NoError(t, err)
				time.AfterFunc(heldFor, func() { r.Close() })
			}

			require.NoError(t, e.Compact(context.Background()))
			assert.Equal(t, uint64(1), segments())
			files, err := filepath.Glob(filepath.Join(e.path(k), "store", "*.zap"))
			require.NoError(t, err)
			assert.Len(t, files, 1, "the replaced segments are gone")
			epochs, err := s.RootBoltSnapshotEpochs()
			require.NoError(t, err)
			assert.Len(t, epochs, 1, "root.bolt keeps the merged snapshot alone")
			res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: 1, Query: query.Match{Field: "subject", Text: "refund"}})
			require.NoError(t, err)
			assert.Equal(t, n, res.Total)
		})
	}
}

// TestConcurrentOpens has many goroutines search, index and search again
// across more companies than may stay open, so partitions open, wait for
// an open under way, are created by the second asker and close, all at
// once (run it with -race).
func TestConcurrentOpens(t *testing.T) {
	const companies, maxOpen, workers = 24, 4, 12
	e, err := OpenWith(t.TempDir(), Options{MaxOpen: maxOpen})
	require.NoError(t, err)
	defer e.Close()
	refund := query.Match{Field: "subject", Text: "refund"}
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			errs <- func() error {
				for i := range companies {
					c := int64(1 + (i*7+w)%companies)
					// A search before anything exists must not create the
					// partition, nor stop a writer racing it from creating it.
					if _, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: c, Query: refund, Limit: 10}); err != nil {
						return err
					}
					id := strconv.FormatInt(c*100+int64(w), 10)
					done := make(chan error, 1)
					b := index.Batch{Kind: index.Conversations, Company: c, Upserts: []index.Document{conversation(id, c, "refund")}}
					if err := e.Apply(context.Background(), b, func(err error) { done <- err }); err != nil {
						return err
					}
					if err := <-done; err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
	for c := int64(1); c <= companies; c++ {
		res, err := e.Search(context.Background(), index.Request{Kind: index.Conversations, Company: c, Query: refund, Limit: 100})
		require.NoError(t, err)
		assert.Equal(t, workers, res.Total, "company %d holds one document from each worker", c)
	}
	assert.LessOrEqual(t, e.OpenPartitions(), maxOpen)
}

// TestDropKinds removes the kinds' partitions, closed, and leaves the other
// kinds' alone; a kind with an open partition is refused.
func TestDropKinds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(dir)
	require.NoError(t, err)
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{conversation("7", 1, "hello")}})
	message := index.NewDocument("9", 2)
	message.Numbers["createdAt"] = []float64{1}
	apply(t, e, index.Batch{Kind: index.Messages, Company: 2, Upserts: []index.Document{message}})
	assert.ErrorContains(t, e.DropKinds(index.Calls, index.Messages), "company 2's is open")
	require.NoError(t, e.MarkBuilt())
	require.NoError(t, e.Close())

	e, err = Open(dir)
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, e.DropKinds(index.Messages, index.Calls), "calls: a kind never indexed")
	assert.NoDirExists(t, filepath.Join(dir, string(index.Messages)))
	assert.Equal(t, []string{"7"}, searchIDs(t, e, 1, nil))
	got, err := e.Search(ctx, index.Request{Kind: index.Messages, Company: 2, Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, index.Result{IDs: []string{}}, got)
}

// TestPresentFieldKeepsNoFrequencies: the names of a document's fields
// are indexed without frequency and norm (presentOptions), and `field:*`
// still finds the document.
func TestPresentFieldKeepsNoFrequencies(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{conversation("1", 1, "refund")}})
	assert.Equal(t, []string{"1"}, searchIDs(t, e, 1, query.FieldExists{Field: "subject"}))
	assert.Empty(t, searchIDs(t, e, 1, query.FieldExists{Field: "createdAt"}))

	assert.Equal(t, uint64(0), firstPosting(t, e, 1, index.PresentField, "subject").Freq, "no frequency kept")

	// Ranked, `field:*` adds nothing to a score and leaves none NaN.
	for _, n := range []query.Node{
		query.FieldExists{Field: "subject"},
		query.And{Nodes: []query.Node{query.Match{Field: "subject", Text: "refund"}, query.FieldExists{Field: "subject"}}},
		query.Or{Nodes: []query.Node{query.Match{Field: "subject", Text: "refund"}, query.FieldExists{Field: "createdAt"}}},
	} {
		q, err := translate(index.Conversations, n)
		require.NoError(t, err)
		p, err := e.acquire(partitionKey{index.Conversations, 1}, false)
		require.NoError(t, err)
		res, err := p.idx.Search(bleve.NewSearchRequest(q))
		e.release(p)
		require.NoError(t, err)
		require.Len(t, res.Hits, 1)
		assert.False(t, math.IsNaN(res.Hits[0].Score), "%#v", n)
	}
}

// TestPhrasesStayInsideAValue: a conversation's thread bodies are one
// exact field with an empty position between them (phrasefield.go), so a
// phrase matches inside one body and never across two, whether it is
// scored (Bleve's phrase searcher, in Query) or not (plainPhrase, in
// Filter); and the field holds no array positions.
func TestPhrasesStayInsideAValue(t *testing.T) {
	e, err := Open(t.TempDir())
	require.NoError(t, err)
	defer e.Close()
	d := conversation("1", 1, "refund")
	d.Texts["body"] = []string{"Alpha beta", "gamma delta", "epsilon"}
	apply(t, e, index.Batch{Kind: index.Conversations, Company: 1, Upserts: []index.Document{d}})

	for _, tc := range []struct {
		phrase string
		want   []string
	}{
		{"alpha beta", []string{"1"}},
		{"gamma delta", []string{"1"}},
		{"delta epsilon", []string{}},
		{"beta gamma", []string{}},
		{"beta gamma delta", []string{}},
	} {
		phrase := query.Phrase{Field: "body", Text: tc.phrase}
		for name, req := range map[string]index.Request{
			"scored":   {Kind: index.Conversations, Company: 1, Query: phrase, Limit: 10},
			"unscored": {Kind: index.Conversations, Company: 1, Filter: phrase, Limit: 10},
		} {
			res, err := e.Search(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.IDs, "%s %q", name, tc.phrase)
		}
	}

	hit := firstPosting(t, e, 1, index.ExactField("body"), "gamma")
	require.Len(t, hit.Vectors, 1)
	assert.Equal(t, uint64(4), hit.Vectors[0].Pos, "after alpha, beta and the empty position")
	assert.Empty(t, hit.Vectors[0].ArrayPositions)
}
