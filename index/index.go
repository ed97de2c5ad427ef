// Package index is Parley's search contract: the Engine interface every
// search engine implements (Document, Batch, Request, Result), the field
// catalog of each document kind, text analysis, the schemas of custom
// fields, the facets contract, the Router that sends cheap lists to the
// list engine, and spelling suggestions. It reads no storage: package
// indexer builds documents from stored records and drains the storage
// outbox into an engine.
//
// Engines receive checked query nodes (package query) and never see HTTP.
// The Bleve engine lives in index/bleveindex, the PostgreSQL engine in
// index/pgindex and the in-memory list engine in index/lists; index/scan
// is a brute-force engine used as the oracle in tests and the baseline in
// benchmarks.
package index

import (
	"context"
	"strconv"

	"github.com/parley/parley/query"
)

// Kind is a document kind; each kind has its own catalog and index.
type Kind string

// Document kinds.
const (
	Conversations Kind = "conversation"
	Customers     Kind = "customer"
	Chats         Kind = "chat"
	Calls         Kind = "call"    // one per phone thread, for the phone report
	Messages      Kind = "message" // one per user reply or customer message
)

// Kinds lists every document kind.
var Kinds = []Kind{Conversations, Customers, Chats, Calls, Messages}

// Document is what an engine indexes for one record. Dates are stored as
// Numbers in Unix milliseconds. Every document carries its company.
type Document struct {
	ID       string
	Company  int64
	Keywords map[string][]string  // exact values, lowercased
	Texts    map[string][]string  // analysed (see Tokens, Stems); one entry per value, phrases do not cross values
	Numbers  map[string][]float64 // numbers and dates
}

// NewDocument returns an empty document.
func NewDocument(id string, company int64) Document {
	return Document{ID: id, Company: company, Keywords: map[string][]string{}, Texts: map[string][]string{}, Numbers: map[string][]float64{}}
}

// Present lists the document's fields that hold at least one value, for
// `field:*` (exists) queries.
func (d *Document) Present() []string {
	var out []string
	for f, v := range d.Keywords {
		if len(v) > 0 {
			out = append(out, f)
		}
	}
	for f, v := range d.Texts {
		if len(v) > 0 {
			out = append(out, f)
		}
	}
	for f, v := range d.Numbers {
		if len(v) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// Sort orders results by one field. Field "score" orders by relevance.
type Sort struct {
	Field string
	Desc  bool
}

// ScoreField is the pseudo field that orders by relevance: BM25 over the
// query's text clauses (see the Weight of catalog fields).
const ScoreField = "score"

// TieBreak is the whole order of a request: its sorts, then, after a score
// sort, the newest first (createdAt descending) and the highest id; after
// any other sort, the numeric id in the direction of the last sort. Kinds
// without a numeric id break the last ties on the document id, in the
// direction of the last element.
func TieBreak(kind Kind, sorts []Sort) []Sort {
	out := append([]Sort{}, sorts...)
	desc := true
	for _, s := range sorts {
		desc = s.Desc
	}
	for _, s := range sorts {
		if s.Field != ScoreField {
			continue
		}
		if _, ok := FieldOf(kind, "createdAt"); ok {
			out = append(out, Sort{Field: "createdAt", Desc: true})
		}
		desc = true
		break
	}
	if _, ok := FieldOf(kind, "id"); ok {
		out = append(out, Sort{Field: "id", Desc: desc})
	}
	return out
}

// Request is one search. Company is mandatory: engines always AND it.
type Request struct {
	Kind    Kind
	Company int64
	Query   query.Node // scored: what the user searched for; nil means all
	Filter  query.Node // not scored: list parameters; nil means all
	Sort    []Sort     // engines append the id as the final tie-break
	Offset  int
	Limit   int // 0 counts only
}

// Result holds ids in order and the total number of matches.
type Result struct {
	IDs   []string
	Total int
}

// Batch is one write to an engine: documents of one kind and one company
// to index, and ids of that kind and company to remove. Engines may keep
// each company apart (bleveindex keeps a partition per company), which is
// why a batch never mixes companies. Company is 0 only for deletions whose
// company is unknown (an outbox entry written before entries named their
// company, for a record since gone): engines then remove the ids from
// every company.
type Batch struct {
	Kind    Kind
	Company int64
	Upserts []Document
	Deletes []string
}

// Engine is a search engine over documents.
type Engine interface {
	// Apply indexes the batch's upserts and removes its deletes,
	// atomically per call where the engine can. The batch is searchable
	// when Apply returns. durable, when not nil, is called once the batch
	// would survive a crash (possibly before Apply returns, or with the
	// error that prevented it); the syncer acknowledges the outbox only
	// then. It may be called from several goroutines at once: the syncer
	// applies the batches of one read (distinct kinds and companies)
	// concurrently.
	Apply(ctx context.Context, b Batch, durable func(error)) error
	// Search runs a request.
	Search(ctx context.Context, r Request) (Result, error)
	// Close releases the engine.
	Close() error
}

// FormatID renders a numeric record id as a document id.
func FormatID(id int64) string { return strconv.FormatInt(id, 10) }

// ParseIDs turns document ids back into record ids.
func ParseIDs(ids []string) []int64 {
	out := make([]int64, 0, len(ids))
	for _, s := range ids {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
