package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"

	parley "github.com/parley/parley"
)

// coerceScalars rewrites a body so that strings holding a number or a
// boolean become that number or boolean wherever the target type wants
// one, following the target's JSON field names. It reports false when the
// body is not JSON (the decoder's own error is then the better one).
func coerceScalars(body []byte, target reflect.Type) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	out, err := json.Marshal(coerce(doc, target))
	return out, err == nil
}

var nullablePrefix = reflect.TypeOf(parley.Nullable[int64]{}).PkgPath() + ".Nullable["

// coerce walks a decoded value beside the type it will be decoded into.
func coerce(v any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.PkgPath()+"."+t.Name(), nullablePrefix) {
		if f, ok := t.FieldByName("Value"); ok {
			t = f.Type // Nullable[T] decodes its value as a T
		}
	}
	switch x := v.(type) {
	case string:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			if _, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return json.Number(strings.TrimSpace(x))
			}
		case reflect.Bool:
			if b, err := strconv.ParseBool(x); err == nil && (x == "true" || x == "false") {
				return b
			}
		}
	case json.Number:
		if t.Kind() == reflect.String {
			return string(x)
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i := range x {
				x[i] = coerce(x[i], t.Elem())
			}
		}
	case map[string]any:
		switch t.Kind() {
		case reflect.Map:
			for k := range x {
				x[k] = coerce(x[k], t.Elem())
			}
		case reflect.Struct:
			for k := range x {
				if f, ok := jsonField(t, k); ok {
					x[k] = coerce(x[k], f.Type)
				}
			}
		}
	}
	return v
}

// jsonField finds the struct field encoding/json would decode key into:
// the tag name, else the field name, matched case-insensitively.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			tagName, _, _ := strings.Cut(tag, ",")
			if tagName == "-" {
				continue
			}
			if tagName != "" {
				name = tagName
			}
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// checkControlChars refuses control characters in the body's strings (U+0000
// to U+001F but tab, LF and CR, and U+007F): they are never text an agent
// typed, and they corrupt exports and e-mail. JSON forbids them raw except
// DEL, so escapes are what must be read. The path of the first offender is
// named.
func checkControlChars(body []byte) error {
	if !hasControlChar(body) {
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil // unreachable: the body was decoded already
	}
	path, _ := findControlChar(doc, "")
	return parley.Invalid("JSON", path, parley.CodeInvalidJSON,
		"text may not hold control characters (U+0000 to U+001F except tab, line feed and carriage return, or U+007F)", nil)
}

// hasControlChar scans the raw JSON for a forbidden character, escaped or
// not, inside a string.
func hasControlChar(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == 0x7f:
			return true
		case c == '\\' && i+1 < len(b):
			i++
			switch b[i] {
			case 'b', 'f':
				return true
			case 'u':
				if i+4 < len(b) {
					if n, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 16); err == nil && forbidden(rune(n)) {
						return true
					}
				}
			}
		}
	}
	return false
}

func forbidden(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
}

// findControlChar returns the path of the first string (value or key)
// holding a forbidden character, in the error paths' notation.
func findControlChar(v any, path string) (string, bool) {
	switch x := v.(type) {
	case string:
		for _, r := range x {
			if forbidden(r) {
				return path, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := findControlChar(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e, p := x[k], k
			if path != "" {
				p = path + "." + k
			}
			if _, bad := findControlChar(k, p); bad {
				return p, true
			}
			if p, ok := findControlChar(e, p); ok {
				return p, true
			}
		}
	}
	return "", false
}
