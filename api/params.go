package api

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// params reads query-string parameters, collecting every problem so one
// answer lists them all.
type params struct {
	values   url.Values
	problems parley.Problems
	known    []string
}

// IgnoredParametersHeader names, on an answer, the query parameters the
// endpoint does not read. Clients of this API family send parameters of
// their own (`pageSize`, `embed` on reads) and the real service answers
// them; so Parley ignores what it does not know, and says so here, so a
// typo that widens a list can still be seen.
const IgnoredParametersHeader = "X-Parley-Ignored-Parameters"

// readParams reads the query string; parameters not in known are ignored
// and listed in IgnoredParametersHeader.
func readParams(c *gin.Context, known ...string) *params {
	p := &params{values: c.Request.URL.Query(), problems: parley.Problems{Source: "query"}, known: known}
	var unknown []string
	for name := range p.values {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		c.Header(IgnoredParametersHeader, strings.Join(unknown, ", "))
	}
	return p
}

func (p *params) err() error { return p.problems.Err() }

// reads reports whether the endpoint reads the parameter.
func (p *params) reads(name string) bool { return slices.Contains(p.known, name) }

// raw returns the parameter's values joined by commas, and whether it was given.
func (p *params) raw(name string) (string, bool) {
	vs, ok := p.values[name]
	if !ok {
		return "", false
	}
	return strings.Join(vs, ","), true
}

// list splits a comma-separated (or repeated) parameter.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.values[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// id reads a positive identifier.
func (p *params) id(name string) *int64 {
	v, ok := p.raw(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		p.problems.Add(name, parley.CodeInvalidID, "must be a positive identifier", v)
		return nil
	}
	return &n
}

// ids reads comma-separated positive identifiers.
func (p *params) ids(name string) []int64 {
	var out []int64
	for _, s := range p.list(name) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			p.problems.Add(name, parley.CodeInvalidID, "must be comma-separated positive identifiers", s)
			continue
		}
		out = append(out, n)
	}
	return out
}

// number reads a non-negative integer.
func (p *params) number(name string) *int64 {
	v, ok := p.raw(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		p.problems.Add(name, parley.CodeInvalidNumber, "must be a non-negative integer", v)
		return nil
	}
	return &n
}

// page reads the 1-based page number (default 1).
func (p *params) page() int {
	v, ok := p.raw("page")
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > maxPage {
		p.problems.Add("page", parley.CodeInvalidNumber, fmt.Sprintf("must be an integer from 1 to %d", maxPage), v)
		return 1
	}
	return n
}

// maxPage bounds page numbers so offsets stay reasonable.
const maxPage = 100000

// enum reads a value from a fixed set, with a default.
func (p *params) enum(name, def string, allowed []string) string {
	v, ok := p.raw(name)
	if !ok {
		return def
	}
	if !slices.Contains(allowed, v) {
		p.problems.Add(name, parley.CodeEnumValue, "must be one of: "+strings.Join(allowed, ", "), v)
		return def
	}
	return v
}

// time reads an ISO 8601 timestamp.
func (p *params) time(name string) *time.Time {
	v, ok := p.raw(name)
	if !ok {
		return nil
	}
	t, good := parley.ParseTime(strings.TrimSpace(v))
	if !good {
		p.problems.Add(name, parley.CodeMalformedDate, "must be ISO 8601 yyyy-MM-dd'T'HH:mm:ss'Z'", v)
		return nil
	}
	return &t
}

// pathID reads a positive id from the URL path; anything else is a 400
// `Invalid identifier` (Help Scout's docs: "not a valid entity id (e.g. negative)").
func pathID(c *gin.Context, name string) (int64, error) {
	v := c.Param(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, parley.Invalid("path", name, parley.CodeInvalidID, "must be a positive identifier", v)
	}
	return n, nil
}
