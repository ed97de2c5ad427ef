package parley

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an error; the API maps each Kind to one HTTP status.
type Kind int

// Error kinds. The comment gives the HTTP status the API answers. Kinds
// that only a transport can cause (a wrong method or media type, a body too
// large or too slow, a request past its deadline) are not declared here: the
// transport declares them from KindTransport up (api/kinds.go).
const (
	KindInternal        Kind = iota // 500: never shown with its cause
	KindInvalid                     // 400: validation errors
	KindUnauthorized                // 401
	KindForbidden                   // 403
	KindNotFound                    // 404
	KindConflict                    // 409
	KindLocked                      // 412: conversation locked
	KindUnprocessable               // 422
	KindCustomerLocked              // 423
	KindTooManyRequests             // 429
	KindMoved                       // 301: merged conversation
	KindGone                        // 410: an infected attachment
	KindUnavailable                 // 503: a resource the server shares ran short; retry
)

// KindTransport is the first Kind a transport may declare for errors of its
// own; the domain never creates a Kind at or above it.
const KindTransport Kind = 100

// Codes of the API's error table (docs/api.md), used as FieldError.Code.
const (
	CodeEmptyValue          = "Empty value"
	CodeValueNotSupported   = "Value not supported"
	CodeSize                = "Size"
	CodeEmail               = "Not well-formed email address"
	CodeNullValue           = "Null value"
	CodeMalformedDate       = "Malformed date"
	CodeInvalidNumber       = "Invalid number"
	CodeInvalidID           = "Invalid identifier"
	CodeAccessDenied        = "Access denied"
	CodeAPINotEnabled       = "API not enabled"
	CodePaymentMissing      = "Payment missing"
	CodeInvalidURI          = "Invalid URI"
	CodeInvalidJSON         = "Invalid JSON"
	CodeConflict            = "Conflict"
	CodeMediaType           = "Invalid media type"
	CodeMethod              = "Invalid HTTP method"
	CodeTooManyThreads      = "Conversation Locked - Too many threads"
	CodeTooOld              = "Conversation Locked - Conversation is too old"
	CodeCustomerLocked      = "Customer Locked - Too Many Conversations"
	CodePatchOperation      = "Allowed Patch Operations"
	CodeMissingHeader       = "Missing header"
	CodeMissingParameter    = "Missing parameter"
	CodeConversationOwner   = "Valid Conversation Owner"
	CodeImportedThread      = "Valid Imported Thread"
	CodeEnumValue           = "Enum Value"
	CodeListOfEnumValues    = "List Of Enum Values"
	CodeRejectedRequest     = "Rejected request"
	CodeInternalTimeout     = "Internal Timeout"
	CodeInvalidThreadUser   = "Invalid Thread Author"
	CodeInvalidMimeType     = "Invalid Mime-Type"
	CodeInvalidAttachment   = "Invalid Attachment"
	CodeInfectedAttachment  = "Infected Attachment"
	CodeAttachmentPublished = "Cannot delete attachment from published conversation"
	CodeLaterLimit          = "Later view - limit reached"
	CodeUnauthorized        = "Unauthorized"
	CodeNotFound            = "Not found"
	CodeTooLarge            = "Request too large"
	CodeRateLimited         = "Rate limit exceeded"
	CodeRequestTimeout      = "Request timeout"
	CodeMayNotCreateUsers   = "User may not create users"
	CodeUserEmailNotUnique  = "User email not unique"
	CodeCannotGrantMailbox  = "Caller cannot grant mailbox access"
	CodePlanUserLimit       = "Plan user limit reached"
	CodeLightUserLimit      = "Light user limit reached"
	CodeClientAbort         = "Client Abort"
	CodeUnavailable         = "Service Unavailable"
)

// FieldError is one item of the error body's `_embedded.errors`.
type FieldError struct {
	Path          string // field path of the offending value, e.g. "threads[0].type"
	Code          string // one of the Code* constants
	Message       string // human sentence
	RejectedValue any    // nil when there is nothing to show
	// Origin is which of the caller's inputs the problem concerns; the
	// transport names where it read that input.
	Origin Origin
	// Source is that name ("JSON", "query", "path", "header" in api), set
	// by the layers that read requests; the domain's rules leave it empty.
	Source string
}

// Origin says which of the caller's inputs a problem concerns, in the
// domain's terms: a transport maps it to where it read the input (api: the
// JSON body, the path, the Authorization header, the query string).
type Origin uint8

// Origins of a problem.
const (
	// OriginNone: no single input (a permission, a conflict, a limit).
	OriginNone Origin = iota
	// OriginBody: a field of the document the caller sent.
	OriginBody
	// OriginSubject: the record the request acts on, named by its id.
	OriginSubject
	// OriginCredential: the caller's credentials.
	OriginCredential
	// OriginParameter: a parameter of the request besides its document,
	// such as a list's filter.
	OriginParameter
)

