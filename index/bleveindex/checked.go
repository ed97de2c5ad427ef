package bleveindex

import (
	"github.com/blevesearch/bleve/v2/search"
	bi "github.com/blevesearch/bleve_index_api"
)

// checked passes on the candidates of a searcher that a check accepts: a
// range read from doc values (narrowed.go), a phrase's positions
// (phrase.go). Everything else is the candidates' searcher's.
type checked struct {
	search.Searcher
	holds func(*search.DocumentMatch) (bool, error)
}

func (c *checked) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := c.Searcher.Next(ctx)
	return c.first(ctx, d, err)
}

func (c *checked) Advance(ctx *search.SearchContext, id bi.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := c.Searcher.Advance(ctx, id)
	return c.first(ctx, d, err)
}

// closeSearchers closes the searchers built so far, when building the
// rest failed.
func closeSearchers(ss []search.Searcher) {
	for _, s := range ss {
		_ = s.Close()
	}
}

// first is d when the check accepts it, else the next candidate it does.
func (c *checked) first(ctx *search.SearchContext, d *search.DocumentMatch, err error) (*search.DocumentMatch, error) {
	for d != nil && err == nil {
		ok, cerr := c.holds(d)
		if cerr != nil {
			return nil, cerr
		}
		if ok {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
		d, err = c.Searcher.Next(ctx)
	}
	return nil, err
}
