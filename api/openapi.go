package api

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"sync"

	"github.com/gin-gonic/gin"
	"go.yaml.in/yaml/v3"
)

// openAPIFiles hold the API contract: openapi.yaml, an OpenAPI 3.1
// document of every route kept by hand next to the handlers, and fragments
// named <feature>_openapi.yaml whose `paths` and `components.schemas` are
// merged into it (a feature's owner keeps its part of the contract beside
// its handlers). Every API test validates the answers it receives against
// the merged document (api/openapi_test.go), and a test fails when a
// registered route is missing from it.
//
//go:embed *openapi.yaml
var openAPIFiles embed.FS

// openAPIJSON merges the document and converts it to JSON once.
var openAPIJSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := readYAML("openapi.yaml")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(openAPIFiles, "*_openapi.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		frag, err := readYAML(name)
		if err != nil {
			return nil, err
		}
		if err := mergeSection(doc, frag, name, "paths"); err != nil {
			return nil, err
		}
		if err := mergeSection(doc, frag, name, "components", "schemas"); err != nil {
			return nil, err
		}
	}
	return json.Marshal(doc)
})

func readYAML(name string) (map[string]any, error) {
	data, err := openAPIFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("api: parse %s: %w", name, err)
	}
	return doc, nil
}

// mergeSection adds the entries of frag at path to doc at path; an entry
// both define is an error.
func mergeSection(doc, frag map[string]any, name string, path ...string) error {
	from, to := frag, doc
	for _, key := range path {
		next, _ := from[key].(map[string]any)
		if next == nil {
			return nil
		}
		into, _ := to[key].(map[string]any)
		if into == nil {
			into = map[string]any{}
			to[key] = into
		}
		from, to = next, into
	}
	for k, v := range from {
		if _, dup := to[k]; dup {
			return fmt.Errorf("api: %s redefines %v %q of openapi.yaml", name, path, k)
		}
		to[k] = v
	}
	return nil
}

// OpenAPI returns the OpenAPI 3.1 document of the API as JSON.
func OpenAPI() ([]byte, error) { return openAPIJSON() }

// openAPI handles GET /v2/openapi.json: the contract, no authentication.
func (s *Server) openAPI(c *gin.Context) error {
	doc, err := OpenAPI()
	if err != nil {
		return err
	}
	c.Header("Cache-Control", "public, max-age=300")
	c.Data(http.StatusOK, "application/json", doc)
	return nil
}
