package api

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/index"
	"github.com/parley/parley/query"
)

// CodeInvalidQuery is Parley's code for a `query` that does not parse or
// check; the error table has no closer one. A workflow condition that does
// not check answers the same code.
const CodeInvalidQuery = parley.CodeInvalidCondition

// rawQueryParam reads a parameter keeping a literal `+` where the client
// meant one. Form-style clients send spaces as `+` (and a real plus as
// %2B); RFC 3986-style clients send spaces as %20 and may leave `+` raw,
// as in an unencoded `john+tag@example.com`. A value holding %20 is
// therefore read with `+` kept literal; any other value form-style.
func rawQueryParam(c *gin.Context, name string) (string, bool, error) {
	for _, pair := range strings.Split(c.Request.URL.RawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err != nil || key != name {
			continue
		}
		if strings.Contains(v, "%20") {
			v = strings.ReplaceAll(v, "+", "%2B")
		}
		value, err := url.QueryUnescape(v)
		return value, true, err
	}
	return "", false, nil
}

// parseQuery turns `query=` into checked query nodes.
func (s *Server) parseQuery(c *gin.Context, schema query.Schema) (query.Node, error) {
	text, ok, err := rawQueryParam(c, "query")
	if err != nil {
		return nil, parley.Invalid("query", "query", parley.CodeInvalidURI, "the query is not correctly URL-encoded", c.Query("query"))
	}
	if !ok {
		return nil, nil
	}
	syntax, err := query.Parse(text)
	if err == nil {
		var checked query.Node
		if checked, err = query.Check(syntax, schema, s.now()); err == nil {
			return checked, nil
		}
	}
	var qe *query.Error
	if !errors.As(err, &qe) {
		return nil, err
	}
	return nil, parley.Invalid("query", "query", CodeInvalidQuery, qe.Message, text)
}

// suggest proposes corrected queries when a search of `query=` found
// nothing (see index.Suggest); it returns none otherwise.
func (s *Server) suggest(c *gin.Context, r index.Request, total int) ([]string, error) {
	if r.Query == nil || total > 0 {
		return nil, nil
	}
	text, _, err := rawQueryParam(c, "query")
	if err != nil {
		return nil, err // parseQuery read it already: unreachable
	}
	return index.Suggest(c.Request.Context(), s.cfg.Engine, r, text)
}

// customFieldFilters reads customFieldsByIds: `<fieldId>:<value>` pairs,
// repeated or comma-joined, ANDed; the fields must belong to one of the
// listed mailboxes, so `mailbox` is required.
func customFieldFilters(p *params, mailboxes func() []parley.Mailbox, mailboxIDs []int64) []query.Node {
	pairs := p.list("customFieldsByIds")
	if len(pairs) == 0 {
		return nil
	}
	if len(mailboxIDs) == 0 {
		p.problems.Add("mailbox", parley.CodeMissingParameter, "customFieldsByIds requires the mailbox parameter", nil)
		return nil
	}
	defs := map[int64]parley.FieldDef{}
	for _, m := range mailboxes() {
		if slices.Contains(mailboxIDs, m.ID) {
			for _, f := range m.Fields {
				defs[f.ID] = f
			}
		}
	}
	var nodes []query.Node
	for _, pair := range pairs {
		idText, value, found := strings.Cut(pair, ":")
		id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
		if !found || err != nil || id <= 0 || strings.TrimSpace(value) == "" {
			p.problems.Add("customFieldsByIds", parley.CodeValueNotSupported, "must be <fieldId>:<value> pairs", pair)
			continue
		}
		def, ok := defs[id]
		if !ok {
			p.problems.Add("customFieldsByIds", parley.CodeInvalidID, "no such custom field in the given mailboxes", pair)
			continue
		}
		node, err := index.CustomFieldFilter(def, strings.TrimSpace(value))
		var e *parley.Error
		if errors.As(err, &e) {
			for _, item := range e.Errors {
				p.problems.Add(item.Path, item.Code, item.Message, item.RejectedValue)
			}
			continue
		}
		nodes = append(nodes, node)
	}
	return nodes
}

// lazyMailboxes reads a company's mailboxes on first use: a list needs
// them only for custom fields and saved views, and reading them for every
// list was a fifth of the time of a one-hit list (query 8 of the
// benchmark). A failed read leaves no mailboxes and its error in err,
// for the caller to return.
type lazyMailboxes struct {
	s       *Server
	ctx     context.Context
	company int64
	read    bool
	boxes   []parley.Mailbox
	err     error
}

func (l *lazyMailboxes) get() []parley.Mailbox {
	if !l.read {
		l.read = true
		l.boxes, l.err = l.s.companyMailboxes(l.ctx, l.company)
	}
	return l.boxes
}

// companyMailboxes loads the caller's company's mailboxes.
func (s *Server) companyMailboxes(ctx context.Context, companyID int64) ([]parley.Mailbox, error) {
	var boxes []parley.Mailbox
	err := s.store.View(ctx, func(tx parley.Tx) (err error) {
		boxes, err = tx.Mailboxes(companyID)
		return err
	})
	return boxes, err
}
