package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// Bounds of request bodies: most carry small JSON; those that may carry
// attachments (Base64 of files up to 10 MB) get room for them.
const (
	MaxBodyBytes           = 256 << 10
	MaxAttachmentBodyBytes = 14 << 20
)

// decodeJSON reads a JSON body into v: the media type must be JSON, the
// body well-formed, bounded, and of the right structure. Unknown fields are
// ignored, as clients of this API family send extra fields.
func decodeJSON(c *gin.Context, v any) error {
	return decodeJSONMax(c, v, MaxBodyBytes)
}

// decodeJSONMax is decodeJSON with another bound.
func decodeJSONMax(c *gin.Context, v any, max int64) error {
	body, err := readJSON(c, max)
	if err != nil {
		return err
	}
	return unmarshalStrict(body, v)
}

// readJSON checks the media type and reads a bounded body.
func readJSON(c *gin.Context, max int64) ([]byte, error) {
	if err := requireJSON(c); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, max))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &parley.Error{Kind: kindTooLarge, Message: "Request too large", Errors: []parley.FieldError{{
			Code: parley.CodeTooLarge, Message: fmt.Sprintf("the body must be at most %d bytes", max), Source: "JSON"}}}
	}
	if isBodyTimeout(err) {
		return nil, bodyTimeout()
	}
	if err != nil {
		return nil, parley.Invalid("JSON", "", parley.CodeInvalidJSON, "the body could not be read", nil)
	}
	return body, nil
}

func requireJSON(c *gin.Context) error {
	mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return &parley.Error{Kind: kindMediaType, Message: "Invalid media type", Errors: []parley.FieldError{{
			Path: "Content-Type", Code: parley.CodeMediaType, Message: "Content-Type must be application/json",
			RejectedValue: c.GetHeader("Content-Type"), Source: "header"}}}
	}
	return nil
}

// unmarshalStrict decodes exactly one JSON value, mapping decoder errors
// to Help Scout's `Invalid JSON` with the path of the offending field. A body of
// `null`, or with anything but white space after the value, is refused; so
// are control characters in strings (tab, CR and LF excepted). Numbers and
// booleans sent as strings ("mailboxId": "123") are accepted, as the real
// service accepts them from the SDKs that send them.
func unmarshalStrict(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return parley.Invalid("JSON", "", parley.CodeInvalidJSON, "the body is empty", nil)
	case bytes.Equal(trimmed, []byte("null")):
		return parley.Invalid("JSON", "", parley.CodeInvalidJSON, "the body is null; send a JSON object", nil)
	}
	err := decodeOne(body, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && (typeErr.Value == "string" || typeErr.Value == "number") {
		if coerced, ok := coerceScalars(body, reflect.TypeOf(v)); ok {
			err = decodeOne(coerced, v)
		}
	}
	if err == nil {
		return checkControlChars(body)
	}
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return parley.Invalid("JSON", typeErr.Field, parley.CodeInvalidJSON,
			fmt.Sprintf("expected %s, got %s", jsonKind(typeErr.Type.String()), typeErr.Value), nil)
	case errors.As(err, &syntaxErr):
		return parley.Invalid("JSON", "", parley.CodeInvalidJSON, fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, err), nil)
	default:
		return parley.Invalid("JSON", "", parley.CodeInvalidJSON, "malformed JSON: "+err.Error(), nil)
	}
}

// decodeOne decodes the body's one JSON value; anything but white space
// after it is an error (json.Decoder.More would accept `{...}}garbage`).
func decodeOne(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("unexpected data after the JSON value at byte %d", dec.InputOffset())
	}
	return nil
}

// jsonKind names a Go type the way a JSON client thinks of it.
func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	default:
		return "an object"
	}
}
