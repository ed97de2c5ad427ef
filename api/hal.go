package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// halContentType is what successful reads answer (Help Scout's clients: the exact form
// clients of this API family receive).
const halContentType = "application/hal+json;charset=UTF-8"

// halLink is a HAL link object; a templated one holds a URI template.
type halLink struct {
	Href      string `json:"href"`
	Templated bool   `json:"templated,omitempty"`
}

// link is the HAL link to href.
func link(href string) halLink { return halLink{Href: href} }

// baseURL is the absolute URL prefix of links: the configured one, or the
// request's scheme and host.
func (s *Server) baseURL(c *gin.Context) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if c.Request.TLS != nil || c.GetHeader("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + c.Request.Host
}

func (s *Server) webURL(c *gin.Context) string {
	if s.cfg.WebURL != "" {
		return s.cfg.WebURL
	}
	return s.baseURL(c)
}

// url builds an absolute URL from path segments.
func (s *Server) url(c *gin.Context, parts ...any) string {
	var b strings.Builder
	b.WriteString(s.baseURL(c))
	for _, p := range parts {
		b.WriteByte('/')
		switch v := p.(type) {
		case string:
			b.WriteString(v)
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case int:
			b.WriteString(strconv.Itoa(v))
		}
	}
	return b.String()
}

// render writes a HAL document.
func render(c *gin.Context, status int, body any) {
	c.Header("Content-Type", halContentType)
	c.JSON(status, body)
}

// page is a paged list's page object and links.
type page struct {
	size, number, total int
	// suggestions are corrected queries for a search that found nothing
	// (a Parley extension), rendered when there are any.
	suggestions []string
}

// totalPages is at least 1: an empty list has one, empty, page, so clients
// that loop until page.number == page.totalPages stop after page 1.
func (p page) totalPages() int {
	return max((p.total+p.size-1)/p.size, 1)
}

func (p page) offset() int { return (p.number - 1) * p.size }

// pageView is a paged list: `_embedded.<name>` (never omitted, [] when
// empty), the page object, and self/first/last/page/next/previous links
// carrying the request's other parameters.
type pageView[T any] struct {
	Embedded map[string][]T `json:"_embedded"`
	Links    pageLinks      `json:"_links"`
	// Facets count the list's conversations per facet value, when asked.
	Facets map[string]map[string]int `json:"facets,omitempty"`
	Page   pageInfo                  `json:"page"`
	// Suggestions are corrected queries for a search that found nothing
	// (a Parley extension).
	Suggestions []string `json:"suggestions,omitempty"`
}

// pageLinks are a paged list's links; next and previous only where there
// is such a page.
type pageLinks struct {
	First    halLink  `json:"first"`
	Last     halLink  `json:"last"`
	Next     *halLink `json:"next,omitempty"`
	Page     halLink  `json:"page"`
	Previous *halLink `json:"previous,omitempty"`
	Self     halLink  `json:"self"`
}

// pageInfo is a paged list's page object.
type pageInfo struct {
	Number        int `json:"number"`
	Size          int `json:"size"`
	TotalElements int `json:"totalElements"`
	TotalPages    int `json:"totalPages"`
}

// renderPage writes a paged list (pageView).
func renderPage[T any](s *Server, c *gin.Context, name string, items []T, p page) {
	render(c, http.StatusOK, pageBody(s, c, name, items, p))
}

// pageBody is the body renderPage writes, for lists that add to it.
func pageBody[T any](s *Server, c *gin.Context, name string, items []T, p page) pageView[T] {
	if items == nil {
		items = []T{}
	}
	pages := p.totalPages()
	last := pages
	// Every link is the request's URL with its other parameters and a
	// page: the query is parsed and encoded once, not once a link (that
	// was 8% of the CPU of a one-hit search).
	q := c.Request.URL.Query()
	q.Del("page")
	prefix := s.baseURL(c) + c.Request.URL.Path + "?"
	if enc := q.Encode(); enc != "" {
		prefix += enc + "&"
	}
	pageURL := func(n string) string { return prefix + "page=" + n }
	links := pageLinks{
		Self:  link(pageURL(strconv.Itoa(p.number))),
		First: link(pageURL("1")),
		Last:  link(pageURL(strconv.Itoa(last))),
		Page:  halLink{Href: pageURL("{page}"), Templated: true},
	}
	if p.number < pages {
		next := link(pageURL(strconv.Itoa(p.number + 1)))
		links.Next = &next
	}
	if p.number > 1 && p.number-1 <= last {
		previous := link(pageURL(strconv.Itoa(p.number - 1)))
		links.Previous = &previous
	}
	return pageView[T]{
		Embedded:    map[string][]T{name: items},
		Links:       links,
		Page:        pageInfo{Size: p.size, TotalElements: p.total, TotalPages: pages, Number: p.number},
		Suggestions: p.suggestions,
	}
}

// listView is a list served whole: `_embedded.<name>` ([] when empty)
// and its links.
type listView[T any] struct {
	Embedded map[string][]T `json:"_embedded"`
	Links    listLinks      `json:"_links"`
}

// listLinks are a whole list's links; next for a list read by cursor.
type listLinks struct {
	Next *halLink `json:"next,omitempty"`
	Self halLink  `json:"self"`
}

// newList is the list name of items, at self.
func newList[T any](name, self string, items []T) listView[T] {
	return listView[T]{Embedded: map[string][]T{name: nonNil(items)}, Links: listLinks{Self: link(self)}}
}

// selfLinks are the links of a resource that links only to itself.
type selfLinks struct {
	Self halLink `json:"self"`
}

// pageOf slices an in-memory list for a page.
func pageOf[T any](all []T, p page) []T {
	start := min(p.offset(), len(all))
	end := min(start+p.size, len(all))
	return all[start:end]
}
