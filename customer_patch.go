package parley

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// patchField is a scalar path of Update Customer.
type patchField struct {
	field    func(c *Customer) *string
	min, max int
	values   []string // value set, nil: free text
}

func addressField(get func(a *Address) *string) func(c *Customer) *string {
	return func(c *Customer) *string {
		if c.Address == nil {
			c.Address = &Address{}
		}
		return get(c.Address)
	}
}

// patchFields are Help Scout's scalar paths; each takes add and replace (set)
// and remove (clear).
var patchFields = map[string]patchField{
	"/firstName":          {func(c *Customer) *string { return &c.FirstName }, 1, MaxNameLength, nil},
	"/lastName":           {func(c *Customer) *string { return &c.LastName }, 1, MaxNameLength, nil},
	"/photoUrl":           {func(c *Customer) *string { return &c.PhotoURL }, 0, MaxPhotoURLLength, nil},
	"/photoType":          {func(c *Customer) *string { return &c.PhotoType }, 0, 0, PhotoTypes},
	"/jobTitle":           {func(c *Customer) *string { return &c.JobTitle }, 0, MaxShortTextLength, nil},
	"/background":         {func(c *Customer) *string { return &c.Background }, 0, MaxBackgroundLength, nil},
	"/location":           {func(c *Customer) *string { return &c.Location }, 0, MaxShortTextLength, nil},
	"/gender":             {func(c *Customer) *string { return &c.Gender }, 0, 0, Genders},
	"/age":                {func(c *Customer) *string { return &c.Age }, 0, MaxShortTextLength, nil},
	"/address/city":       {addressField(func(a *Address) *string { return &a.City }), 0, MaxAddressFieldLength, nil},
	"/address/state":      {addressField(func(a *Address) *string { return &a.State }), 0, MaxAddressFieldLength, nil},
	"/address/postalCode": {addressField(func(a *Address) *string { return &a.PostalCode }), 0, MaxAddressFieldLength, nil},
	"/address/country":    {addressField(func(a *Address) *string { return &a.Country }), 0, MaxAddressFieldLength, nil},
}

// patcher applies operations to one customer, collecting problems.
type patcher struct {
	tx  Tx
	c   *Customer
	p   *Problems
	now time.Time
}

