package api

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// redocJS is Redoc's standalone bundle (npm package redoc, see
// api/docs/README and scripts/refresh-redoc.sh), vendored because the Go
// build cannot run npm. It renders the OpenAPI document in the browser.
//
//go:embed docs/redoc.standalone.js
var redocJS []byte

// docsPage is the reference page: Redoc rendering /v2/openapi.json. URLs
// are relative, so the page works behind a proxy that moves the API.
const docsPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="../v2/openapi.json" hide-download-button="false" path-in-middle-panel="true" expand-responses="200,201"></redoc>
<noscript>This reference needs JavaScript. The contract itself is at <a href="../v2/openapi.json">/v2/openapi.json</a>.</noscript>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`

// homePage is what a browser pointed at the server finds: what it is and
// where to go. Links are relative, so the page works behind a proxy that
// moves the API.
const homePage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley</title>
<style>body{font-family:sans-serif;max-width:40em;margin:2em auto;padding:0 1em;line-height:1.5}</style>
</head>
<body>
<h1>Parley</h1>
<p>A shared inbox serving Help Scout's Mailbox API 2.0 under <code>/v2/</code>.</p>
<ul>
<li><a href="docs">API reference</a> (<a href="v2/openapi.json">OpenAPI document</a>) and the <a href="docs/errors">error reference</a></li>
<li><a href="reports">Reports dashboard</a> (sign in as a user of a company)</li>
<li>Health: <a href="healthz">/healthz</a> (the process is serving) and <a href="readyz">/readyz</a> (storage and search are ready)</li>
</ul>
</body>
</html>
`

// home handles GET /: the page saying what the server is.
func (s *Server) home(c *gin.Context) error {
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(homePage))
	return nil
}

// docs handles GET /docs: the API reference page.
func (s *Server) docs(c *gin.Context) error {
	c.Header("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:")
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(docsPage))
	return nil
}

// docsRenderer handles GET /docs/redoc.standalone.js.
func (s *Server) docsRenderer(c *gin.Context) error {
	c.Header("Cache-Control", "public, max-age=86400")
	c.Data(http.StatusOK, "text/javascript; charset=utf-8", redocJS)
	return nil
}
