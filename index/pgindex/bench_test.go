package pgindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// BenchmarkSearch times typical list and text searches over one company's
// generated conversations: go test ./index/pgindex -bench Search -benchdocs 20000
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	url := pgtestDatabase(b)
	e, err := Open(ctx, url, Options{})
	require.NoError(b, err)
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"refund", "order", "invoice", "password", "login", "shipping", "tracking", "number", "card", "help"}
	statuses := []string{"active", "pending", "closed", "spam"}
	for start := 0; start < *benchDocs; start += 2000 {
		var docs []index.Document
		for i := start; i < min(start+2000, *benchDocs); i++ {
			d := index.NewDocument(index.FormatID(int64(i+1)), 1)
			d.Numbers["id"] = []float64{float64(i + 1)}
			d.Numbers["createdAt"] = []float64{float64(r.IntN(1 << 30))}
			d.Keywords["status"] = []string{statuses[r.IntN(len(statuses))]}
			d.Texts["subject"] = []string{words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]}
			d.Texts["body"] = []string{fmt.Sprintf("%s %s %s %d", words[r.IntN(10)], words[r.IntN(10)], words[r.IntN(10)], i)}
			docs = append(docs, d)
		}
		require.NoError(b, e.Apply(ctx, index.Batch{Kind: index.Conversations, Company: 1, Upserts: docs}, nil))
	}
	require.NoError(b, e.Settle(ctx))
	byDate := []index.Sort{{Field: "createdAt", Desc: true}}
	for name, req := range map[string]index.Request{
		"status sorted by date": {Filter: query.Keyword{Field: "status", Value: "active"}, Sort: byDate},
		"text sorted by date":   {Query: query.Match{Field: "body", Text: "refund order"}, Sort: byDate},
		"phrase":                {Query: query.Phrase{Field: "body", Text: "tracking number"}, Sort: byDate},
		"count only":            {Filter: query.Keyword{Field: "status", Value: "active"}},
	} {
		req.Kind, req.Company = index.Conversations, 1
		if req.Sort != nil {
			req.Limit = 25
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Search(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
