package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// halContentType is what successful reads answer (COMPAT.md: the exact form
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

// renderPage writes a paged list: `_embedded.<name>` (never omitted, [] when
// empty), the page object, and self/first/last/page/next/previous links
// carrying the request's other parameters.
func (s *Server) renderPage(c *gin.Context, name string, items []gin.H, p page) {
	render(c, http.StatusOK, s.pageBody(c, name, items, p))
}

// pageBody is the body renderPage writes, for lists that add to it.
func (s *Server) pageBody(c *gin.Context, name string, items []gin.H, p page) gin.H {
	if items == nil {
		items = []gin.H{}
	}
	pages := p.totalPages()
	last := pages
	pageURL := func(n string) string {
		q := c.Request.URL.Query()
		q.Del("page")
		enc := q.Encode()
		if enc != "" {
			enc += "&"
		}
		return s.baseURL(c) + c.Request.URL.Path + "?" + enc + "page=" + n
	}
	links := gin.H{
		"self":  link(pageURL(strconv.Itoa(p.number))),
		"first": link(pageURL("1")),
		"last":  link(pageURL(strconv.Itoa(last))),
		"page":  gin.H{"href": pageURL("{page}"), "templated": true},
	}
	if p.number < pages {
		links["next"] = link(pageURL(strconv.Itoa(p.number + 1)))
	}
	if p.number > 1 && p.number-1 <= last {
		links["previous"] = link(pageURL(strconv.Itoa(p.number - 1)))
	}
	body := gin.H{
		"_embedded": gin.H{name: items},
		"_links":    links,
		"page":      gin.H{"size": p.size, "totalElements": p.total, "totalPages": pages, "number": p.number},
	}
	if len(p.suggestions) > 0 {
		body["suggestions"] = p.suggestions
	}
	return body
}

// pageOf slices an in-memory list for a page.
func pageOf[T any](all []T, p page) []T {
	start := min(p.offset(), len(all))
	end := min(start+p.size, len(all))
	return all[start:end]
}
