package api

import (
	"github.com/gin-gonic/gin"
	parley "github.com/parley/parley"
)

// listRecords answers a paged list (50 a page) of records a company holds
// few of (users, teams, mailboxes, tags): load reads them all in one
// transaction, keep filters them (nil keeps all), render makes one item.
// Lists of many records are served by the search engine instead.
func listRecords[T, V any](s *Server, c *gin.Context, p *params, name string,
	load func(tx parley.Tx, companyID int64) ([]T, error), keep func(*T) bool, render func(*T) (V, error)) error {
	pg := page{size: DefaultPageSize, number: p.page()}
	if err := p.err(); err != nil {
		return err
	}
	var records []T
	err := s.store.View(c.Request.Context(), func(tx parley.Tx) error {
		all, err := load(tx, caller(c).Company.ID)
		for i := range all {
			if keep == nil || keep(&all[i]) {
				records = append(records, all[i])
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	pg.total = len(records)
	var items []V
	for _, r := range pageOf(records, pg) {
		item, err := render(&r)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	renderPage(s, c, name, items, pg)
	return nil
}
