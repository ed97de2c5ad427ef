package search

import (
	"context"
	"errors"
	"strings"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Deps are what a search reads: the store (the company's mailboxes, for
// custom fields and saved views; the saved view a folder names), the
// engine, and the time of the request (date math, the month facet).
type Deps struct {
	Store  parley.Store
	Engine index.Engine
	Now    time.Time
}

// Page is what a search answers: one page of ids in order, the number of
// matches in all, the corrected queries of a text search that found
// nothing (see index.Suggest), and the facets asked for (nil when none
// were).
type Page struct {
	IDs         []int64
	Total       int
	Suggestions []string
	Facets      map[string]map[string]int
}

// run runs one search for a page and, when asked, its suggestions.
func run(ctx context.Context, e index.Engine, r index.Request, text string, suggest bool) (*Page, error) {
	res, err := e.Search(ctx, r)
	if err != nil {
		return nil, err
	}
	page := &Page{IDs: index.ParseIDs(res.IDs), Total: res.Total}
	if suggest && r.Query != nil && res.Total == 0 {
		if page.Suggestions, err = index.Suggest(ctx, e, r, text); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// parse parses and checks a list's query text against schema; nil text
// is no query. A text that does not parse or check is `Invalid query`
// on `query`, with the checker's message (which gives the column).
func parse(text *string, schema func(syntax query.Node) (query.Schema, error), now time.Time) (query.Node, error) {
	if text == nil {
		return nil, nil
	}
	syntax, err := query.Parse(*text)
	if err == nil {
		var s query.Schema
		if s, err = schema(syntax); err != nil {
			return nil, err
		}
		var checked query.Node
		if checked, err = query.Check(syntax, s, now); err == nil {
			return checked, nil
		}
	}
	var qe *query.Error
	if !errors.As(err, &qe) {
		return nil, err
	}
	return nil, parley.Invalid("query", "query", parley.CodeInvalidCondition, qe.Message, *text)
}

// namesCustomField reports whether a query's syntax names a custom field
// (cf<id>), whose schema needs the company's mailboxes.
func namesCustomField(n query.Node) bool {
	custom := func(name string) bool {
		return len(name) > len(index.CustomFieldPrefix) && strings.EqualFold(name[:len(index.CustomFieldPrefix)], index.CustomFieldPrefix)
	}
	switch n := n.(type) {
	case query.Field:
		return custom(n.Field)
	case query.Range:
		return custom(n.Field)
	case query.Exists:
		return custom(n.Field)
	case query.Not:
		return namesCustomField(n.Node)
	case query.And:
		for _, c := range n.Nodes {
			if namesCustomField(c) {
				return true
			}
		}
	case query.Or:
		for _, c := range n.Nodes {
			if namesCustomField(c) {
				return true
			}
		}
	}
	return false
}

// mailboxes reads a company's mailboxes once, when first needed: a list
// needs them only for custom fields and saved views, and reading them for
// every list was a fifth of the time of a one-hit list (query 8 of the
// benchmark).
type mailboxes struct {
	ctx     context.Context
	store   parley.Store
	company int64
	read    bool
	boxes   []parley.Mailbox
	err     error
}

func (m *mailboxes) get() ([]parley.Mailbox, error) {
	if !m.read {
		m.read = true
		m.err = m.store.View(m.ctx, func(tx parley.Tx) (err error) {
			m.boxes, err = tx.Mailboxes(m.company)
			return err
		})
	}
	return m.boxes, m.err
}
