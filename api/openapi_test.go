package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/api"
)

// contract is the OpenAPI document, loaded and validated once per test
// binary, with a router that finds the operation of a request.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	data, err := api.OpenAPI()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	// Match paths on any host: the document's server is relative ("/").
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	// Pages and binary downloads: validated as plain strings.
	for _, ct := range []string{"text/html", "text/javascript", "text/css"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	return &contract{doc: doc, router: router}, nil
})

func mustContract(t *testing.T) *contract {
	t.Helper()
	c, err := loadContract()
	require.NoError(t, err, "api/openapi.yaml must be a valid OpenAPI document")
	return c
}

// checkResponse validates one answer of the real handler against the
// OpenAPI document: its status, headers, content type and body. A request
// outside every registered route (404, 405) must answer the error body.
func (w *world) checkResponse(req *http.Request, rec *httptest.ResponseRecorder) {
	w.t.Helper()
	validateAgainstContract(w.t, w.server, req, rec)
}

func validateAgainstContract(t *testing.T, server *api.Server, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	c := mustContract(t)
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		for _, r := range server.Routes() {
			if r.Method == req.Method && api.MatchPath(r.Path, req.URL.Path) {
				t.Fatalf("openapi: %s %s is served but not in the document: %v", r.Method, r.Path, err)
			}
		}
		schema := c.doc.Components.Schemas["Error"].Value
		var body any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), "openapi: unrouted answer %d must be the error body: %s", rec.Code, rec.Body)
		require.NoError(t, schema.VisitJSON(body, openapi3.EnableJSONSchema2020()), "openapi: unrouted answer %d: %s", rec.Code, rec.Body)
		return
	}
	ct := rec.Header().Get("Content-Type")
	binary := ct != "" && !strings.Contains(ct, "json") && !strings.HasPrefix(ct, "text/")
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: binary},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Fatalf("openapi: %s %s answered %d, which the document does not describe:\n%v\nbody: %.2000s",
			req.Method, route.Path, rec.Code, err, rec.Body.String())
	}
}

// openAPIPath turns a gin route pattern into an OpenAPI path template.
func openAPIPath(gin string) string {
	parts := strings.Split(gin, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || strings.HasPrefix(p, "*") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// TestOpenAPIDocumentsEveryRoute fails when the router serves a route the
// document does not describe, or the document describes one nobody serves.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	c := mustContract(t)
	w := newWorld(t)
	served := map[string]bool{}
	var missing []string
	for _, r := range w.server.Routes() {
		p := openAPIPath(r.Path)
		served[r.Method+" "+p] = true
		item := c.doc.Paths.Find(p)
		if item == nil || item.GetOperation(r.Method) == nil {
			missing = append(missing, r.Method+" "+p)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "routes missing from api/openapi.yaml")
	var extra []string
	for p, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			if !served[method+" "+p] {
				extra = append(extra, method+" "+p)
			}
		}
	}
	sort.Strings(extra)
	assert.Empty(t, extra, "operations in api/openapi.yaml that no route serves")
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rec := w.do(request{method: http.MethodGet, path: "/v2/openapi.json"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	assert.Equal(t, "3.1.0", doc["openapi"])
	assert.Contains(t, doc["paths"], "/v2/conversations/{conversationId}")
}
