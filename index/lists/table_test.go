package lists_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/index/lists"
	"github.com/parley/parley/index/scan"
	"github.com/parley/parley/query"
)

// TestReportRowsFollowWrites: report rows replaced, removed (by company
// and by any company), compacted when dead rows pile up, and saved and
// restored, aggregate and facet as the oracle fed the same batches does.
func TestReportRowsFollowWrites(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	engine, oracle := lists.New(), scan.New()
	apply := func(b index.Batch) {
		require.NoError(t, engine.Apply(ctx, b, nil))
		require.NoError(t, oracle.Apply(ctx, b, nil))
	}
	message := func(id int, company int64) index.Document {
		d := index.NewDocument(messageID(id, company), company)
		d.Keywords["from"] = []string{[]string{"user", "customer"}[r.IntN(2)]}
		// Times in whole seconds and with milliseconds, seconds whole,
		// fractional and negative: numbers held in their code and not.
		created := epoch + float64(r.IntN(1_000_000))
		if r.IntN(2) == 0 {
			created = epoch + 1000*float64(r.IntN(1000))
		}
		d.Numbers["createdAt"] = []float64{created}
		d.Numbers["userId"] = []float64{float64(1 + r.IntN(5))}
		if r.IntN(3) == 0 {
			d.Keywords["rating"] = []string{[]string{"great", "okay", "not-good"}[r.IntN(3)]}
			second := float64(r.IntN(100))
			switch r.IntN(4) {
			case 0:
				second += 0.5
			case 1:
				second = -second
			}
			d.Numbers["responseSeconds"] = []float64{float64(r.IntN(100)), second}
		}
		for k := r.IntN(3); k > 0; k-- {
			d.Keywords["tag"] = append(d.Keywords["tag"], fmt.Sprint("tag", r.IntN(4)))
		}
		return d
	}
	const messages = 3000
	for round := 0; round < 4; round++ {
		for _, company := range []int64{1, 2} {
			var upserts []index.Document
			for i := 0; i < messages; i++ {
				if round == 0 || r.IntN(2) == 0 {
					upserts = append(upserts, message(i, company))
				}
			}
			apply(index.Batch{Kind: index.Messages, Company: company, Upserts: upserts})
		}
		company := []int64{0, 1, 2}[round%3] // 0: from every company
		var gone []string
		for i := 0; i < messages/10; i++ {
			of := company
			if of == 0 {
				of = int64(1 + r.IntN(2))
			}
			gone = append(gone, messageID(r.IntN(messages), of))
		}
		apply(index.Batch{Kind: index.Messages, Company: company, Deletes: gone})
	}
	path, mark := filepath.Join(t.TempDir(), "lists.snapshot"), lists.Mark{Store: 1, Seq: 1}
	require.NoError(t, engine.Save(path, mark))
	restored := lists.New()
	ok, err := restored.Restore(path, mark)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, restored.WaitReports())

	from, since := 20.0, float64(epoch+200_000)
	filters := []query.Node{nil, query.Keyword{Field: "from", Value: "user"}, query.Keyword{Field: "tag", Value: "tag2"},
		query.NumberRange{Field: "createdAt", Min: &since, MinInclusive: true},
		query.Not{Node: query.FieldExists{Field: "rating"}}, query.Keyword{Field: "rating", Value: "unheard-of"}}
	for _, company := range []int64{1, 2, 3} {
		for i, filter := range filters {
			a := index.AggregateRequest{Kind: index.Messages, Company: company, Filter: filter, By: "createdAt",
				Edges: []float64{epoch, epoch + 100_000, epoch + 500_000, epoch + 1_000_000}, GroupBy: []string{"userId", "tag"}, Sums: []string{"responseSeconds"},
				Distinct: []string{"rating", "from"}}
			f := index.FacetRequest{Kind: index.Messages, Company: company, Filter: filter,
				Values: map[string]string{"rating": "rating", "user": "userId", "tag": "tag", "response": "responseSeconds"},
				Ranges: map[string]index.RangeFacet{"created": {Field: "responseSeconds", Buckets: []index.Bucket{{Max: &from}, {Min: &from}}}}}
			require.True(t, engine.AggregateSupported(a))
			require.True(t, engine.FacetsSupported(f))
			want, err := oracle.Aggregate(ctx, a)
			require.NoError(t, err)
			wantFacets, err := oracle.Facets(ctx, f)
			require.NoError(t, err)
			for name, e := range map[string]*lists.Engine{"applied": engine, "restored": restored} {
				got, err := e.Aggregate(ctx, a)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s, company %d, filter %d", name, company, i)
				gotFacets, err := e.Facets(ctx, f)
				require.NoError(t, err)
				require.Equal(t, wantFacets, gotFacets, "%s, company %d, filter %d", name, company, i)
			}
		}
	}
}

// epoch is a time in Unix milliseconds, a whole second.
const epoch float64 = 1_764_547_200_000

// messageID is the id of a message document: ids are unique across
// companies, as record ids are.
func messageID(i int, company int64) string {
	return fmt.Sprintf("%d-%d", company*100_000+int64(i/4), i)
}

// TestReportRowsRefuse: what report rows do not hold goes to the full
// engine.
func TestReportRowsRefuse(t *testing.T) {
	e := lists.New()
	for name, r := range map[string]index.AggregateRequest{
		"customers":           {Kind: index.Customers, Company: 1},
		"a text filter":       {Kind: index.Conversations, Company: 1, Filter: query.Match{Field: "subject", Text: "refund"}},
		"a custom field":      {Kind: index.Conversations, Company: 1, Filter: query.Keyword{Field: index.CustomKeywordPrefix + "7", Value: "x"}},
		"a sort key":          {Kind: index.Conversations, Company: 1, Filter: query.Keyword{Field: "subjectSort", Value: "x"}},
		"a keyword prefix":    {Kind: index.Messages, Company: 1, Filter: query.Prefix{Field: "rating", Value: "gr"}},
		"an invalid request":  {Kind: index.Messages, Company: 1, Sums: []string{"rating"}},
		"a custom number sum": {Kind: index.Conversations, Company: 1, Sums: []string{index.CustomNumberPrefix + "7"}},
	} {
		require.False(t, e.AggregateSupported(r), name)
	}
	require.False(t, e.FacetsSupported(index.FacetRequest{Kind: index.Messages, Company: 1, Values: map[string]string{"m": "mailboxId"}}),
		"a number that is not Valued")
}