// Error is the one error type of Parley. Handlers never build HTTP errors:
// they return an *Error and the API's error writer renders it.
type Error struct {
	Kind    Kind
	Message string       // summary for the body's `message`
	Errors  []FieldError // details; may be empty
	// MergedInto is set for KindMoved only: the id of the conversation the
	// record was merged into; the transport turns it into its address.
	MergedInto int64
	Cause      error // logged, never shown
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	for _, f := range e.Errors {
		fmt.Fprintf(&b, "; %s: %s", f.Path, f.Message)
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %v", e.Cause)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Cause }

// KindOf returns the Kind of err, KindInternal when err is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// IsNotFound reports whether err is a not-found error.
func IsNotFound(err error) bool { return err != nil && KindOf(err) == KindNotFound }

// NotFound builds the error of a missing record. The message names the kind
// only: it must not confirm that another company's record exists.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Message: what + " not found",
		Errors: []FieldError{{Code: CodeNotFound, Message: what + " not found", Origin: OriginSubject}}}
}

// Unauthorized builds a 401 error.
func Unauthorized(msg string) *Error {
	return &Error{Kind: KindUnauthorized, Message: msg,
		Errors: []FieldError{{Code: CodeUnauthorized, Message: msg, Origin: OriginCredential, Path: "Authorization"}}}
}

// Forbidden builds a 403 error with an API error code.
func Forbidden(code, msg string) *Error {
	return &Error{Kind: KindForbidden, Message: msg, Errors: []FieldError{{Code: code, Message: msg}}}
}

// Locked builds a 412 error (conversation locked).
func Locked(code, msg string) *Error {
	return &Error{Kind: KindLocked, Message: code, Errors: []FieldError{{Code: code, Message: msg}}}
}

// Reason is what a person reads of why something was not done (a line
// item): a refusal's first detail, else its summary; never an internal
// cause, which only the log shows.
func Reason(err error) string {
	var e *Error
	switch {
	case !errors.As(err, &e) || e.Kind == KindInternal:
		return "an internal error (see the server log)"
	case e.Kind == KindUnavailable:
		return "the server was short of a resource (see the server log)"
	case len(e.Errors) > 0 && e.Errors[0].Message != "":
		return e.Errors[0].Message
	}
	return e.Message
}

// Internal wraps an unexpected cause; its text is logged, never shown.
func Internal(cause error) *Error {
	return &Error{Kind: KindInternal, Message: "Internal error", Cause: cause}
}

// Unavailable wraps the cause of a request the server could not serve for
// want of a resource it shares with other requests (the database's lock
// table, its connections, its disk): not a bug, and usually over in a
// moment, so the caller is asked to retry. The cause is logged, never
// shown.
func Unavailable(cause error) *Error {
	return &Error{Kind: KindUnavailable, Message: "Service Unavailable", Cause: cause,
		Errors: []FieldError{{Code: CodeUnavailable, Message: "the server is short of a resource for the moment; retry after a short delay"}}}
}

// IsFailure reports whether err is Parley's own failure rather than an
// answer to the request: an internal error, or a shared resource that ran
// short (KindUnavailable). A failure may pass on a later try, so what it
// interrupted is retried, never refused or recorded as refused.
func IsFailure(err error) bool {
	k := KindOf(err)
	return err != nil && (k == KindInternal || k == KindUnavailable)
}

// Problems collects the validation errors of one input document
// (OriginBody); Err returns nil when none was added, else one KindInvalid
// *Error holding them all. A layer that reads another part of a request
// names it in Source.
type Problems struct {
	Source string
	items  []FieldError
}

// Add records one problem.
func (p *Problems) Add(path, code, msg string, rejected any) {
	p.items = append(p.items, FieldError{Path: path, Code: code, Message: msg, RejectedValue: rejected,
		Origin: OriginBody, Source: p.Source})
}

// Empty reports whether no problem was recorded.
func (p *Problems) Empty() bool { return len(p.items) == 0 }

// Err returns the collected problems as one error, or nil.
func (p *Problems) Err() error {
	if len(p.items) == 0 {
		return nil
	}
	return &Error{Kind: KindInvalid, Message: "Bad request", Errors: p.items}
}

// Invalid builds a single-problem validation error that names where in the
// request the value was read (source): for the layers that read requests.
// The domain's rules use InvalidField, InvalidID or InvalidParameter.
func Invalid(source, path, code, msg string, rejected any) *Error {
	return &Error{Kind: KindInvalid, Message: "Bad request",
		Errors: []FieldError{{Path: path, Code: code, Message: msg, RejectedValue: rejected, Source: source}}}
}

// InvalidField builds the error of one invalid field of the document the
// caller sent; path "" is the document as a whole.
func InvalidField(path, code, msg string, rejected any) *Error {
	return invalid(OriginBody, path, code, msg, rejected)
}

// InvalidID builds the error of a request whose subject, named by the id
// at path, does not allow it.
func InvalidID(path, code, msg string, rejected any) *Error {
	return invalid(OriginSubject, path, code, msg, rejected)
}

// InvalidParameter builds the error of an invalid request parameter besides
// the document, such as a report's or a list's criterion.
func InvalidParameter(path, code, msg string, rejected any) *Error {
	return invalid(OriginParameter, path, code, msg, rejected)
}

func invalid(origin Origin, path, code, msg string, rejected any) *Error {
	return &Error{Kind: KindInvalid, Message: "Bad request",
		Errors: []FieldError{{Path: path, Code: code, Message: msg, RejectedValue: rejected, Origin: origin}}}
}
