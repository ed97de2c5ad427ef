package parley

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PropertyType is the type of a customer property definition.
type PropertyType string

// Customer property types (Help Scout's docs, "Customer property as read").
const (
	PropertyDate     PropertyType = "date"
	PropertyDropdown PropertyType = "dropdown"
	PropertyNumber   PropertyType = "number"
	PropertyText     PropertyType = "text"
	PropertyURL      PropertyType = "url"
)

// PropertyTypes lists the accepted property types.
var PropertyTypes = []string{"date", "dropdown", "number", "text", "url"}

// Customer property limits (Help Scout's docs, "Limits").
const (
	MaxPropertySlugLength = 100
	MaxPropertyNameLength = 100
	MaxPropertyTextLength = 255
	MaxPropertyOptions    = 100
)

// ReservedPropertySlugs may not name a property (Help Scout's docs, Create Customer).
var ReservedPropertySlugs = []string{"email", "name", "company", "jobTitle"}

// PropertyOption is one choice of a dropdown property.
type PropertyOption struct {
	ID    int64  `json:"id"`
	Label string `json:"label"`
}

// PropertyDef defines a customer property of a company. Slugs are unique
// per company.
type PropertyDef struct {
	ID        int64            `json:"id"`
	CompanyID int64            `json:"companyId"`
	Slug      string           `json:"slug"`
	Name      string           `json:"name"`
	Type      PropertyType     `json:"type"`
	Options   []PropertyOption `json:"options,omitempty"`
	CreatedAt time.Time        `json:"createdAt"`
}

// PropertyDefInput is a request defining a property.
type PropertyDefInput struct {
	Slug    *string      `json:"slug"`
	Name    *string      `json:"name"`
	Type    *string      `json:"type"`
	Options OptionsInput `json:"options"`
}

// ValidSlug reports whether s is 1 to 100 alphanumerics, `-` or `_`.
func ValidSlug(s string) bool { return validSlug(s, MaxPropertySlugLength) }

