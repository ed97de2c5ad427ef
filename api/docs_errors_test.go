package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorReferenceAnchors: every `_links.about` of the golden error
// bodies points at an entry of GET /docs/errors.
func TestErrorReferenceAnchors(t *testing.T) {
	w := newWorld(t)
	rec := w.do(request{method: http.MethodGet, path: "/docs/errors"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	page := rec.Body.String()
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	link := regexp.MustCompile(`/docs/errors#([a-z0-9-]+)`)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			assert.Contains(t, page, `id="`+m[1]+`"`, "%s links to #%s", f, m[1])
			checked++
		}
	}
	assert.Greater(t, checked, 20)
}
