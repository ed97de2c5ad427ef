package bleveindex

import (
	"cmp"
	"container/heap"
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2/search"
	bi "github.com/blevesearch/bleve_index_api"

	"github.com/parley/parley/index"
)

// A search ranked by relevance ends on two tie-breaks (the newest first,
// then the highest id), and Bleve's collector reads every sort field of
// every hit before comparing: for query 1 at 1M (81,397 hits for a page of
// 25), reading the tie-breaks' doc values was 46% of its CPU. Yet a hit
// scoring below the page's worst cannot enter it, whatever its
// tie-breaks. A rankedPage is handed each hit by Bleve's collector, told
// to sort by score alone (so it reads no doc values), and keeps the best
// Offset+Limit itself: it reads a hit's tie-breaks only when its score
// reaches the worst it keeps. The order is the same: score descending,
// then the tie-breaks, a missing value last, as sortOrder asks of Bleve.

// maxRankedPage bounds the hits a rankedPage keeps; deeper pages go
// through Bleve's own collector.
const maxRankedPage = 1000

// rankedSort reports the tie-breaks, as doc-value fields, of a request
// ranked by relevance alone, or false for any other order.
func rankedSort(kind index.Kind, r index.Request) ([]index.Sort, bool) {
	if len(r.Sort) != 1 || r.Sort[0].Field != index.ScoreField || !r.Sort[0].Desc ||
		r.Limit <= 0 || r.Offset+r.Limit > maxRankedPage {
		return nil, false
	}
	if _, ok := index.FieldOf(kind, "id"); !ok {
		return nil, false // ties end on the document id: Bleve's own order
	}
	var ties []index.Sort
	for _, s := range index.TieBreak(kind, r.Sort)[1:] {
		ties = append(ties, index.Sort{Field: sortField(s.Field), Desc: s.Desc})
	}
	return ties, true
}

// rankedHit is a hit a rankedPage keeps: its score, its tie-breaks' values
// ("" for a missing one) and its internal id.
type rankedHit struct {
	score float64
	keys  []string
	id    bi.IndexInternalID
}

// rankedPage keeps the best hits, worst on top of the heap.
type rankedPage struct {
	ties   []index.Sort
	keep   int
	hits   []rankedHit
	ids    []string // the page, once the search is over
	offset int
}

func newRankedPage(ties []index.Sort, offset, limit int) *rankedPage {
	return &rankedPage{ties: ties, keep: offset + limit, offset: offset}
}

// before reports whether a ranks before b.
func (p *rankedPage) before(a, b *rankedHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	for i, t := range p.ties {
		x, y := a.keys[i], b.keys[i]
		if x == y {
			continue
		}
		if x == "" || y == "" {
			return y == "" // a missing value last
		}
		if t.Desc {
			return x > y
		}
		return x < y
	}
	return false
}

// heap.Interface, worst first.
func (p *rankedPage) Len() int           { return len(p.hits) }
func (p *rankedPage) Less(i, j int) bool { return p.before(&p.hits[j], &p.hits[i]) }
func (p *rankedPage) Swap(i, j int)      { p.hits[i], p.hits[j] = p.hits[j], p.hits[i] }
func (p *rankedPage) Push(x any)         { p.hits = append(p.hits, x.(rankedHit)) }
func (p *rankedPage) Pop() any {
	last := p.hits[len(p.hits)-1]
	p.hits = p.hits[:len(p.hits)-1]
	return last
}

// handler is the collector's hit handler (search.MakeDocumentMatchHandler).
func (p *rankedPage) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	fields := make([]string, len(p.ties))
	for i, t := range p.ties {
		fields[i] = t.Field
	}
	dv, err := sctx.IndexReader.DocValueReader(fields)
	if err != nil {
		return nil, false, err
	}
	return func(d *search.DocumentMatch) error {
		if d == nil {
			return p.finish(sctx.IndexReader)
		}
		defer sctx.DocumentMatchPool.Put(d)
		full := len(p.hits) == p.keep
		if full && d.Score < p.hits[0].score {
			return nil
		}
		hit := rankedHit{score: d.Score, keys: make([]string, len(fields))}
		err := dv.VisitDocValues(d.IndexInternalID, func(field string, term []byte) {
			// A field with several terms sorts by its first, as
			// Bleve's default sort mode does.
			if i := slices.Index(fields, field); i >= 0 && hit.keys[i] == "" {
				hit.keys[i] = string(term)
			}
		})
		if err != nil {
			return err
		}
		if full && !p.before(&hit, &p.hits[0]) {
			return nil
		}
		hit.id = slices.Clone(d.IndexInternalID) // d goes back to the pool
		if full {
			p.hits[0] = hit
			heap.Fix(p, 0)
			return nil
		}
		heap.Push(p, hit)
		return nil
	}, false, nil
}

// finish orders what was kept and resolves the page's external ids.
func (p *rankedPage) finish(r bi.IndexReader) error {
	slices.SortFunc(p.hits, func(a, b rankedHit) int {
		switch {
		case p.before(&a, &b):
			return -1
		case p.before(&b, &a):
			return 1
		}
		return cmp.Compare(string(a.id), string(b.id))
	})
	p.ids = make([]string, 0, max(len(p.hits)-p.offset, 0))
	for _, h := range p.hits[min(p.offset, len(p.hits)):] {
		id, err := r.ExternalID(h.id)
		if err != nil {
			return err
		}
		p.ids = append(p.ids, id)
	}
	return nil
}

// collecting hands the page to Bleve's collector through ctx.
func (p *rankedPage) collecting(ctx context.Context) context.Context {
	return context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(p.handler))
}
