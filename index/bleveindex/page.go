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

// Bleve's collector reads every sort field of every hit from its doc
// values before comparing: for query 1 at 1M (81,397 hits ranked by
// relevance for a page of 25) the tie-breaks' doc values were 46% of its
// CPU, and for query 2 (8,992 hits by date) a third. A sortedPage is
// handed each hit by Bleve's collector instead, told to sort by score
// alone (so it reads no doc values), and keeps the best Offset+Limit
// itself. Its sort keys are sortable numbers (a relevance score first,
// when ranked), read from the partition's columns (column.go) rather than
// doc values; a ranked page compares them only when a hit's score reaches
// the worst it keeps. The order is sortOrder's: the sorts in turn, a
// missing value last, as Bleve orders them.

// maxSortedPage bounds the hits a sortedPage keeps; deeper pages go
// through Bleve's own collector.
const maxSortedPage = 1000

// pageSorts reports the sorts of a request a sortedPage can keep, all of
// them sortable numbers but a leading relevance score (ranked), as their
// doc-value fields; false for any other order.
func pageSorts(kind index.Kind, r index.Request) (sorts []index.Sort, ranked bool, ok bool) {
	if r.Limit <= 0 || r.Offset+r.Limit > maxSortedPage {
		return nil, false, false
	}
	if _, ok := index.FieldOf(kind, "id"); !ok {
		return nil, false, false // ties end on the document id: Bleve's own order
	}
	all := index.TieBreak(kind, r.Sort)
	if all[0].Field == index.ScoreField {
		if !all[0].Desc {
			return nil, false, false
		}
		ranked, all = true, all[1:]
	}
	for _, s := range all {
		f, ok := index.FieldOf(kind, s.Field)
		if !ok || f.Type != index.NumberField || !f.Sortable {
			return nil, false, false
		}
		sorts = append(sorts, index.Sort{Field: sortField(s.Field), Desc: s.Desc})
	}
	return sorts, ranked, true
}

// pageHit is a hit a sortedPage keeps: its score, its sort keys (0 for a
// missing value) and its internal id.
type pageHit struct {
	score float64
	keys  []uint64
	id    bi.IndexInternalID
}

// sortedPage keeps the best hits, worst on top of the heap.
type sortedPage struct {
	cols   *columns
	sorts  []index.Sort
	ranked bool // the score comes first
	keep   int
	hits   []pageHit
	ids    []string // the page, once the search is over
	offset int
}

func newSortedPage(cols *columns, sorts []index.Sort, ranked bool, offset, limit int) *sortedPage {
	return &sortedPage{cols: cols, sorts: sorts, ranked: ranked, keep: offset + limit, offset: offset}
}

// before reports whether a ranks before b.
func (p *sortedPage) before(a, b *pageHit) bool {
	if p.ranked && a.score != b.score {
		return a.score > b.score
	}
	for i, s := range p.sorts {
		x, y := a.keys[i], b.keys[i]
		if x == y {
			continue
		}
		if x == 0 || y == 0 {
			return y == 0 // a missing value last
		}
		if s.Desc {
			return x > y
		}
		return x < y
	}
	return false
}

// heap.Interface, worst first.
func (p *sortedPage) Len() int           { return len(p.hits) }
func (p *sortedPage) Less(i, j int) bool { return p.before(&p.hits[j], &p.hits[i]) }
func (p *sortedPage) Swap(i, j int)      { p.hits[i], p.hits[j] = p.hits[j], p.hits[i] }
func (p *sortedPage) Push(x any)         { p.hits = append(p.hits, x.(pageHit)) }
func (p *sortedPage) Pop() any {
	last := p.hits[len(p.hits)-1]
	p.hits = p.hits[:len(p.hits)-1]
	return last
}

// handler is the collector's hit handler (search.MakeDocumentMatchHandler).
func (p *sortedPage) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	fields := make([]string, len(p.sorts))
	for i, s := range p.sorts {
		fields[i] = s.Field
	}
	view, err := p.cols.view(sctx.IndexReader, fields)
	if err != nil {
		return nil, false, err
	}
	hit := pageHit{keys: make([]uint64, len(fields))}
	return func(d *search.DocumentMatch) error {
		if d == nil {
			return p.finish(sctx.IndexReader)
		}
		defer sctx.DocumentMatchPool.Put(d)
		full := len(p.hits) == p.keep
		if full && p.ranked && d.Score < p.hits[0].score {
			return nil
		}
		hit.score = d.Score
		view.keys(d.IndexInternalID.Value(), hit.keys)
		if full && !p.before(&hit, &p.hits[0]) {
			return nil
		}
		kept := pageHit{score: hit.score, keys: slices.Clone(hit.keys), id: slices.Clone(d.IndexInternalID)} // d goes back to the pool
		if full {
			p.hits[0] = kept
			heap.Fix(p, 0)
			return nil
		}
		heap.Push(p, kept)
		return nil
	}, false, nil
}

// finish orders what was kept and resolves the page's external ids.
func (p *sortedPage) finish(r bi.IndexReader) error {
	slices.SortFunc(p.hits, func(a, b pageHit) int {
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
func (p *sortedPage) collecting(ctx context.Context) context.Context {
	return context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(p.handler))
}