func validSlug(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// FindPropertyDef finds a definition by the reference of a request path:
// its slug (as the real API addresses it) or, for older clients, its id.
func FindPropertyDef(defs []PropertyDef, ref string) (*PropertyDef, error) {
	if d := findProperty(defs, ref); d != nil {
		return d, nil
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for i := range defs {
			if defs[i].ID == id {
				return &defs[i], nil
			}
		}
	}
	return nil, NotFound(CustomerProperties.Noun)
}

// DeleteProperty lets an owner or administrator delete a definition. Every
// customer's value for it goes in the same transaction, so the slug is
// free: a later definition with that slug starts with no values. The scan
// of the company's customers makes this a rare, administrative write.
func DeleteProperty(tx Tx, caller Caller, ref string) error {
	if err := RequireAdmin(caller, "delete customer properties"); err != nil {
		return err
	}
	defs, err := tx.PropertyDefs(caller.Company.ID)
	if err != nil {
		return err
	}
	d, err := FindPropertyDef(defs, ref)
	if err != nil {
		return err
	}
	var holders []*Customer
	err = tx.EachCustomer(func(c *Customer) error {
		if _, ok := c.Properties[d.Slug]; ok && c.CompanyID == d.CompanyID {
			holders = append(holders, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range holders { // after the scan: a cursor must not see its own writes
		delete(c.Properties, d.Slug)
		if err := tx.PutCustomer(c); err != nil {
			return err
		}
	}
	return tx.DeletePropertyDef(d.CompanyID, d.Slug)
}

// DefineProperty lets an owner or administrator define a customer property.
func DefineProperty(tx Tx, caller Caller, in *PropertyDefInput, now time.Time) (*PropertyDef, error) {
	if err := RequireAdmin(caller, "define customer properties"); err != nil {
		return nil, err
	}
	d, err := in.Validate(&CustomerProperties, caller.Company.ID, now)
	if err != nil {
		return nil, err
	}
	return d, tx.PutPropertyDef(d)
}

// Normalize checks a value against the definition's type (Help Scout's table)
// and returns the stored form: the option id for a dropdown given by id or
// label, the integer for a number, the value otherwise.
func (d *PropertyDef) Normalize(v string) (stored, code, msg string) {
	v = strings.TrimSpace(v)
	switch d.Type {
	case PropertyNumber:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", CodeInvalidNumber, "must be an integer in the signed 64-bit range"
		}
		return strconv.FormatInt(n, 10), "", ""
	case PropertyText:
		if len([]rune(v)) > MaxPropertyTextLength {
			return "", CodeSize, sizeMessage(0, MaxPropertyTextLength)
		}
		return v, "", ""
	case PropertyURL:
		if !ValidURL(v) {
			return "", CodeValueNotSupported, "must be a valid URL"
		}
		return v, "", ""
	case PropertyDate:
		if _, err := time.Parse("2006-01-02", v); err != nil {
			return "", CodeMalformedDate, "must be a date YYYY-MM-DD"
		}
		return v, "", ""
	case PropertyDropdown:
		for _, o := range d.Options {
			if strconv.FormatInt(o.ID, 10) == v || strings.EqualFold(o.Label, v) {
				return strconv.FormatInt(o.ID, 10), "", ""
			}
		}
		return "", CodeValueNotSupported, "must be the id or the label of an option of the dropdown"
	}
	return "", CodeValueNotSupported, "unknown property type"
}

// Text is a stored value as read: the option label for a dropdown, the
// value itself otherwise.
func (d *PropertyDef) Text(stored string) string {
	if d.Type == PropertyDropdown {
		for _, o := range d.Options {
			if strconv.FormatInt(o.ID, 10) == stored {
				return o.Label
			}
		}
	}
	return stored
}

// ValidURL reports whether s is an absolute http(s) URL with a host.
func ValidURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\n")
}

// PropertyValue is one property value of a request; a nil Value (JSON
// null) removes the value.
type PropertyValue struct {
	Slug  string
	Value *string
	Path  string // request path, for errors
	bad   bool   // the value was neither a string nor a number
}

// PropertyValues are the `properties` of a Create Customer request, in
// either form Help Scout's docs show: an object by slug, or an array of {slug, value}.
type PropertyValues []PropertyValue

// UnmarshalJSON reads both forms; the object form is read in slug order.
func (pv *PropertyValues) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var list []struct {
			Slug  string          `json:"slug"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		for i, it := range list {
			*pv = append(*pv, propertyValue(it.Slug, it.Value, fmt.Sprintf("properties[%d]", i)))
		}
		return nil
	}
	var byslug map[string]json.RawMessage
	if err := json.Unmarshal(b, &byslug); err != nil {
		return err
	}
	slugs := make([]string, 0, len(byslug))
	for s := range byslug {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	for _, s := range slugs {
		*pv = append(*pv, propertyValue(s, byslug[s], "properties."+s))
	}
	return nil
}

// propertyValue reads a raw JSON value: a string, a number (kept as
// written) or null.
func propertyValue(slug string, raw json.RawMessage, path string) PropertyValue {
	v := PropertyValue{Slug: slug, Path: path}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
	case raw[0] == '"':
		var s string
		v.bad = json.Unmarshal(raw, &s) != nil
		v.Value = &s
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		s := string(raw)
		v.Value = &s
	default:
		v.bad = true
	}
	return v
}

// ApplyProperties validates values against the company's definitions and
// writes them into the customer: a property must be defined, its value must
// fit its type, null removes it. Every problem is reported at once.
func ApplyProperties(c *Customer, defs []PropertyDef, values PropertyValues) error {
	p := &Problems{}
	for _, v := range values {
		def := findProperty(defs, v.Slug)
		if def == nil {
			p.Add(v.Path, CodeValueNotSupported, "no customer property with this slug is defined", v.Slug)
			continue
		}
		if v.bad {
			p.Add(v.Path, CodeInvalidJSON, "must be a string, a number or null", nil)
			continue
		}
		if v.Value == nil {
			delete(c.Properties, def.Slug)
			continue
		}
		stored, code, msg := def.Normalize(*v.Value)
		if code != "" {
			p.Add(v.Path, code, msg, *v.Value)
			continue
		}
		if c.Properties == nil {
			c.Properties = map[string]string{}
		}
		c.Properties[def.Slug] = stored
	}
	if len(c.Properties) == 0 {
		c.Properties = nil
	}
	return p.Err()
}

func findProperty(defs []PropertyDef, slug string) *PropertyDef {
	for i := range defs {
		if defs[i].Slug == slug {
			return &defs[i]
		}
	}
	return nil
}

func oneOfFold(v string, set []string) bool {
	for _, s := range set {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
