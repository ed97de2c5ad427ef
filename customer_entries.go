package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limits of entries and addresses; Help Scout's docs give none, these bound abuse.
const (
	MaxEntryValueLength   = 255
	MaxAddressFieldLength = 255
	MaxAddressLines       = 10
)

// EntryInput is a customer entry in a request: `{type, value}`.
type EntryInput struct {
	Type  *string `json:"type"`
	Value *string `json:"value"`
}

// DefaultEntryType is the type of an entry sent without one: `work` for
// e-mails and phones, `other` for chats and social profiles.
func DefaultEntryType(k EntryKind) string {
	switch {
	case !k.Typed():
		return ""
	case k.Segment == "emails" || k.Segment == "phones":
		return "work"
	}
	return "other"
}

func (in *EntryInput) validate(p *Problems, k EntryKind, prefix string) {
	switch {
	case in.Value == nil:
		p.Add(prefix+"value", CodeNullValue, "may not be null", nil)
	case strings.TrimSpace(*in.Value) == "":
		p.Add(prefix+"value", CodeEmptyValue, "may not be empty", *in.Value)
	case len([]rune(*in.Value)) > MaxEntryValueLength:
		p.Add(prefix+"value", CodeSize, sizeMessage(1, MaxEntryValueLength), *in.Value)
	case k.Segment == "emails" && !ValidEmail(strings.TrimSpace(*in.Value)):
		p.Add(prefix+"value", CodeEmail, EmailRule, *in.Value)
	case k.Segment == "websites" && !ValidURL(strings.TrimSpace(*in.Value)):
		p.Add(prefix+"value", CodeValueNotSupported, "must be a valid http or https URL", *in.Value)
	}
	if in.Type == nil {
		return
	}
	if !k.Typed() {
		p.Add(prefix+"type", CodeValueNotSupported, k.Segment+" entries have no type", *in.Type)
	} else if !slices.Contains(k.Types, strings.ToLower(*in.Type)) {
		p.Add(prefix+"type", CodeValueNotSupported, "must be one of: "+strings.Join(k.Types, ", "), *in.Type)
	}
}

func (in *EntryInput) normalized(k EntryKind) string {
	if k.Segment == "emails" {
		return NormalizeEmail(*in.Value)
	}
	return strings.TrimSpace(*in.Value)
}

// entry builds a new entry (id assigned by storage) from a valid input.
func (in *EntryInput) entry(k EntryKind) Entry {
	e := Entry{Value: in.normalized(k), Type: DefaultEntryType(k)}
	if in.Type != nil {
		e.Type = strings.ToLower(*in.Type)
	}
	return e
}

// AddressInput is a customer address in a request.
type AddressInput struct {
	City       *string  `json:"city"`
	State      *string  `json:"state"`
	PostalCode *string  `json:"postalCode"`
	Country    *string  `json:"country"`
	Lines      []string `json:"lines"`
}

func (in *AddressInput) validate(p *Problems, prefix string) {
	for _, f := range []struct {
		name string
		v    *string
	}{{"city", in.City}, {"state", in.State}, {"postalCode", in.PostalCode}, {"country", in.Country}} {
		if f.v != nil && len([]rune(*f.v)) > MaxAddressFieldLength {
			p.Add(prefix+f.name, CodeSize, sizeMessage(0, MaxAddressFieldLength), *f.v)
		}
	}
	checkLines(p, prefix+"lines", in.Lines)
}

func checkLines(p *Problems, path string, lines []string) {
	if len(lines) > MaxAddressLines {
		p.Add(path, CodeSize, sizeMessage(0, MaxAddressLines), len(lines))
	}
	for i, l := range lines {
		if len([]rune(l)) > MaxAddressFieldLength {
			p.Add(fmt.Sprintf("%s[%d]", path, i), CodeSize, sizeMessage(0, MaxAddressFieldLength), l)
		}
	}
}

