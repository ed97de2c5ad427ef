package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// errorCodes reads every error code the server can produce: the string
// constants named Code* of the domain package and of api, from their
// source, so a code added later without an entry fails the test below.
func errorCodes(t *testing.T) map[string]string {
	t.Helper()
	codes := map[string]string{}
	for _, dir := range []string{"..", "."} {
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		require.NoError(t, err)
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					spec, ok := n.(*ast.ValueSpec)
					if !ok {
						return true
					}
					for i, name := range spec.Names {
						if !strings.HasPrefix(name.Name, "Code") || i >= len(spec.Values) {
							continue
						}
						if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, err := strconv.Unquote(lit.Value)
							require.NoError(t, err)
							codes[name.Name] = v
						}
					}
					return true
				})
			}
		}
	}
	return codes
}

// TestErrorReferenceHasEveryCode: every error code has its entry on GET
// /docs/errors, under the anchor error bodies link to.
func TestErrorReferenceHasEveryCode(t *testing.T) {
	w := newWorld(t)
	page := w.do(request{method: http.MethodGet, path: "/docs/errors"}).Body.String()
	rows := map[string]string{} // code -> anchor
	for _, m := range regexp.MustCompile(`<tr id="([^"]+)"><td>([^<]+)</td>`).FindAllStringSubmatch(page, -1) {
		rows[html.UnescapeString(m[2])] = m[1]
	}
	codes := errorCodes(t)
	require.Greater(t, len(codes), 40)
	words := regexp.MustCompile(`[^A-Za-z0-9]+`)
	for name, code := range codes {
		want := strings.ToLower(strings.Trim(words.ReplaceAllString(code, "-"), "-"))
		assert.Equal(t, want, rows[code], "%s (%q) has no entry at #%s", name, code, want)
	}
}
