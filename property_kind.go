package parley

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// PropertyKind holds what differs between the two families of property
// definitions, customer properties and organization properties; their
// types, values and validation are otherwise the same code.
type PropertyKind struct {
	// Noun names a definition in messages ("customer property").
	Noun string
	// MaxSlug is the longest slug; MaxLabel the longest dropdown label.
	MaxSlug, MaxLabel int
	// MaxDefs bounds a company's definitions; 0 is no bound.
	MaxDefs int
	// Reserved slugs may not be defined.
	Reserved []string
	// IgnoreOptions drops options sent with a type other than dropdown
	// (organization properties, as Help Scout documents) instead of
	// rejecting them (customer properties, Help Scout's docs).
	IgnoreOptions bool
}

// CustomerProperties are the rules of customer property definitions (Help Scout's docs).
var CustomerProperties = PropertyKind{Noun: "customer property", MaxSlug: MaxPropertySlugLength,
	MaxLabel: MaxPropertyTextLength, Reserved: ReservedPropertySlugs}

// OrganizationProperties are the rules of organization property
// definitions, from Help Scout's Create Organization Property Definition:
// slugs of 1 to 120 characters, labels of at most 100, at most 50
// definitions a company, options ignored on types other than dropdown.
var OrganizationProperties = PropertyKind{Noun: "organization property", MaxSlug: 120, MaxLabel: 100,
	MaxDefs: 50, IgnoreOptions: true}

// OptionsInput is the `options` of a definition request: labels, given as
// strings (customer properties, Help Scout's docs) or as objects {"label": "..."}
// (Help Scout's organization properties); both forms are read everywhere.
type OptionsInput []string

// UnmarshalJSON reads an array of strings or of {label} objects.
func (o *OptionsInput) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*o = make(OptionsInput, 0, len(raw))
	for _, r := range raw {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '{' {
			var obj struct {
				Label string `json:"label"`
			}
			if err := json.Unmarshal(r, &obj); err != nil {
				return err
			}
			*o = append(*o, obj.Label)
			continue
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return err
		}
		*o = append(*o, s)
	}
	return nil
}

// Validate checks the definition request against the kind's rules and
// builds the definition (option ids are assigned by storage).
func (in *PropertyDefInput) Validate(kind *PropertyKind, companyID int64, now time.Time) (*PropertyDef, error) {
	p := &Problems{}
	switch {
	case in.Slug == nil:
		p.Add("slug", CodeNullValue, "may not be null", nil)
	case !validSlug(*in.Slug, kind.MaxSlug):
		p.Add("slug", CodeSize, fmt.Sprintf("must be 1 to %d characters: letters, digits, - or _", kind.MaxSlug), *in.Slug)
	case oneOfFold(*in.Slug, kind.Reserved):
		p.Add("slug", CodeValueNotSupported, "is reserved: "+strings.Join(kind.Reserved, ", "), *in.Slug)
	}
	requireString(p, "name", in.Name, MaxPropertyNameLength)
	requireEnum(p, "type", in.Type, PropertyTypes)
	isDropdown := in.Type != nil && *in.Type == string(PropertyDropdown)
	if !isDropdown && kind.IgnoreOptions {
		in.Options = nil
	}
	in.check(p, kind, isDropdown)
	if err := p.Err(); err != nil {
		return nil, err
	}
	d := &PropertyDef{CompanyID: companyID, Slug: *in.Slug, Name: strings.TrimSpace(*in.Name), Type: PropertyType(*in.Type), CreatedAt: now}
	for _, o := range in.Options {
		d.Options = append(d.Options, PropertyOption{Label: strings.TrimSpace(o)})
	}
	return d, nil
}

// check validates the options, for definition and update requests.
func (in *PropertyDefInput) check(p *Problems, kind *PropertyKind, isDropdown bool) {
	switch {
	case isDropdown && len(in.Options) == 0:
		p.Add("options", CodeEmptyValue, "a dropdown needs at least one option", nil)
	case !isDropdown && len(in.Options) > 0:
		p.Add("options", CodeValueNotSupported, "only dropdown properties have options", []string(in.Options))
	case len(in.Options) > MaxPropertyOptions:
		p.Add("options", CodeSize, sizeMessage(1, MaxPropertyOptions), len(in.Options))
	}
	seen := map[string]bool{}
	for i, o := range in.Options {
		path := fmt.Sprintf("options[%d]", i)
		label := strings.TrimSpace(o)
		switch {
		case label == "":
			p.Add(path, CodeEmptyValue, "may not be empty", o)
		case len([]rune(label)) > kind.MaxLabel:
			p.Add(path, CodeSize, sizeMessage(1, kind.MaxLabel), o)
		case seen[strings.ToLower(label)]:
			p.Add(path, CodeConflict, "options must be unique", o)
		}
		seen[strings.ToLower(label)] = true
	}
}

// Revise applies an update request to a definition: the name, and for a
// dropdown given options, the whole option list, an option keeping its id
// when its label (compared case-insensitively) stays. It returns the ids
// of the options that went, whose values the caller removes. The slug and
// the type never change (Help Scout's Update Organization Property
// Definition).
func (in *PropertyDefInput) Revise(kind *PropertyKind, d *PropertyDef) (gone []int64, err error) {
	p := &Problems{}
	isDropdown := d.Type == PropertyDropdown
	if !isDropdown && kind.IgnoreOptions {
		in.Options = nil
	}
	keepOptions := isDropdown && in.Options == nil // absent: the options stay
	if keepOptions {
		in.Options = OptionsInput{"-"} // satisfies the dropdown's need of one option
	}
	requireString(p, "name", in.Name, MaxPropertyNameLength)
	in.check(p, kind, isDropdown)
	if err := p.Err(); err != nil {
		return nil, err
	}
	d.Name = strings.TrimSpace(*in.Name)
	if keepOptions || !isDropdown {
		return nil, nil
	}
	old := map[string]int64{}
	for _, o := range d.Options {
		old[strings.ToLower(o.Label)] = o.ID
	}
	d.Options = d.Options[:0:0]
	for _, label := range in.Options {
		label = strings.TrimSpace(label)
		id := old[strings.ToLower(label)]
		delete(old, strings.ToLower(label))
		d.Options = append(d.Options, PropertyOption{ID: id, Label: label})
	}
	for _, id := range old {
		gone = append(gone, id)
	}
	return gone, nil
}
