package api_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/golden"
)

// TestHomePage: GET / says what the server is and links the API and error
// references, the dashboard and the health endpoints, each of which
// answers.
func TestHomePage(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: http.MethodGet, path: "/"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	golden.Assert(t, "home.html", rec.Body.String())
	var links []string
	for _, m := range regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(rec.Body.String(), -1) {
		links = append(links, m[1])
	}
	assert.Equal(t, []string{"docs", "v2/openapi.json", "docs/errors", "reports", "healthz", "readyz"}, links)
	for _, l := range links {
		assert.Equal(t, http.StatusOK, w.do(request{method: http.MethodGet, path: "/" + l}).Code, l)
	}
}
