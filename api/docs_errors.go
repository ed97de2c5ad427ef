package api

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// errorDoc is one entry of the error reference: a code of the API's error table (or
// Parley's), the status it answers (0: none, the code is only logged) and
// what it means.
type errorDoc struct {
	Code, Meaning string
	Status        int
}

// errorDocs is the reference every error item's `_links.about` points at.
var errorDocs = []errorDoc{
	{parley.CodeEmptyValue, "The field cannot be empty.", 400},
	{parley.CodeValueNotSupported, "The value is not in the predefined set, or not allowed here.", 400},
	{parley.CodeSize, "The length is outside the allowed range.", 400},
	{parley.CodeEmail, "The e-mail address is not well formed.", 400},
	{parley.CodeNullValue, "The field cannot be null or absent.", 400},
	{parley.CodeMalformedDate, "Dates are ISO 8601, yyyy-MM-dd'T'HH:mm:ss'Z'.", 400},
	{parley.CodeInvalidNumber, "The number violates a bound, or is not a non-negative integer.", 400},
	{parley.CodeInvalidID, "Not a valid identifier (e.g. negative), or no such record.", 400},
	{parley.CodeInvalidJSON, "The body is not well-formed JSON, or its structure does not match.", 400},
	{CodeInvalidQuery, "The advanced query does not parse or names an unknown field; the message gives the column.", 400},
	{parley.CodeCannotRunWorkflow, "Only active manual workflows run through the API, on 1 to 50 conversations of the workflow's mailbox.", 400},
	{parley.CodeEnumValue, "The value is not among the allowed ones; the message lists them.", 400},
	{parley.CodeListOfEnumValues, "A comma-separated list holds a disallowed value.", 400},
	{parley.CodeRejectedRequest, "The request does not conform to the rules (e.g. an unknown parameter).", 400},
	{parley.CodeMissingParameter, "A required query parameter is absent.", 400},
	{parley.CodeMissingHeader, "A required header is absent.", 400},
	{parley.CodePatchOperation, "The patch operation is invalid, or not permitted for the path.", 400},
	{parley.CodeConversationOwner, "The user id is not a user of the account.", 400},
	{parley.CodeImportedThread, "createdAt (and closedAt) are only allowed when imported is true.", 400},
	{parley.CodeInvalidAttachment, "Attachment data must be valid Base64 of a file of at most 10 MB.", 400},
	{parley.CodeInvalidMimeType, "The MIME type must be a full valid type/subtype.", 400},
	{parley.CodeAttachmentPublished, "Attachments can only be deleted from drafts.", 400},
	{parley.CodeLaterLimit, "No more snoozing or scheduling until conversations are unsnoozed or threads sent.", 400},
	{parley.CodeInvalidURI, "The URI is malformed.", 400},
	{parley.CodeInvalidV1Exchange, "The V1 API key or the client id of a V1 key exchange is invalid or unknown; that endpoint answers {status, message} instead of this body.", 400},
	{parley.CodeUnauthorized, "The token is missing, invalid or expired, or its user is not an active, invited user.", 401},
	{parley.CodeAccessDenied, "The feature is not available to the caller or the plan (e.g. reports).", 403},
	{parley.CodeAPINotEnabled, "The token is valid but the company may not use the API.", 403},
	{parley.CodePaymentMissing, "Payment information is missing or expired.", 403},
	{parley.CodeInvalidThreadUser, "The user named in `user` cannot author the thread.", 403},
	{parley.CodeMayNotCreateUsers, "Only administrators and account owners may create users.", 403},
	{parley.CodeCannotGrantMailbox, "The caller tried to grant access to a mailbox it cannot access itself.", 403},
	{parley.CodePlanUserLimit, "No user seats remain on the plan.", 403},
	{parley.CodeLightUserLimit, "No light-user seats remain on the plan.", 403},
	{parley.CodeNotFound, "No such resource (a record of another company is indistinguishable from none).", 404},
	{parley.CodeMethod, "The endpoint does not support the method; Allow lists those it does.", 405},
	{parley.CodeConflict, "A conflicting record exists (e.g. an e-mail held by another customer).", 409},
	{parley.CodeUserEmailNotUnique, "A user with this e-mail address already exists.", 409},
	{parley.CodeTooManyThreads, "The conversation holds 99 or more threads.", 412},
	{parley.CodeTooOld, "The company forbids updating conversations this old.", 412},
	{parley.CodeTooLarge, "The body is larger than the endpoint accepts.", 413},
	{parley.CodeRequestTimeout, "The request body was not received within the body timeout (30 s by default); the connection is closed.", 408},
	{parley.CodeMediaType, "The body must be JSON (Content-Type application/json).", 415},
	{parley.CodeCustomerLocked, "The customer has more than 5,000 conversations; modifying operations are refused.", 423},
	{parley.CodeRateLimited, "The rate limit is reached; retry after X-RateLimit-Retry-After seconds.", 429},
	{parley.CodeInfectedAttachment, "The attachment was removed because malicious content was found.", 410},
	{parley.CodeInternalTimeout, "An internal call timed out; it is safe to retry after a short delay.", 504},
	{parley.CodeUnavailable, "The server ran short of a resource it shares between requests (e.g. its database's locks or connections), usually for a moment; retry after the Retry-After header's seconds.", 503},
	{parley.CodeClientAbort, "The client ended the request before the answer was written; logged only, since no one is left to answer.", 0},
}

var errorDocsPage = template.Must(template.New("errors").Funcs(template.FuncMap{"anchor": anchor}).Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Parley errors</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}td,th{padding:.3em .6em;text-align:left;vertical-align:top}:target{background:#ffc}</style></head>
<body>
<h1>Errors</h1>
<p>An error answers a JSON body with <code>logRef</code> (quote it to support), <code>message</code>, and
<code>_embedded.errors</code>: items with <code>code</code>, <code>message</code>, <code>path</code>,
<code>source</code>, optionally <code>rejectedValue</code>, and a link to the entry below.</p>
<table>
<tr><th>Code</th><th>Status</th><th>Meaning</th></tr>
{{range .}}<tr id="{{anchor .Code}}"><td>{{.Code}}</td><td>{{if .Status}}{{.Status}}{{else}}none{{end}}</td><td>{{.Meaning}}</td></tr>
{{end}}</table>
</body>
</html>
`))

// errorReference handles GET /docs/errors: the reference of error codes
// that error bodies link to (one anchor per code).
func (s *Server) errorReference(c *gin.Context) error {
	var b strings.Builder
	if err := errorDocsPage.Execute(&b, errorDocs); err != nil {
		return err
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(b.String()))
	return nil
}
