package parley

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TimeLayout is the wire format of timestamps (Help Scout's docs).
const TimeLayout = "2006-01-02T15:04:05Z"

// FormatTime renders t in UTC in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads an ISO 8601 timestamp. The canonical form is TimeLayout;
// RFC 3339 with an offset or fractional seconds is accepted and converted to
// UTC, truncated to the second.
func ParseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Second), true
}

// Nullable is a request field that distinguishes absent, explicit null and a
// value (Help Scout's docs, Create Conversation needs all three for `assignTo`).
type Nullable[T any] struct {
	Set   bool // the key was present
	Null  bool // the value was null
	Value T
}

// UnmarshalJSON is only called when the key is present.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// MarshalJSON writes null or the value (an absent field is left out by
// the `omitzero` tag through IsZero).
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Set || n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// IsZero reports an absent field, for `omitzero`.
func (n Nullable[T]) IsZero() bool { return !n.Set }

// Ptr returns a pointer to v, for optional fields.
func Ptr[T any](v T) *T { return &v }

func itoa(n int) string { return strconv.Itoa(n) }

// UnmarshalValue decodes a patch operation's value into v, accepting a
// number or a boolean sent as a string ("5", "true") where v wants one, as
// the real service does for the SDKs that send them.
func UnmarshalValue(raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return err
	}
	s = strings.TrimSpace(s)
	if _, perr := strconv.ParseFloat(s, 64); perr != nil && s != "true" && s != "false" {
		return err
	}
	if json.Unmarshal([]byte(s), v) != nil {
		return err
	}
	return nil
}

func requireString(p *Problems, path string, v *string, max int) {
	switch {
	case v == nil:
		p.Add(path, CodeNullValue, "may not be null", nil)
	case strings.TrimSpace(*v) == "":
		p.Add(path, CodeEmptyValue, "may not be empty", *v)
	case len([]rune(*v)) > max:
		p.Add(path, CodeSize, sizeMessage(1, max), *v)
	}
}

func requireEnum(p *Problems, path string, v *string, allowed []string) {
	switch {
	case v == nil:
		p.Add(path, CodeNullValue, "may not be null", nil)
	case !slices.Contains(allowed, *v):
		p.Add(path, CodeEnumValue, "must be one of: "+strings.Join(allowed, ", "), *v)
	}
}

func checkTime(p *Problems, path string, v *string) {
	if v == nil {
		return
	}
	if _, ok := ParseTime(*v); !ok {
		p.Add(path, CodeMalformedDate, "must be ISO 8601 yyyy-MM-dd'T'HH:mm:ss'Z'", *v)
	}
}