func (in *AddressInput) address() *Address {
	str := func(v *string) string {
		if v == nil {
			return ""
		}
		return strings.TrimSpace(*v)
	}
	a := &Address{City: str(in.City), State: str(in.State), PostalCode: str(in.PostalCode), Country: str(in.Country)}
	for _, l := range in.Lines {
		a.Lines = append(a.Lines, strings.TrimSpace(l))
	}
	return a
}

// AddEntry adds an entry to a customer's collection and returns it with its id.
func AddEntry(tx Tx, companyID, id int64, k EntryKind, in *EntryInput, now time.Time) (*Entry, error) {
	p := &Problems{}
	in.validate(p, k, "")
	if err := p.Err(); err != nil {
		return nil, err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return nil, err
	}
	list := c.Entries(k)
	e := in.entry(k)
	if findValue(*list, e.Value) >= 0 {
		return nil, &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Path: "value", Code: CodeConflict,
			Message: "the customer already has this " + strings.TrimSuffix(k.Segment, "s"), RejectedValue: e.Value, Origin: OriginBody}}}
	}
	*list = append(*list, e)
	c.UpdatedAt = now
	if err := saveCustomer(tx, c, now); err != nil {
		return nil, err
	}
	l := *c.Entries(k)
	return &l[len(l)-1], nil
}

// ReplaceEntry overwrites an entry: its value, and its type (absent type
// becomes the default).
func ReplaceEntry(tx Tx, companyID, id int64, k EntryKind, entryID int64, in *EntryInput, now time.Time) error {
	p := &Problems{}
	in.validate(p, k, "")
	if err := p.Err(); err != nil {
		return err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	list := *c.Entries(k)
	i := findEntry(list, entryID)
	if i < 0 {
		return NotFound(strings.TrimSuffix(k.Segment, "s"))
	}
	e := in.entry(k)
	e.ID = entryID
	list[i] = e
	c.UpdatedAt = now
	return saveCustomer(tx, c, now)
}

// RemoveEntry deletes one entry.
func RemoveEntry(tx Tx, companyID, id int64, k EntryKind, entryID int64, now time.Time) error {
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	list := c.Entries(k)
	i := findEntry(*list, entryID)
	if i < 0 {
		return NotFound(strings.TrimSuffix(k.Segment, "s"))
	}
	*list = append((*list)[:i], (*list)[i+1:]...)
	c.UpdatedAt = now
	return saveCustomer(tx, c, now)
}

// SetAddress creates or replaces the customer's address.
func SetAddress(tx Tx, companyID, id int64, in *AddressInput, now time.Time) error {
	p := &Problems{}
	in.validate(p, "")
	if err := p.Err(); err != nil {
		return err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	c.Address, c.UpdatedAt = in.address(), now
	return saveCustomer(tx, c, now)
}

// CreateAddress gives a customer without an address one; a customer who
// already has one gets a Conflict, so a create never silently overwrites
// (PUT replaces).
func CreateAddress(tx Tx, companyID, id int64, in *AddressInput, now time.Time) error {
	p := &Problems{}
	in.validate(p, "")
	if err := p.Err(); err != nil {
		return err
	}
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	if c.Address != nil {
		return &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Code: CodeConflict,
			Message: "the customer already has an address; replace it with PUT", Origin: OriginBody}}}
	}
	c.Address, c.UpdatedAt = in.address(), now
	return saveCustomer(tx, c, now)
}

// RemoveAddress deletes the customer's address (none is not an error).
func RemoveAddress(tx Tx, companyID, id int64, now time.Time) error {
	c, err := modifiableCustomer(tx, companyID, id)
	if err != nil {
		return err
	}
	c.Address, c.UpdatedAt = nil, now
	return saveCustomer(tx, c, now)
}

func findEntry(list []Entry, id int64) int {
	for i, e := range list {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func findValue(list []Entry, v string) int {
	for i, e := range list {
		if strings.EqualFold(e.Value, v) {
			return i
		}
	}
	return -1
}
