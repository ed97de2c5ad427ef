package transfer

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// Side is one end of a copy: its records and its search engine, as the
// API sees it (embedded, a Router: its plain lists go to the list engine,
// the rest to Bleve; on PostgreSQL, pgindex).
type Side struct {
	Store  parley.Store
	Search index.Engine
}

// Answer is one fixed search run on both sides.
type Answer struct {
	Company        int64
	Search         string
	Source, Target index.Result
}

// Same says whether both sides answered the same ids in the same order,
// and the same total.
func (a Answer) Same() bool {
	return a.Source.Total == a.Target.Total && slices.Equal(a.Source.IDs, a.Target.IDs)
}

// search is one fixed search: a query (scored, the full engine) or a filter
// alone (a plain list, the list engine), in an order.
type search struct {
	name          string
	kind          index.Kind
	query, filter string
	sort          index.Sort
}

// pageSize is how many ids each search compares.
const pageSize = 100

// searches are the fixed searches of a company; the words some look for are
// taken from its newest conversation and customer, so they find something.
// None sorts by score: each engine scores relevance its own way (Bleve by
// tf-idf, PostgreSQL by the clauses matched), so only other orders are
// the same across backends.
func searches(newest *parley.Conversation, customer *parley.Customer) []search {
	out := []search{
		{name: "every conversation, newest first", kind: index.Conversations, sort: index.Sort{Field: "createdAt", Desc: true}},
		{name: "active conversations by number (a plain list)", kind: index.Conversations, filter: "status:active", sort: index.Sort{Field: "number"}},
		{name: "closed conversations, last modified first", kind: index.Conversations, filter: "status:closed", sort: index.Sort{Field: "modifiedAt", Desc: true}},
		{name: "conversations open or pending (a query)", kind: index.Conversations, query: "status:active OR status:pending", sort: index.Sort{Field: "waitingSince"}},
		{name: "every customer, newest first", kind: index.Customers, sort: index.Sort{Field: "createdAt", Desc: true}},
		{name: "customers by last name", kind: index.Customers, filter: "lastName:*", sort: index.Sort{Field: "lastNameSort"}},
	}
	if newest != nil {
		if words := index.Tokens(newest.Subject); len(words) > 0 {
			out = append(out, search{name: "conversations by a word of the newest subject", kind: index.Conversations,
				query: "subject:" + strconv.Quote(words[0]), sort: index.Sort{Field: "createdAt", Desc: true}})
		}
	}
	if customer != nil && customer.FirstName != "" {
		out = append(out, search{name: "customers by the newest one's first name", kind: index.Customers,
			query: "firstName:" + strconv.Quote(customer.FirstName), sort: index.Sort{Field: "id"}})
	}
	return out
}

// Searches runs the fixed searches of a company on both sides and returns
// their answers; now resolves date math.
func Searches(ctx context.Context, from, to Side, company int64, now time.Time) ([]Answer, error) {
	var (
		boxes    []parley.Mailbox
		newest   *parley.Conversation
		customer *parley.Customer
	)
	err := from.Store.View(ctx, func(tx parley.Tx) error {
		var err error
		if boxes, err = tx.Mailboxes(company); err != nil {
			return err
		}
		newest, customer, err = newestRecords(ctx, from.Search, tx, company)
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []Answer
	for _, s := range searches(newest, customer) {
		req, err := s.request(company, boxes, now)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", s.name, err)
		}
		a := Answer{Company: company, Search: s.name}
		if a.Source, err = from.Search.Search(ctx, req); err != nil {
			return nil, fmt.Errorf("search %q in the source: %w", s.name, err)
		}
		if a.Target, err = to.Search.Search(ctx, req); err != nil {
			return nil, fmt.Errorf("search %q in the target: %w", s.name, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// newestRecords finds the company's newest conversation and customer, each
// nil when it has none.
func newestRecords(ctx context.Context, engine index.Engine, tx parley.Tx, company int64) (*parley.Conversation, *parley.Customer, error) {
	first := func(kind index.Kind) (int64, bool, error) {
		res, err := engine.Search(ctx, index.Request{Kind: kind, Company: company, Limit: 1,
			Sort: []index.Sort{{Field: "createdAt", Desc: true}}})
		if err != nil || len(res.IDs) == 0 {
			return 0, false, err
		}
		id, err := strconv.ParseInt(res.IDs[0], 10, 64)
		return id, err == nil, err
	}
	var (
		conv *parley.Conversation
		cust *parley.Customer
	)
	id, ok, err := first(index.Conversations)
	if ok {
		conv, err = tx.Conversation(company, id)
	}
	if err != nil {
		return nil, nil, err
	}
	if id, ok, err = first(index.Customers); ok {
		cust, err = tx.Customer(company, id)
	}
	return conv, cust, err
}

// request is the search as an engine request.
func (s *search) request(company int64, boxes []parley.Mailbox, now time.Time) (index.Request, error) {
	schema := index.CustomerSchema
	if s.kind == index.Conversations {
		schema = index.ConversationSchemaFor(boxes)
	}
	req := index.Request{Kind: s.kind, Company: company, Sort: []index.Sort{s.sort}, Limit: pageSize}
	var err error
	if req.Query, err = compile(s.query, schema, now); err != nil {
		return req, err
	}
	req.Filter, err = compile(s.filter, schema, now)
	return req, err
}

// compile parses and checks a query; an empty one is nil (everything).
func compile(q string, schema query.Schema, now time.Time) (query.Node, error) {
	if q == "" {
		return nil, nil
	}
	n, err := query.Parse(q)
	if err != nil {
		return nil, err
	}
	return query.Check(n, schema, now)
}
