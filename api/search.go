package api

import (
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/search"
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

// queryText reads `query=` for a search (search.Conversations,
// search.Customers); nil when absent.
func queryText(c *gin.Context) (*string, error) {
	text, ok, err := rawQueryParam(c, "query")
	if err != nil {
		return nil, parley.Invalid("query", "query", parley.CodeInvalidURI, "the query is not correctly URL-encoded", c.Query("query"))
	}
	if !ok {
		return nil, nil
	}
	return &text, nil
}

// searchDeps are what package search reads, at the server's now.
func (s *Server) searchDeps() search.Deps {
	return search.Deps{Store: s.store, Engine: s.cfg.Engine, Now: s.now()}
}
