package api

import (
	"bytes"
	"html/template"

	"github.com/gin-gonic/gin"
)

// pageData fills the HTML pages of the authorization-code flow.
type pageData struct {
	App, User, Email string
	authRequest
	CSRF, Message string
	// Maker is the company the application belongs to, Company the
	// user's; ForeignMaker says they differ (the consent page).
	Maker, Company string
	ForeignMaker   bool
	// Token is the access token a web app's callback hands to its page,
	// and Home the path of that page.
	Token, Home string
}

// The pages are plain HTML forms that work without JavaScript; html/template
// escapes every value.
var (
	pageLayout = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{template "title" .}} · Parley</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.4rem}
button{margin:1rem .5rem 0 0;padding:.5rem 1rem}.message{color:#a00}</style></head>
<body>{{template "body" .}}</body></html>`
	loginPage = htmlPage(`{{define "title"}}Sign in{{end}}{{define "body"}}<h1>Sign in to Parley</h1>
{{with .Message}}<p class="message" role="alert">{{.}}</p>{{end}}
<form method="post" action="/authentication/login">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="state" value="{{.State}}">
{{- with .CodeChallenge}}
<input type="hidden" name="code_challenge" value="{{.}}">{{end}}
{{- with .CodeChallengeMethod}}
<input type="hidden" name="code_challenge_method" value="{{.}}">{{end}}
<label for="email">E-mail</label><input id="email" type="email" name="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>{{end}}`)
	consentPage = htmlPage(`{{define "title"}}Authorize {{.App}}{{end}}{{define "body"}}<h1>Authorize {{.App}}</h1>
<p><strong>{{.App}}</strong>, an application made by <strong>{{.Maker}}</strong>, asks to use Parley as
<strong>{{.User}}</strong> ({{.Email}}): it will read and change the conversations, customers and settings of
<strong>{{.Company}}</strong> through the API, on your behalf.</p>
{{if .ForeignMaker}}<p class="message" role="alert">{{.Maker}} is not {{.Company}}. Approve only if you trust {{.Maker}} with
{{.Company}}'s data.</p>
{{end}}<form method="post" action="/authentication/authorizeClientApplication">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="state" value="{{.State}}">
{{- with .CodeChallenge}}
<input type="hidden" name="code_challenge" value="{{.}}">{{end}}
{{- with .CodeChallengeMethod}}
<input type="hidden" name="code_challenge_method" value="{{.}}">{{end}}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>{{end}}`)
	errorPage = htmlPage(`{{define "title"}}Cannot continue{{end}}{{define "body"}}<h1>Cannot continue</h1>
<p class="message" role="alert">{{.Message}}</p>{{end}}`)
)

func htmlPage(body string) *template.Template {
	return template.Must(template.Must(template.New("layout").Parse(pageLayout)).Parse(body))
}

// pagePolicy is the Content-Security-Policy of the flow's pages: no
// script, no resource from anywhere.
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

// page renders an HTML page with headers that keep it out of caches and
// frames.
func (s *Server) page(c *gin.Context, status int, t *template.Template, data pageData) error {
	return s.pageWithPolicy(c, status, t, data, pagePolicy)
}

// pageWithPolicy is page with another Content-Security-Policy.
func (s *Server) pageWithPolicy(c *gin.Context, status int, t *template.Template, data pageData, policy string) error {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", data); err != nil {
		return err
	}
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", policy)
	c.Data(status, "text/html; charset=utf-8", b.Bytes())
	c.Abort()
	return nil
}