// PatchCustomer applies Update Customer's operations, all or none. The
// allowed paths and ops are Help Scout's: scalar fields and address fields take
// add/replace/remove; `/organizationId` replace and remove; `/organization`
// add/replace (fills organizationId) and remove; a collection takes add
// (a new entry) but never remove or replace; `/<collection>/{id}` replace
// and remove; `/<collection>/{id}/value` and `/type` replace.
func PatchCustomer(tx Tx, companyID, id int64, ops []PatchOp, now time.Time) error {
	if len(ops) == 0 {
		return InvalidField("", CodeEmptyValue, "the body must be a non-empty JSON array of patch operations", nil)
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	pt := &patcher{tx: tx, c: c, p: &Problems{}, now: now}
	for i, op := range ops {
		if err := pt.apply(fmt.Sprintf("[%d].", i), op); err != nil {
			return err
		}
	}
	if err := pt.p.Err(); err != nil {
		return err
	}
	c.UpdatedAt = now
	return saveCustomer(tx, c, now)
}

// refuse records an op not permitted for its path.
func (pt *patcher) refuse(prefix string, op PatchOp, allowed string) {
	pt.p.Add(prefix+"op", CodePatchOperation, fmt.Sprintf("%q is not permitted on %s; allowed: %s", op.Op, op.Path, allowed), op.Op)
}

func (pt *patcher) apply(prefix string, op PatchOp) error {
	if !slices.Contains([]string{OpAdd, OpRemove, OpReplace}, op.Op) {
		pt.p.Add(prefix+"op", CodePatchOperation, "must be one of: add, remove, replace", op.Op)
		return nil
	}
	if f, ok := patchFields[op.Path]; ok {
		pt.scalar(prefix, op, f)
		return nil
	}
	if h, ok := customerPatchPaths[op.Path]; ok {
		return h(pt, prefix, op)
	}
	pt.entry(prefix, op)
	return nil
}

// customerPatchPaths are the paths beside the scalar fields and the
// collections, each with its handler (which checks the op).
var customerPatchPaths = map[string]func(pt *patcher, prefix string, op PatchOp) error{
	"/address/lines":  (*patcher).addressLines,
	"/organizationId": (*patcher).organizationID,
	"/organization":   (*patcher).organization,
}

func (pt *patcher) addressLines(prefix string, op PatchOp) error {
	var lines []string
	if op.Op != OpRemove && !pt.decode(prefix, op, &lines) {
		return nil
	}
	checkLines(pt.p, prefix+"value", lines)
	if pt.c.Address == nil {
		pt.c.Address = &Address{}
	}
	pt.c.Address.Lines = lines
	return nil
}

// decode reads op's value into v; a missing or mistyped value is a problem.
func (pt *patcher) decode(prefix string, op PatchOp, v any) bool {
	if op.Value == nil || bytes.Equal(bytes.TrimSpace(op.Value), []byte("null")) {
		pt.p.Add(prefix+"value", CodeNullValue, op.Op+" needs a value", nil)
		return false
	}
	if err := UnmarshalValue(op.Value, v); err != nil {
		pt.p.Add(prefix+"value", CodeInvalidJSON, "the value has the wrong type for "+op.Path, string(op.Value))
		return false
	}
	return true
}

func (pt *patcher) scalar(prefix string, op PatchOp, f patchField) {
	if op.Op == OpRemove {
		*f.field(pt.c) = ""
		return
	}
	var v string
	if !pt.decode(prefix, op, &v) {
		return
	}
	v = strings.TrimSpace(v)
	if f.values != nil {
		v = strings.ToLower(v)
		if !slices.Contains(f.values, v) {
			pt.p.Add(prefix+"value", CodeValueNotSupported, "must be one of: "+strings.Join(f.values, ", "), v)
			return
		}
	} else if n := len([]rune(v)); n < f.min || n > f.max {
		pt.p.Add(prefix+"value", CodeSize, sizeMessage(f.min, f.max), v)
		return
	}
	*f.field(pt.c) = v
}

func (pt *patcher) organizationID(prefix string, op PatchOp) error {
	switch op.Op {
	case OpRemove:
		pt.c.OrganizationID, pt.c.Organization = 0, ""
		return nil
	case OpAdd:
		pt.refuse(prefix, op, "replace, remove")
		return nil
	}
	var id int64
	if !pt.decode(prefix, op, &id) {
		return nil
	}
	if id <= 0 {
		pt.p.Add(prefix+"value", CodeInvalidID, "must be a positive identifier", id)
		return nil
	}
	err := LinkOrganization(pt.tx, pt.c, &id, nil, prefix+"value", pt.now)
	if IsNotFound(err) || KindOf(err) == KindInvalid {
		pt.p.Add(prefix+"value", CodeInvalidID, "no organization with this id", id)
		return nil
	}
	return err
}

func (pt *patcher) organization(prefix string, op PatchOp) error {
	if op.Op == OpRemove {
		pt.c.OrganizationID, pt.c.Organization = 0, ""
		return nil
	}
	var name string
	if !pt.decode(prefix, op, &name) {
		return nil
	}
	if len([]rune(name)) > MaxShortTextLength {
		pt.p.Add(prefix+"value", CodeSize, sizeMessage(0, MaxShortTextLength), name)
		return nil
	}
	return LinkOrganization(pt.tx, pt.c, nil, &name, prefix+"value", pt.now)
}

// entry handles the collection paths.
func (pt *patcher) entry(prefix string, op PatchOp) {
	parts := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
	kind, ok := EntryKindOf(parts[0])
	if !ok || !strings.HasPrefix(op.Path, "/") || len(parts) > 3 {
		pt.p.Add(prefix+"path", CodePatchOperation, "path not supported", op.Path)
		return
	}
	list := pt.c.Entries(kind)
	if len(parts) == 1 {
		if op.Op != OpAdd {
			pt.refuse(prefix, op, "add (a whole entry collection cannot be removed or replaced)")
			return
		}
		var in EntryInput
		if pt.entryValue(prefix, op, kind, &in) {
			*list = append(*list, in.entry(kind))
		}
		return
	}
	if len(parts) == 3 && parts[2] != "value" && !(parts[2] == "type" && kind.Typed()) {
		pt.p.Add(prefix+"path", CodePatchOperation, "path not supported", op.Path)
		return
	}
	entryID, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || entryID <= 0 {
		pt.p.Add(prefix+"path", CodeInvalidID, "must name an entry by its id", op.Path)
		return
	}
	i := findEntry(*list, entryID)
	if i < 0 {
		pt.p.Add(prefix+"path", CodeInvalidID, "the customer has no such entry", op.Path)
		return
	}
	if len(parts) == 2 {
		switch op.Op {
		case OpRemove:
			*list = append((*list)[:i], (*list)[i+1:]...)
		case OpReplace:
			var in EntryInput
			if pt.entryValue(prefix, op, kind, &in) {
				e := in.entry(kind)
				e.ID = entryID
				(*list)[i] = e
			}
		default:
			pt.refuse(prefix, op, "replace, remove")
		}
		return
	}
	if op.Op != OpReplace {
		pt.refuse(prefix, op, "replace")
		return
	}
	var v string
	if !pt.decode(prefix, op, &v) {
		return
	}
	e := &(*list)[i]
	in := EntryInput{Value: &e.Value, Type: &e.Type}
	if parts[2] == "value" {
		in.Value = &v
	} else {
		in.Type = &v
	}
	if !kind.Typed() {
		in.Type = nil
	}
	before := len(pt.p.items)
	in.validate(pt.p, kind, prefix)
	if len(pt.p.items) == before {
		*e = in.entry(kind)
		e.ID = entryID
	}
}

// entryValue reads and checks an entry object value.
func (pt *patcher) entryValue(prefix string, op PatchOp, kind EntryKind, in *EntryInput) bool {
	if !pt.decode(prefix, op, in) {
		return false
	}
	before := len(pt.p.items)
	in.validate(pt.p, kind, prefix+"value.")
	return len(pt.p.items) == before
}

// PatchProperties applies Update Customer Properties: operations over
// `/<slug>`; add and replace set the value, remove clears it.
func PatchProperties(tx Tx, companyID, id int64, ops []PatchOp, now time.Time) error {
	if len(ops) == 0 {
		return InvalidField("", CodeEmptyValue, "the body must be a non-empty JSON array of patch operations", nil)
	}
	p := &Problems{}
	var values PropertyValues
	for i, op := range ops {
		prefix := fmt.Sprintf("[%d].", i)
		slug := strings.TrimPrefix(op.Path, "/")
		switch {
		case !slices.Contains([]string{OpAdd, OpRemove, OpReplace}, op.Op):
			p.Add(prefix+"op", CodePatchOperation, "must be one of: add, remove, replace", op.Op)
		case !strings.HasPrefix(op.Path, "/") || !ValidSlug(slug):
			p.Add(prefix+"path", CodePatchOperation, "must be /<property slug>", op.Path)
		case op.Op == OpRemove:
			values = append(values, PropertyValue{Slug: slug, Path: prefix + "path"})
		case op.Value == nil || bytes.Equal(bytes.TrimSpace(op.Value), []byte("null")):
			p.Add(prefix+"value", CodeNullValue, op.Op+" needs a value", nil)
		default:
			values = append(values, propertyValue(slug, op.Value, prefix+"value"))
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	defs, err := tx.PropertyDefs(companyID)
	if err != nil {
		return err
	}
	if err := ApplyProperties(c, defs, values); err != nil {
		return err
	}
	c.UpdatedAt = now
	return saveCustomer(tx, c, now)
}
